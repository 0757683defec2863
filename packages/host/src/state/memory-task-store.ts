import type { TaskPatch, TaskRecord, TaskStatus, TaskStore } from "./task-store.js";
import { ACTIVE_STATUSES } from "./task-store.js";

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

  const expired = (task: TaskRecord, at: number) => task.status !== "working" && task.lastUpdatedAt + task.ttlMs <= at;

  const forget = (task: TaskRecord) => {
    tasks.delete(task.id);
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
    if (!ACTIVE_STATUSES.includes(task.status)) release(task);
    if (task.status !== before) for (const listener of listeners) listener(task.id, task.status);
  };

  const live = (id: string): TaskRecord | undefined => {
    const task = tasks.get(id);
    if (task === undefined) return undefined;
    if (!expired(task, now())) return task;
    forget(task);
    return undefined;
  };

  return {
    kind: "memory",
    async create(task, maxActive) {
      const at = now();
      if (tasks.size >= maxTasks) for (const kept of tasks.values()) if (expired(kept, at)) forget(kept);
      if (tasks.size >= maxTasks) return "full";
      const owned = active.get(task.owner) ?? new Set<string>();
      // An owner's task waiting for answers past its time does not hold a place.
      for (const id of owned) live(id);
      if (owned.size >= maxActive) return "owner-limit";
      tasks.set(task.id, structuredClone(task));
      owned.add(task.id);
      active.set(task.owner, owned);
      return "created";
    },
    async get(id) {
      const task = live(id);
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
