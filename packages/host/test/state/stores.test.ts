import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/state/memory-store.js";
import { createRedisStore } from "../../src/state/redis-store.js";
import type { StateStore } from "../../src/state/store.js";
import { StoreUnavailableError } from "../../src/state/store.js";
import { until } from "../http-helpers.js";
import type { RedisServer } from "../redis-server.js";
import { SKIP_REDIS, startRedis } from "../redis-server.js";

const RATE = { requestsPerMinute: 60, burst: 3 };

/** What every store answers, whatever keeps it. */
function storeContract(name: string, make: () => Promise<StateStore>) {
  describe(`${name}: the store contract`, () => {
    let store: StateStore;
    beforeAll(async () => {
      store = await make();
      // A replica reaches its store when it starts serving (the first heartbeat); what it issues after is remembered.
      await store.heartbeat("warm-up", 1);
    });
    afterAll(() => store?.close());

    it("claims a key once: first, then used", async () => {
      const now = Date.now();
      expect(await store.claimOnce("k1", 60_000, now)).toBe("first");
      expect(await store.claimOnce("k1", 60_000, now)).toBe("used");
      expect(await store.claimOnce("k2", 60_000, now)).toBe("first");
    });

    it("forgets nothing issued after it began, and answers forgotten for what was issued before", async () => {
      expect(await store.claimOnce("old", 60_000, 0)).toBe("forgotten");
    });

    it("lets a claim go once its time is up", async () => {
      const now = Date.now();
      expect(await store.claimOnce("short", 20, now)).toBe("first");
      await until(async () => (await store.claimOnce("short", 20, now)) === "first");
    });

    it("allows a burst, then answers when to retry, per key", async () => {
      const taken = [];
      for (let i = 0; i < 4; i++) taken.push(await store.take("caller:a", RATE));
      expect(taken.slice(0, 3)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
      expect(taken[3]).toEqual({ ok: false, retryAfterSec: 1 });
      expect(await store.take("caller:b", RATE)).toEqual({ ok: true });
      expect(await store.take("caller:c", { requestsPerMinute: 0, burst: 1 })).toEqual({ ok: true });
    });

    it("says how long to wait at a slow rate", async () => {
      const slow = { requestsPerMinute: 2, burst: 1 };
      expect(await store.take("slow", slow)).toEqual({ ok: true });
      const refused = await store.take("slow", slow);
      expect(refused.ok).toBe(false);
      // 30 s at 2 a minute, less the few milliseconds that passed since the first request.
      expect(refused.ok === false && refused.retryAfterSec).toBeGreaterThanOrEqual(29);
      expect(refused.ok === false && refused.retryAfterSec).toBeLessThanOrEqual(30);
    });

    it("lists the replicas ready, and drops one that leaves", async () => {
      expect(await store.heartbeat("replica-b", 60_000)).toEqual(["replica-b"]);
      expect(await store.heartbeat("replica-a", 60_000)).toEqual(["replica-a", "replica-b"]);
      await store.leave("replica-b");
      expect(await store.heartbeat("replica-a", 60_000)).toEqual(["replica-a"]);
      expect(store.health()).toEqual({ ok: true });
    });
  });
}

storeContract("memory", async () => createMemoryStore());

describe.skipIf(SKIP_REDIS)("the redis store", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  storeContract("redis", () => createRedisStore({ url: redis.url, prefix: "contract:" }));

  it("is one store for every client of the same Redis and prefix, and none for another prefix", async () => {
    const a = await createRedisStore({ url: redis.url, prefix: "shared:" });
    const b = await createRedisStore({ url: redis.url, prefix: "shared:" });
    const other = await createRedisStore({ url: redis.url, prefix: "other:" });
    try {
      await Promise.all([a, b, other].map((store) => store.heartbeat("warm-up", 1)));
      const now = Date.now();
      expect(await a.claimOnce("token", 60_000, now)).toBe("first");
      expect(await b.claimOnce("token", 60_000, now)).toBe("used");
      expect(await other.claimOnce("token", 60_000, now)).toBe("first");
      // One bucket of 3 across both clients.
      const rate = { requestsPerMinute: 60, burst: 3 };
      const taken = [
        await a.take("c", rate),
        await b.take("c", rate),
        await a.take("c", rate),
        await b.take("c", rate),
      ];
      expect(taken.map((d) => d.ok)).toEqual([true, true, true, false]);
      expect((await other.take("c", rate)).ok).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close(), other.close()]);
    }
  });

  it("rejects at once while Redis is down, forgets what it lost, and recovers by itself when Redis returns", async () => {
    const health: boolean[] = [];
    const store = await createRedisStore({
      url: redis.url,
      prefix: "outage:",
      onHealth: (h) => health.push(h.ok),
    });
    try {
      await store.heartbeat("warm-up", 1);
      const before = Date.now();
      expect(await store.claimOnce("used-before", 60_000, before)).toBe("first");
      await redis.stop();
      await expect(store.claimOnce("during", 60_000, Date.now())).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.take("c", RATE)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(store.health().ok).toBe(false);
      await redis.start();
      await until(() => store.health().ok, 20_000);
      expect(health).toEqual([true, false, true]);
      // This Redis lost its data: a claim made before it restarted cannot be checked, so it is never "first".
      expect(await store.claimOnce("used-before", 60_000, before)).toBe("forgotten");
      const after = Date.now() + 1;
      expect(await store.claimOnce("new", 60_000, after)).toBe("first");
      expect(await store.claimOnce("new", 60_000, after)).toBe("used");
    } finally {
      await store.close();
    }
  });

  it("starts while Redis is down, and connects by itself once it is up", async () => {
    await redis.stop();
    const store = await createRedisStore({ url: redis.url, prefix: "late:" });
    try {
      await expect(store.heartbeat("r", 1000)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(store.health().ok).toBe(false);
      await redis.start();
      await until(async () => (await store.heartbeat("r", 1000).catch(() => [])).length === 1, 20_000);
      expect(store.health()).toEqual({ ok: true });
    } finally {
      await store.close();
    }
  });

  it("stops connecting once closed, and never connects when no command is sent", async () => {
    const idle = await createRedisStore({ url: "redis://127.0.0.1:1", prefix: "idle:" });
    expect(idle.health()).toMatchObject({ ok: false, reason: "not connected yet" });
    await idle.close();
  });
});
