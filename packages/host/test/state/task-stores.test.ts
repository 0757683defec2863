// What every task store answers, whatever keeps the tasks: written as a contract, so a store shared by replicas
// (Redis) runs the same checks. The clock is the store's own option: expiry is tested without waiting.
import { describe, expect, it } from "vitest";
import { createMemoryTaskStore } from "../../src/state/memory-task-store.js";
import type { TaskRecord, TaskStatus, TaskStore } from "../../src/state/task-store.js";

let sequence = 0;

/** A working task of `owner`, created at `at`. */
function taskOf(owner: string, at = 0, ttlMs = 1000): TaskRecord {
  sequence++;
  return {
    id: `task-${sequence}`,
    owner,
    tool: "jobs.hold",
    args: { label: String(sequence) },
    supports: { elicitation: true, sampling: false, roots: false },
    status: "working",
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs,
    pollIntervalMs: 500,
  };
}

function taskStoreContract(name: string, make: (now: () => number) => TaskStore) {
  describe(`${name}: the task store contract`, () => {
    it("creates a task and answers a copy of it; an unknown id answers nothing", async () => {
      const store = make(() => 0);
      const task = taskOf("caller:a");
      expect(await store.create(task, 4)).toBe("created");
      const got = await store.get(task.id);
      expect(got).toEqual(task);
      (got as TaskRecord).status = "failed";
      expect((await store.get(task.id))?.status).toBe("working");
      expect(await store.get("task-none")).toBeUndefined();
    });

    it("counts an owner's active tasks against its limit, and frees a place when one ends", async () => {
      const store = make(() => 0);
      const [first, second, third] = [taskOf("caller:b"), taskOf("caller:b"), taskOf("caller:b")];
      expect(await store.create(first, 2)).toBe("created");
      expect(await store.create(second, 2)).toBe("created");
      expect(await store.create(third, 2)).toBe("owner-limit");
      expect(await store.create(taskOf("caller:other"), 2)).toBe("created");
      expect(await store.update(first.id, ["working"], { status: "completed", result: { content: [] } })).toBe(true);
      expect(await store.create(third, 2)).toBe("created");
    });

    it("updates only from the statuses given: a cancelled task is never completed over, and watchers hear changes", async () => {
      const store = make(() => 0);
      const heard: [string, TaskStatus][] = [];
      const stop = store.watch((id, status) => heard.push([id, status]));
      const task = taskOf("caller:c");
      await store.create(task, 4);
      expect(await store.update(task.id, ["working"], { statusMessage: "1/2" })).toBe(true);
      expect(await store.update(task.id, ["working", "input_required"], { status: "cancelled" })).toBe(true);
      expect(await store.update(task.id, ["working"], { status: "completed", result: { content: [] } })).toBe(false);
      expect(await store.get(task.id)).toMatchObject({ status: "cancelled", statusMessage: "1/2" });
      expect(await store.update("task-none", ["working"], { status: "failed" })).toBe(false);
      stop();
      expect(heard).toEqual([[task.id, "cancelled"]]);
    });

    it("takes a round's answers one at a time, and resumes the task once when none is left open", async () => {
      const store = make(() => 0);
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
      const store = make(() => now);
      const done = taskOf("caller:e", 0, 1000);
      const running = taskOf("caller:e", 0, 1000);
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

    it("forgets a removed task at once, and its place with it", async () => {
      const store = make(() => 0);
      const task = taskOf("caller:f");
      await store.create(task, 1);
      await store.remove(task.id);
      expect(await store.get(task.id)).toBeUndefined();
      expect(await store.create(taskOf("caller:f"), 1)).toBe("created");
    });
  });
}

taskStoreContract("memory", (now) => createMemoryTaskStore({ now }));

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
