import { randomBytes } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { RedisServer } from "@skillport/test-utils";
import { skipWithout, startRedis } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyring } from "../../src/credentials/keyring.js";
import { createVault } from "../../src/credentials/vault.js";
import { openFileSealedStore } from "../../src/state/file-sealed-store.js";
import { createRedisSealedStore } from "../../src/state/redis-sealed-store.js";
import type { SealedStore } from "../../src/state/sealed-store.js";
import { createMemorySealedStore } from "../../src/state/sealed-store.js";
import { scratch } from "../helpers.js";

/** What every sealed store answers alike. */
function sealedStoreContract(kind: string, open: () => Promise<SealedStore>) {
  describe(`the ${kind} sealed store`, () => {
    it("keeps, lists, takes once and deletes records", async () => {
      const store = await open();
      try {
        await store.set("cred:a.token:token:alice", "one");
        await store.set("cred:a.token:token:bob", "two");
        await store.set("aux:flow:x", "flow", 60_000);
        expect(await store.get("cred:a.token:token:alice")).toBe("one");
        expect((await store.keys("cred:a.token:")).sort()).toEqual([
          "cred:a.token:token:alice",
          "cred:a.token:token:bob",
        ]);
        const [first, second] = await Promise.all([store.take("aux:flow:x"), store.take("aux:flow:x")]);
        expect([first, second].sort()).toEqual(["flow", undefined].sort());
        expect(await store.delete("cred:a.token:token:bob")).toBe(true);
        expect(await store.delete("cred:a.token:token:bob")).toBe(false);
        expect(await store.get("missing")).toBeUndefined();
      } finally {
        await store.close();
      }
    });
  });
}

sealedStoreContract("memory", async () => createMemorySealedStore());

describe("the memory sealed store", () => {
  it("forgets a record past its time", async () => {
    const now = { t: 0 };
    const store = createMemorySealedStore(() => now.t);
    await store.set("k", "v", 10);
    now.t = 10;
    expect(await store.get("k")).toBeUndefined();
    expect(await store.keys("")).toEqual([]);
  });
});

describe("the file sealed store", () => {
  sealedStoreContract("file", async () => openFileSealedStore(path.join(await scratch("skillport-sealed-"), "c.json")));

  it("keeps its records across a restart in a file only its owner reads, and holds no value in the clear", async () => {
    const folder = await scratch("skillport-sealed-");
    const file = path.join(folder, "nested", "credentials.json");
    const keyring = createKeyring([{ id: "k", key: randomBytes(32) }]);
    const first = createVault(await openFileSealedStore(file), keyring);
    await first.put("gh.token", "jwt:alice", { kind: "token", value: "ghp_alice_secret_value", savedAt: 1 });
    await first.store.close();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, "utf8")).not.toContain("ghp_alice_secret_value");
    const again = createVault(await openFileSealedStore(file), keyring);
    expect(await again.get("gh.token", "jwt:alice")).toMatchObject({ value: "ghp_alice_secret_value" });
    expect(await again.list()).toEqual([
      { slot: "gh.token", caller: "jwt:alice", kind: "token", savedAt: 1, readable: true },
    ]);
    // Sealed by a key the ring no longer holds: listed as unreadable, never opened.
    const rotated = createVault(await openFileSealedStore(file), createKeyring([{ id: "k2", key: randomBytes(32) }]));
    expect(await rotated.get("gh.token", "jwt:alice")).toBeUndefined();
    expect((await rotated.list())[0]).toMatchObject({ readable: false });
  });

  it("refuses a file that is not a credentials file, naming it", async () => {
    const folder = await scratch("skillport-sealed-");
    const file = path.join(folder, "c.json");
    await (await import("node:fs/promises")).writeFile(file, "[1,2]");
    await expect(openFileSealedStore(file)).rejects.toThrow(/is not a credentials file written by Skillport/);
  });
});

describe("the vault", () => {
  it("reads the store on every get: what another replica changed or removed counts at once", async () => {
    const store = createMemorySealedStore();
    const keyring = createKeyring([{ id: "k", key: randomBytes(32) }]);
    const here = createVault(store, keyring);
    const there = createVault(store, keyring);
    await here.put("gh.token", "jwt:alice", { kind: "token", value: "first-token-value", savedAt: 1 });
    expect(await here.get("gh.token", "jwt:alice")).toMatchObject({ value: "first-token-value" });
    await there.put("gh.token", "jwt:alice", { kind: "token", value: "second-token-value", savedAt: 2 });
    expect(await here.get("gh.token", "jwt:alice")).toMatchObject({ value: "second-token-value" });
    await there.remove("gh.token", "jwt:alice");
    expect(await here.get("gh.token", "jwt:alice")).toBeUndefined();
    await there.put("gh.token", "jwt:alice", { kind: "token", value: "third-token-value", savedAt: 3 });
    const kept = await here.get("gh.token", "jwt:alice");
    expect(Object.isFrozen(kept)).toBe(true);
  });

  it("does not open a record copied under another caller's key", async () => {
    const store = createMemorySealedStore();
    const vault = createVault(store, createKeyring([{ id: "k", key: randomBytes(32) }]));
    await vault.put("gh.token", "jwt:alice", { kind: "token", value: "alice-token-value", savedAt: 1 });
    await store.set("cred:gh.token:jwt:bob", (await store.get("cred:gh.token:jwt:alice")) ?? "");
    expect(await vault.get("gh.token", "jwt:bob")).toBeUndefined();
    expect(await vault.get("gh.token", "jwt:alice")).toMatchObject({ value: "alice-token-value" });
  });
});

describe.skipIf(skipWithout("redis-server"))("the redis sealed store", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  sealedStoreContract("redis", () => createRedisSealedStore({ url: redis.url, prefix: "contract:" }));

  it("is one store for every replica on the same prefix", async () => {
    const a = await createRedisSealedStore({ url: redis.url, prefix: "shared:" });
    const b = await createRedisSealedStore({ url: redis.url, prefix: "shared:" });
    const other = await createRedisSealedStore({ url: redis.url, prefix: "other:" });
    try {
      await a.set("cred:x:y", "v");
      expect(await b.get("cred:x:y")).toBe("v");
      expect(await other.get("cred:x:y")).toBeUndefined();
      expect(await b.keys("cred:")).toEqual(["cred:x:y"]);
      await a.set("aux:ttl", "v", 1);
      await expect.poll(() => b.get("aux:ttl"), { timeout: 2000, interval: 5 }).toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close(), other.close()]);
    }
  });
});
