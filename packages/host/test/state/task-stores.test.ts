// What every task store answers, whatever keeps the tasks: written as a contract, run on the memory store and on the
// Redis store over a real redis-server. The clock is the store's own option: expiry and leases are tested without
// waiting.
import { randomBytes } from "node:crypto";
import type { RedisServer } from "@skillport/test-utils";
import { skipWithout, startRedis } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryTaskStore } from "../../src/state/memory-task-store.js";
import { createRedisTaskStore } from "../../src/state/redis-task-store.js";
import { StoreUnavailableError } from "../../src/state/store.js";
import type { TaskRecord, TaskStatus, TaskStore } from "../../src/state/task-store.js";
import { LEASE_LAPSED } from "../../src/state/task-store.js";

let sequence = 0;

/** A working task of `owner`, created at `at`. */
function taskOf(owner: string, at = 0, ttlMs = 1000, leaseMs = 60_000): TaskRecord {
  sequence++;
  return {
    id: `task-${sequence}-${randomBytes(4).toString("hex")}`,
    owner,
    tool: "jobs.hold",
    args: { label: String(sequence) },
    supports: { elicitation: true, sampling: false, roots: false },
    status: "working",
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs,
    pollIntervalMs: 500,
    leaseMs,
  };
}

/** Resolves once `listener`-style changes include `id` reaching `status`, heard through the store's watch. */
function hears(store: TaskStore, id: string, status: TaskStatus) {
  const heard: [string, TaskStatus][] = [];
  let stop = () => {};
  const reached = new Promise<[string, TaskStatus][]>((resolve) => {
    stop = store.watch((changed, now) => {
      heard.push([changed, now]);
      if (changed === id && now === status) resolve(heard);
    });
  });
  return { reached, stop: () => stop() };
}

