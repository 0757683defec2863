// Where tasks (the MCP Tasks extension, SEP-2663) keep their state: who owns each, its status, its result or error,
// the questions it waits on, and when it expires. A store is a plain object behind this interface; the memory store
// keeps tasks in this process (one replica). A store every replica shares (Redis) implements the same methods
// atomically there, so a task created on one replica is read, updated and cancelled from another.

/** A task's status, as the protocol names it. `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The statuses a task may still leave: it runs, or waits for the client's answers. */
export const ACTIVE_STATUSES: readonly TaskStatus[] = ["working", "input_required"];

/** A protocol-level error a failed task answers with (JSON-RPC error shape). */
export interface TaskError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/**
 * One task as the store keeps it. Plain JSON (a shared store serialises it): times are epoch milliseconds, the
 * result and questions are already redacted.
 */
export interface TaskRecord {
  /** Unguessable (128 random bits). */
  readonly id: string;
  /** Who created it: only this caller reads, answers or cancels it. */
  readonly owner: string;
  /** The full tool name and the arguments it was called with, to run the next round after the client answers. */
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** What the client declared it can answer (elicitation, sampling, roots) when it created the task. */
  readonly supports: Readonly<Record<"elicitation" | "sampling" | "roots", boolean>>;
  status: TaskStatus;
  /** The last progress message, redacted. */
  statusMessage?: string;
  readonly createdAt: number;
  lastUpdatedAt: number;
  /** How long the task is kept after its last change (a task that runs is kept while it runs). */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /**
   * How long the run's lease holds after each renewal. The replica running a working task renews it while the run
   * lasts; a working task whose lease lapsed (that replica stopped) is ended `failed` by whoever reads it next, or by
   * {@link TaskStore.sweep}, with {@link LEASE_LAPSED}.
   */
  readonly leaseMs: number;
  /** A completed task's tool result (a CallToolResult). */
  result?: Record<string, unknown>;
  /** A failed task's error. */
  error?: TaskError;
  /** An input_required task's questions not answered yet, by key. */
  inputRequests?: Record<string, unknown>;
  /** The round an input_required task waits on: the state to come back with and the answers given so far. */
  round?: { state: string; responses: Record<string, unknown> };
}

/** The error a working task ends with when the replica running it stopped (its lease lapsed). */
export const LEASE_LAPSED: TaskError = {
  code: -32603,
  message:
    "the replica running this task stopped before it finished (its lease lapsed); call the tool again to start a new task",
};

/** The fields {@link TaskStore.update} may change. */
export type TaskPatch = Partial<
  Pick<TaskRecord, "status" | "statusMessage" | "result" | "error" | "inputRequests" | "round">
>;

/** What {@link TaskStore.answer} did: nothing, kept the answers (questions remain), or closed the round. */
export type TaskAnswer =
  | { kind: "ignored" }
  | { kind: "waiting" }
  | { kind: "resume"; round: NonNullable<TaskRecord["round"]> };

/**
 * What {@link TaskStore.create} found: created, or refused because the owner has too many active tasks, or because
 * the store is full.
 */
export type TaskCreation = "created" | "owner-limit" | "full";

/**
 * Task state every replica using the store shares. Each method is atomic in the store. A method that cannot reach
 * the store rejects with `StoreUnavailableError` (see store.ts).
 */
export interface TaskStore {
  /** The kind, for logs: `memory` or `redis`. */
  readonly kind: string;
  /**
   * Records a new task, its lease held for `task.leaseMs` from now, unless its owner already has `maxActive` active tasks (working or input_required), or the
   * store holds as many tasks as it may.
   */
  create(task: TaskRecord, maxActive: number): Promise<TaskCreation>;
  /**
   * The task, or undefined when there is none by this id (never created, expired, or removed). A working task whose
   * lease lapsed is ended `failed` first.
   */
  get(id: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `patch` when the task's status is one of `from` (compare and set: a task that was cancelled meanwhile
   * is not completed over it); answers whether it did. Every watcher is told of a change of status. A working
   * task whose lease lapsed but that nobody ended yet is still working here: its run may still finish it.
   */
  update(id: string, from: readonly TaskStatus[], patch: TaskPatch): Promise<boolean>;
  /**
   * Takes the client's answers to an input_required task's open questions: each answer to a question still open is
   * kept for the next round and the question closed; answers to anything else are ignored. When no question is left
   * open the task is `working` again, its lease held from now, and the answer is `resume`, with the round to run
   * (exactly once, on every replica together: the replica that got the last answer runs it).
   */
  answer(id: string, responses: Readonly<Record<string, unknown>>): Promise<TaskAnswer>;
  /**
   * Renews the leases of working tasks this replica runs (`leaseMs` more from now); answers the ids of those no
   * longer working (ended, cancelled, failed or forgotten meanwhile), whose runs should stop.
   */
  renew(ids: readonly string[]): Promise<string[]>;
  /** Ends `failed` ({@link LEASE_LAPSED}) every working task whose lease lapsed; answers how many it ended. */
  sweep(): Promise<number>;
  /** Forgets a task at once (one answered before the client heard of it). */
  remove(id: string): Promise<void>;
  /**
   * Tells `listener` of every task whose status changes, on any replica (a shared store publishes them): the
   * replica that runs a task learns of its cancel this way. Answers a function that stops listening.
   */
  watch(listener: (id: string, status: TaskStatus) => void): () => void;
  /** Lets go of connections and timers. */
  close(): Promise<void>;
}
