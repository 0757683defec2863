import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createConnectLinks } from "../../src/credentials/connect-links.js";
import { createKeyring } from "../../src/credentials/keyring.js";
import { createMemoryStore } from "../../src/state/memory-store.js";

function links(now = { t: 1_000_000 }, keyring = createKeyring([{ id: "k", key: randomBytes(32) }])) {
  return { now, links: createConnectLinks({ keyring, state: createMemoryStore(), ttlMs: 60_000, now: () => now.t }) };
}

describe("connect links", () => {
  it("open once, for the caller and slot they were minted for", async () => {
    const { links: l } = links();
    const { token, expiresAt } = await l.mint("jwt:alice", "gh.token");
    expect(l.verify(token)).toMatchObject({ caller: "jwt:alice", slot: "gh.token", expiresAt });
    expect(await l.redeem(token)).toMatchObject({ caller: "jwt:alice", slot: "gh.token" });
    expect(await l.redeem(token)).toBe("used");
  });

  it("refuse a link past its time, a forged or altered one, and one signed by a key the ring does not hold", async () => {
    const { now, links: l } = links();
    const { token } = await l.mint("jwt:alice", "gh.token");
    const [body = "", id = "", mac = ""] = token.split(".");
    // alice's link rewritten to name bob: its signature no longer matches.
    const forBob = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, "hex").toString()), c: "jwt:bob" }),
    ).toString("hex");
    expect(await l.redeem(`${forBob}.${id}.${mac}`)).toBe("forged");
    expect(await l.redeem(`${body}.${id}.${mac.slice(0, -2)}AA`)).toBe("forged");
    // Every other spelling of its last character, those a base64 decoder reads as the same bytes included.
    for (const last of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") {
      if (last !== mac.at(-1)) expect(l.verify(`${body}.${id}.${mac.slice(0, -1)}${last}`)).toBe("forged");
    }
    expect(await l.redeem("garbage")).toBe("malformed");
    expect(await links().links.redeem(token)).toBe("forged");
    now.t += 60_001;
    expect(await l.redeem(token)).toBe("expired");
  });

  it("keep opening after a key rotation while the old key is in the ring", async () => {
    const old = { id: "old", key: randomBytes(32) };
    const now = { t: 5 };
    const before = createConnectLinks({
      keyring: createKeyring([old]),
      state: createMemoryStore(),
      ttlMs: 60_000,
      now: () => now.t,
    });
    const { token } = await before.mint("token:ci", "fs.token");
    const state = createMemoryStore();
    const after = createConnectLinks({
      keyring: createKeyring([{ id: "new", key: randomBytes(32) }, old]),
      state,
      ttlMs: 60_000,
      now: () => now.t,
    });
    // The memory store of another process: a link issued in another generation cannot be known unused.
    expect(await after.redeem(token)).toBe("used");
    expect(after.verify(token)).toMatchObject({ caller: "token:ci" });
  });
});
