import type { TaskPatch, TaskRecord, TaskStatus, TaskStore } from "./task-store.js";
import { ACTIVE_STATUSES, LEASE_LAPSED } from "./task-store.js";

/** Options for {@link createMemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /**
   * The most tasks kept at once, all callers together; past it, expired tasks are dropped, then new ones refused.
   * @default 10000
   */
  maxTasks?: number;
  /** @default Date.now */
  now?: () => number;
}

/**
 * Tasks in this process: a task is read, answered and cancelled only through the replica that created it. A task
 * that runs is kept while it runs; any other is kept `ttlMs` after its last change, then dropped.
 *
 * @example
 * const tasks = createMemoryTaskStore();
 * await tasks.create(record, 16); // "created"
 * await tasks.update(record.id, ["working"], { status: "cancelled" });
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore {
  const { maxTasks = 10_000, now = Date.now } = options;
  const tasks = new Map<string, TaskRecord>();
  // Each owner's active tasks, so the per-caller limit costs nothing per call.
  const active = new Map<string, Set<string>>();
  const listeners = new Set<(id: string, status: TaskStatus) => void>();
  // When each working task's lease lapses, by id.
  const leases = new Map<string, number>();

  const expired = (task: TaskRecord, at: number) => task.status !== "working" && task.lastUpdatedAt + task.ttlMs <= at;

  const forget = (task: TaskRecord) => {
    tasks.delete(task.id);
    leases.delete(task.id);
    release(task);
  };

  const release = (task: TaskRecord) => {
    const owned = active.get(task.owner);
    if (owned === undefined) return;
    owned.delete(task.id);
    if (owned.size === 0) active.delete(task.owner);
  };

  /** Writes a patch (an undefined field is removed) and tells the watchers of a change of status. */
  const apply = (task: TaskRecord, patch: TaskPatch) => {
    const before = task.status;
    const fields = task as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete fields[key];
      else fields[key] = structuredClone(value);
    }
    task.lastUpdatedAt = now();
    if (task.status !== "working") leases.delete(task.id);
    else if (before !== "working") leases.set(task.id, task.lastUpdatedAt + task.leaseMs);
    if (!ACTIVE_STATUSES.includes(task.status)) release(task);
    if (task.status !== before) for (const listener of listeners) listener(task.id, task.status);
  };

  /** The task unless it expired; with `lapse`, a working task whose lease lapsed is ended failed first. */
  const live = (id: string, lapse = false): TaskRecord | undefined => {
    const task = tasks.get(id);
    if (task === undefined) return undefined;
    const at = now();
    if (expired(task, at)) {
      forget(task);
      return undefined;
    }
    const until = leases.get(id);
    if (lapse && until !== undefined && until <= at) apply(task, { status: "failed", error: LEASE_LAPSED });
    return task;
  };

  return {
    kind: "memory",
    async create(task, maxActive) {
      const at = now();
      if (tasks.size >= maxTasks) for (const kept of tasks.values()) if (expired(kept, at)) forget(kept);
      if (tasks.size >= maxTasks) return "full";
      const owned = active.get(task.owner) ?? new Set<string>();
      // An owner's task waiting for answers past its time, or whose replica stopped, does not hold a place.
      for (const id of owned) live(id, true);
      if (owned.size >= maxActive) return "owner-limit";
      tasks.set(task.id, structuredClone(task));
      leases.set(task.id, at + task.leaseMs);
      owned.add(task.id);
      active.set(task.owner, owned);
      return "created";
    },
    async get(id) {
      const task = live(id, true);
      return task === undefined ? undefined : structuredClone(task);
    },
    async update(id, from, patch) {
      const task = live(id);
      if (task === undefined || !from.includes(task.status)) return false;
      apply(task, patch);
      return true;
    },
    async answer(id, responses) {
      const task = live(id);
      const open = task?.inputRequests;
      if (task === undefined || task.status !== "input_required" || open === undefined || task.round === undefined) {
        return { kind: "ignored" };
      }
      const answered = Object.keys(responses).filter((key) => Object.hasOwn(open, key));
      if (answered.length === 0) return { kind: "ignored" };
      const round = structuredClone(task.round);
      const left = { ...open };
      for (const key of answered) {
        round.responses[key] = structuredClone(responses[key]);
        delete left[key];
      }
      if (Object.keys(left).length > 0) {
        apply(task, { inputRequests: left, round });
        return { kind: "waiting" };
      }
      apply(task, { status: "working", inputRequests: undefined, round: undefined });
      return { kind: "resume", round };
    },
    async renew(ids) {
      const lost: string[] = [];
      for (const id of ids) {
        const task = live(id);
        if (task?.status === "working") leases.set(id, now() + task.leaseMs);
        else lost.push(id);
      }
      return lost;
    },
    async sweep() {
      const at = now();
      let ended = 0;
      for (const [id, until] of leases) {
        if (until > at) continue;
        live(id, true);
        ended++;
      }
      return ended;
    },
    async remove(id) {
      const task = tasks.get(id);
      if (task !== undefined) forget(task);
    },
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {
      listeners.clear();
    },
  };
}
