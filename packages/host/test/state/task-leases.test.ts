// The leases a replica holds for the runs of its tasks, over the memory store (the Redis store runs the same contract
// in task-stores.test.ts): a run learns of a cancel through the store's watch at once, and of an end written
// elsewhere at its next renewal; a held task stays working past its lease. Waits are on the aborts themselves.
import { describe, expect, it } from "vitest";
import { createMemoryTaskStore } from "../../src/state/memory-task-store.js";
import { createTaskLeases } from "../../src/state/task-leases.js";
import type { TaskRecord } from "../../src/state/task-store.js";
import { silentLogger } from "../helpers.js";

const LEASE_MS = 200;

function taskOf(id: string, leaseMs: number): TaskRecord {
  return {
    id,
    owner: "caller:leases",
    tool: "jobs.hold",
    args: {},
    supports: { elicitation: false, sampling: false, roots: false },
    status: "working",
    createdAt: Date.now(),
    lastUpdatedAt: Date.now(),
    ttlMs: 60_000,
    pollIntervalMs: 500,
    leaseMs,
  };
}

/** A run's stop: resolves with the reason it was aborted for. */
function stopper() {
  let abort: (reason: unknown) => void = () => {};
  const aborted = new Promise<unknown>((resolve) => {
    abort = resolve;
  });
  return { stop: { abort }, aborted };
}

describe("task leases", () => {
  it("hold the lease of a running task: it stays working past leaseMs while renewed", async () => {
    const store = createMemoryTaskStore();
    const leases = createTaskLeases({ store, logger: silentLogger(), leaseMs: LEASE_MS });
    const task = taskOf("held", leases.holdMs);
    await store.create(task, 4);
    const release = leases.hold(task.id, stopper().stop);
    // Two renewals past the lease a renewal holds, each seen as the store's own renew call.
    let renewals = 0;
    const renewed = new Promise<void>((resolve) => {
      const renew = store.renew.bind(store);
      store.renew = async (ids) => {
        const lost = await renew(ids);
        if (++renewals === 4) resolve();
        return lost;
      };
    });
    await renewed;
    expect((await store.get(task.id))?.status).toBe("working");
    release();
    leases.close();
  });

  it("stop a run at once when its task is cancelled, and at the next renewal when it ended elsewhere", async () => {
    const store = createMemoryTaskStore();
    const leases = createTaskLeases({ store, logger: silentLogger(), leaseMs: LEASE_MS });
    const [cancelled, ended] = [taskOf("cancelled", leases.holdMs), taskOf("ended", leases.holdMs)];
    await store.create(cancelled, 4);
    await store.create(ended, 4);
    const first = stopper();
    const second = stopper();
    leases.hold(cancelled.id, first.stop);
    leases.hold(ended.id, second.stop);
    await store.update(cancelled.id, ["working"], { status: "cancelled" });
    expect(String(await first.aborted)).toContain("the client cancelled the task");
    await store.update(ended.id, ["working"], { status: "failed", error: { code: -32603, message: "x" } });
    expect(String(await second.aborted)).toContain("the task ended on another replica");
    leases.close();
  });
});
