import type { RedisServer } from "@skillport/test-utils";
import { skipWithout, startRedis } from "@skillport/test-utils";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/state/memory-store.js";
import { createRedisStore } from "../../src/state/redis-store.js";
import type { StateStore } from "../../src/state/store.js";
import { StoreUnavailableError } from "../../src/state/store.js";

const RATE = { requestsPerMinute: 60, burst: 3 };

/** What every store answers, whatever keeps it. */
function storeContract(name: string, make: () => Promise<StateStore>) {
  describe(`${name}: the store contract`, () => {
    let store: StateStore;
    let generation: string;
    beforeAll(async () => {
      store = await make();
      // Nothing talked to this store before: its first generation is written now, and what is issued in it holds.
      generation = await store.generation();
    });
    afterAll(() => store?.close());

    it("claims a key once: first, then used", async () => {
      expect(await store.claimOnce("k1", 60_000, generation)).toBe("first");
      expect(await store.claimOnce("k1", 60_000, generation)).toBe("used");
      expect(await store.claimOnce("k2", 60_000, generation)).toBe("first");
    });

    it("keeps its generation while it keeps its data, and answers forgotten for what was issued in another", async () => {
      expect(await store.generation()).toBe(generation);
      expect(await store.claimOnce("old", 60_000, "an-earlier-generation")).toBe("forgotten");
      // Refused, it was not recorded.
      expect(await store.claimOnce("old", 60_000, generation)).toBe("first");
    });

    it("lets a claim go once its time is up", async () => {
      expect(await store.claimOnce("short", 20, generation)).toBe("first");
      // Redis's own clock is the subject (no fake clock reaches it): claims are tried again until it lets this one go,
      // for up to 5 s (a count of tries is no bound: the memory store answers 100,000 of them within 20 ms).
      let again = "used";
      for (const giveUpAt = Date.now() + 5_000; again !== "first" && Date.now() < giveUpAt; ) {
        again = await store.claimOnce("short", 20, generation);
      }
      expect(again).toBe("first");
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

describe("the memory store", () => {
  it("begins a generation of its own: what another (an earlier process) issued is forgotten", async () => {
    const earlier = createMemoryStore();
    const now = createMemoryStore();
    const issued = await earlier.generation();
    expect(await now.generation()).not.toBe(issued);
    expect(await now.claimOnce("token", 60_000, issued)).toBe("forgotten");
    expect(await now.claimOnce("token", 60_000, await now.generation())).toBe("first");
  });
});

describe.skipIf(skipWithout("redis-server"))("the redis store", () => {
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
      // The first to talk to a prefix writes its generation; every other reads the same one.
      const generation = await a.generation();
      expect(await b.generation()).toBe(generation);
      expect(await other.generation()).not.toBe(generation);
      expect(await a.claimOnce("token", 60_000, generation)).toBe("first");
      expect(await b.claimOnce("token", 60_000, generation)).toBe("used");
      expect(await other.claimOnce("token", 60_000, await other.generation())).toBe("first");
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
    const changes = new Set<() => void>();
    const store = await createRedisStore({
      url: redis.url,
      prefix: "outage:",
      onHealth: (h) => {
        health.push(h.ok);
        for (const wake of [...changes]) wake();
      },
    });
    /** Resolves once the store reports itself healthy (its onHealth, not a poll). */
    const healthy = () =>
      new Promise<void>((resolve) => {
        const wake = () => {
          if (!store.health().ok) return;
          changes.delete(wake);
          resolve();
        };
        changes.add(wake);
        wake();
      });
    try {
      const before = await store.generation();
      expect(await store.claimOnce("used-before", 60_000, before)).toBe("first");
      await redis.stop();
      // Nothing can be issued (its generation cannot be read) nor taken.
      await expect(store.generation()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.claimOnce("during", 60_000, before)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.take("c", RATE)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(store.health().ok).toBe(false);
      await redis.start();
      await healthy();
      expect(health).toEqual([true, false, true]);
      // This Redis lost its data: it begins another generation (never the one this client read before), and a
      // claim issued in the earlier one cannot be checked, so it is never "first".
      const after = await store.generation();
      expect(after).not.toBe(before);
      expect(await store.claimOnce("used-before", 60_000, before)).toBe("forgotten");
      expect(await store.claimOnce("new", 60_000, after)).toBe("first");
      expect(await store.claimOnce("new", 60_000, after)).toBe("used");
    } finally {
      await store.close();
    }
  });

  it("notices data flushed under a live connection: what was issued before is forgotten, and a new generation begins", async () => {
    const store = await createRedisStore({ url: redis.url, prefix: "flushed:" });
    const admin = new Redis(redis.url, { lazyConnect: true });
    try {
      const before = await store.generation();
      expect(await store.claimOnce("token", 60_000, before)).toBe("first");
      await admin.connect();
      await admin.flushall();
      expect(await store.claimOnce("token", 60_000, before)).toBe("forgotten");
      const after = await store.generation();
      expect(after).not.toBe(before);
      expect(await store.claimOnce("token", 60_000, after)).toBe("first");
    } finally {
      admin.disconnect();
      await store.close();
    }
  });

  it("starts while Redis is down, and connects by itself once it is up", async () => {
    await redis.stop();
    let connected: () => void = () => undefined;
    const up = new Promise<void>((resolve) => {
      connected = resolve;
    });
    const store = await createRedisStore({
      url: redis.url,
      prefix: "late:",
      onHealth: (h) => {
        if (h.ok) connected();
      },
    });
    try {
      await expect(store.heartbeat("r", 1000)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(store.health().ok).toBe(false);
      await redis.start();
      await up;
      expect(await store.heartbeat("r", 1000)).toHaveLength(1);
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