function taskStoreContract(name: string, make: (now: () => number) => Promise<TaskStore>) {
  describe(`${name}: the task store contract`, () => {
    const opened: TaskStore[] = [];
    const open = async (now: () => number) => {
      const store = await make(now);
      opened.push(store);
      return store;
    };
    afterAll(async () => {
      for (const store of opened) await store.close();
    });

    it("creates a task and answers a copy of it; an unknown id answers nothing", async () => {
      const store = await open(() => 0);
      const task = taskOf("caller:a");
      expect(await store.create(task, 4)).toBe("created");
      const got = await store.get(task.id);
      expect(got).toEqual(task);
      (got as TaskRecord).status = "failed";
      expect((await store.get(task.id))?.status).toBe("working");
      expect(await store.get("task-none")).toBeUndefined();
    });

    it("counts an owner's active tasks against its limit, and frees a place when one ends", async () => {
      const store = await open(() => 0);
      const [first, second, third] = [taskOf("caller:b"), taskOf("caller:b"), taskOf("caller:b")];
      expect(await store.create(first, 2)).toBe("created");
      expect(await store.create(second, 2)).toBe("created");
      expect(await store.create(third, 2)).toBe("owner-limit");
      expect(await store.create(taskOf("caller:other"), 2)).toBe("created");
      expect(await store.update(first.id, ["working"], { status: "completed", result: { content: [] } })).toBe(true);
      expect(await store.create(third, 2)).toBe("created");
    });

    it("updates only from the statuses given: a cancelled task is never completed over, and watchers hear changes", async () => {
      const store = await open(() => 0);
      const task = taskOf("caller:c");
      const listening = hears(store, task.id, "cancelled");
      await store.create(task, 4);
      expect(await store.update(task.id, ["working"], { statusMessage: "1/2" })).toBe(true);
      expect(await store.update(task.id, ["working", "input_required"], { status: "cancelled" })).toBe(true);
      expect(await store.update(task.id, ["working"], { status: "completed", result: { content: [] } })).toBe(false);
      expect(await store.get(task.id)).toMatchObject({ status: "cancelled", statusMessage: "1/2" });
      expect(await store.update("task-none", ["working"], { status: "failed" })).toBe(false);
      expect(await listening.reached).toEqual([[task.id, "cancelled"]]);
      listening.stop();
    });

    it("takes a round's answers one at a time, and resumes the task once when none is left open", async () => {
      const store = await open(() => 0);
      const task = taskOf("caller:d");
      await store.create(task, 4);
      const asked = { method: "elicitation/create", params: {} };
      await store.update(task.id, ["working"], {
        status: "input_required",
        inputRequests: { name: asked, confirm: asked },
        round: { state: "s1", responses: {} },
      });
      expect(await store.answer(task.id, { other: {} })).toEqual({ kind: "ignored" });
      expect(await store.answer(task.id, { name: { action: "accept" } })).toEqual({ kind: "waiting" });
      expect((await store.get(task.id))?.inputRequests).toEqual({ confirm: asked });
      expect(await store.answer(task.id, { confirm: { action: "decline" } })).toEqual({
        kind: "resume",
        round: { state: "s1", responses: { name: { action: "accept" }, confirm: { action: "decline" } } },
      });
      const resumed = await store.get(task.id);
      expect(resumed?.status).toBe("working");
      expect(resumed).not.toHaveProperty("inputRequests");
      // The round is taken once: answering again does nothing.
      expect(await store.answer(task.id, { confirm: { action: "accept" } })).toEqual({ kind: "ignored" });
    });

    it("keeps a finished task ttlMs after its last change, and a running one while it runs", async () => {
      let now = 0;
      const store = await open(() => now);
      const done = taskOf("caller:e", 0, 1000);
      const running = taskOf("caller:e", 0, 1000, 100_000_000);
      await store.create(done, 4);
      await store.create(running, 4);
      await store.update(done.id, ["working"], { status: "completed", result: { content: [] } });
      now = 999;
      expect(await store.get(done.id)).toBeDefined();
      now = 1000;
      expect(await store.get(done.id)).toBeUndefined();
      now = 10_000_000;
      expect((await store.get(running.id))?.status).toBe("working");
    });

    it("ends a working task failed once its lease lapses, unless renewed; a reader or the sweep ends it", async () => {
      let now = 0;
      const store = await open(() => now);
      const [renewed, read, swept] = [1, 2, 3].map(() => taskOf("caller:l", 0, 1000, 300));
      for (const task of [renewed, read, swept]) await store.create(task as TaskRecord, 4);
      const ids = [renewed, read, swept].map((task) => (task as TaskRecord).id);
      now = 200;
      expect(await store.renew([ids[0] as string])).toEqual([]);
      now = 300;
      expect((await store.get(ids[0] as string))?.status).toBe("working");
      // Lapsed, but nobody looked: still working, and its own run may still finish it.
      expect(await store.update(ids[1] as string, ["working"], { statusMessage: "late" })).toBe(true);
      const failed = await store.get(ids[1] as string);
      expect(failed).toMatchObject({ status: "failed", error: LEASE_LAPSED, lastUpdatedAt: 300 });
      const listening = hears(store, ids[2] as string, "failed");
      expect(await store.sweep()).toBe(1);
      await listening.reached;
      listening.stop();
      expect(await store.get(ids[2] as string)).toMatchObject({ status: "failed", error: LEASE_LAPSED });
      expect(await store.sweep()).toBe(0);
      // The renewal tells a replica which of its runs ended elsewhere.
      expect(await store.renew(ids)).toEqual(ids.slice(1));
      // The failed tasks freed their owner's places: one is still working.
      expect(await store.create(taskOf("caller:l", 300), 2)).toBe("created");
      expect(await store.create(taskOf("caller:l", 300), 2)).toBe("owner-limit");
    });

    it("holds a resumed round's lease from the answer that resumed it", async () => {
      let now = 0;
      const store = await open(() => now);
      const task = taskOf("caller:m", 0, 10_000, 300);
      await store.create(task, 4);
      await store.update(task.id, ["working"], {
        status: "input_required",
        inputRequests: { name: {} },
        round: { state: "", responses: {} },
      });
      now = 1000;
      expect((await store.get(task.id))?.status).toBe("input_required");
      expect((await store.answer(task.id, { name: { action: "accept" } })).kind).toBe("resume");
      now = 1299;
      expect((await store.get(task.id))?.status).toBe("working");
      now = 1300;
      expect((await store.get(task.id))?.status).toBe("failed");
    });

    it("forgets a removed task at once, and its place with it", async () => {
      const store = await open(() => 0);
      const task = taskOf("caller:f");
      await store.create(task, 1);
      await store.remove(task.id);
      expect(await store.get(task.id)).toBeUndefined();
      expect(await store.create(taskOf("caller:f"), 1)).toBe("created");
    });
  });
}

