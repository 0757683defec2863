// The token exchange on its own, against the fixture's identity provider: what it keeps, for how long, for whom.
import type { AuthorizationServer } from "@skillport/test-utils";
import { startAuthorizationServer } from "@skillport/test-utils";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallerSlot } from "../../src/credentials/caller-slot.js";
import { createTokenExchange } from "../../src/credentials/token-exchange.js";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const EXCHANGER = { client_id: "skillport-host", client_secret: "exchanger-secret" };
const AUDIENCE = "http://127.0.0.1:9/mcp";

let as: AuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer({ clients: [{ ...EXCHANGER, grant_types: [TOKEN_EXCHANGE] }] });
});

afterAll(async () => {
  await as?.close();
});

describe("createTokenExchange", () => {
  it("keeps an exchanged token per caller and subject token until shortly before it expires", async () => {
    const clock = { now: 1_000_000 };
    const exchange = createTokenExchange({ now: () => clock.now });
    const slot = slotAt(as.issuer, EXCHANGER.client_secret);
    const subject = await as.mintAccessToken({ sub: "alice", audience: "skillport" });
    const exchanges = () => as.tokenRequests.filter((r) => r.grantType === TOKEN_EXCHANGE).length;
    const before = exchanges();

    const first = await exchange(slot, "jwt:alice", subject);
    if (!first.ok) throw new Error(first.message);
    expect(decodeJwt(first.token)).toMatchObject({ sub: "alice", aud: AUDIENCE, client_id: EXCHANGER.client_id });
    clock.now += 29_000; // the fixture's tokens live 60 s: kept until 30 s before that
    expect(await exchange(slot, "jwt:alice", subject)).toEqual(first);
    expect(exchanges()).toBe(before + 1);
    clock.now += 2_000;
    const again = await exchange(slot, "jwt:alice", subject);
    expect(again.ok && again.token !== first.token).toBe(true);
    expect(exchanges()).toBe(before + 2);

    // Another subject token of the same caller (signed in again) is exchanged anew.
    const resigned = await as.mintAccessToken({ sub: "alice", audience: "skillport", ttlSec: 120 });
    await exchange(slot, "jwt:alice", resigned);
    expect(exchanges()).toBe(before + 3);
  });

  it("keeps at most maxCached tokens, the oldest going first", async () => {
    const exchange = createTokenExchange({ maxCached: 2 });
    const slot = slotAt(as.issuer, EXCHANGER.client_secret);
    const subjects = await Promise.all(
      ["a", "b", "c"].map((sub) => as.mintAccessToken({ sub, audience: "skillport" })),
    );
    const exchanges = () => as.tokenRequests.filter((r) => r.grantType === TOKEN_EXCHANGE).length;
    const before = exchanges();
    for (const [i, subject] of subjects.entries()) await exchange(slot, `jwt:${"abc"[i]}`, subject);
    expect(exchanges()).toBe(before + 3);
    await exchange(slot, "jwt:c", subjects[2] as string);
    expect(exchanges()).toBe(before + 3);
    await exchange(slot, "jwt:a", subjects[0] as string);
    expect(exchanges()).toBe(before + 4);
  });

  it("shares one exchange between calls of a caller at the same time", async () => {
    const exchange = createTokenExchange();
    const slot = slotAt(as.issuer, EXCHANGER.client_secret);
    const subject = await as.mintAccessToken({ sub: "dave", audience: "skillport" });
    const exchanges = () => as.tokenRequests.filter((r) => r.grantType === TOKEN_EXCHANGE).length;
    const before = exchanges();
    const answers = await Promise.all([1, 2, 3].map(() => exchange(slot, "jwt:dave", subject)));
    expect(new Set(answers.map((a) => (a.ok ? a.token : a.message))).size).toBe(1);
    expect(exchanges()).toBe(before + 1);
  });

  it("names the provider's error when it refuses, and says when it cannot be reached, never a token", async () => {
    const subject = await as.mintAccessToken({ sub: "erin", audience: "skillport" });
    const refused = await createTokenExchange()(slotAt(as.issuer, "wrong-secret"), "jwt:erin", subject);
    expect(refused).toEqual({ ok: false, message: expect.stringContaining("(invalid_client)") });
    const unreachable = await createTokenExchange()(slotAt("http://127.0.0.1:9", "s"), "jwt:erin", subject);
    expect(unreachable).toEqual({ ok: false, message: expect.stringContaining("could not be reached") });
    for (const answer of [refused, unreachable]) {
      expect(JSON.stringify(answer)).not.toContain(subject);
      expect(JSON.stringify(answer)).not.toContain("wrong-secret");
    }
  });
});

// --- internal ---

function slotAt(issuer: string, clientSecret: string): CallerSlot {
  return {
    id: "up.token",
    owner: "up",
    name: "token",
    where: "servers[0].auth",
    label: 'the server "up"',
    via: "exchange",
    fallback: undefined,
    exchange: { issuer, audience: AUDIENCE, resource: AUDIENCE, clientId: EXCHANGER.client_id, clientSecret },
  };
}