taskStoreContract("memory", async (now) => createMemoryTaskStore({ now }));

describe.skipIf(skipWithout("redis-server"))("the Redis task store", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  // Each store its own prefix, as two compositions sharing one Redis.
  taskStoreContract("redis", (now) =>
    createRedisTaskStore({ url: redis.url, prefix: `test:${randomBytes(4).toString("hex")}:`, now }),
  );

  it("holds at most maxTasks, every replica together", async () => {
    let now = 0;
    const prefix = "test:bounded:";
    const [one, two] = await Promise.all(
      [1, 2].map(() => createRedisTaskStore({ url: redis.url, prefix, maxTasks: 2, now: () => now })),
    );
    try {
      const a = taskOf("caller:g", 0, 10);
      await one?.create(a, 4);
      await two?.create(taskOf("caller:h", 0, 10), 4);
      expect(await two?.create(taskOf("caller:i"), 4)).toBe("full");
      await two?.update(a.id, ["working"], { status: "failed", error: { code: -32603, message: "x" } });
      now = 100;
      expect(await one?.create(taskOf("caller:i", 100), 4)).toBe("created");
    } finally {
      await one?.close();
      await two?.close();
    }
  });

  it("keeps a result as it was given (empty arrays and objects, big numbers, unicode)", async () => {
    const store = await createRedisTaskStore({ url: redis.url, prefix: "test:shapes:" });
    try {
      const task = taskOf("caller:j");
      await store.create(task, 4);
      const result = { content: [], structuredContent: { ok: true, data: { a: {}, n: 2 ** 53 - 1, s: "é ✓ \u0000" } } };
      await store.update(task.id, ["working"], { status: "completed", result });
      expect((await store.get(task.id))?.result).toEqual(result);
    } finally {
      await store.close();
    }
  });

  it("rejects with StoreUnavailableError while Redis is down, and serves again once it is back", async () => {
    let back = () => {};
    const store = await createRedisTaskStore({
      url: redis.url,
      prefix: "test:outage:",
      onHealth: (health) => health.ok && back(),
    });
    try {
      await store.create(taskOf("caller:k"), 4);
      await redis.stop();
      await expect(store.create(taskOf("caller:k"), 4)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.get("any")).rejects.toBeInstanceOf(StoreUnavailableError);
      // ioredis reconnects by itself, and says so.
      const reconnected = new Promise<void>((resolve) => {
        back = resolve;
      });
      await redis.start();
      await reconnected;
      expect(await store.create(taskOf("caller:k"), 4)).toBe("created");
    } finally {
      await store.close();
    }
  });
});

describe("the memory task store", () => {
  it("holds at most maxTasks: expired ones are dropped first, then a new task is refused", async () => {
    let now = 0;
    const store = createMemoryTaskStore({ maxTasks: 2, now: () => now });
    const [a, b] = [taskOf("caller:g", 0, 10), taskOf("caller:h", 0, 10)];
    await store.create(a, 4);
    await store.create(b, 4);
    expect(await store.create(taskOf("caller:i"), 4)).toBe("full");
    await store.update(a.id, ["working"], { status: "failed", error: { code: -32603, message: "x" } });
    now = 100;
    expect(await store.create(taskOf("caller:i"), 4)).toBe("created");
  });
});
