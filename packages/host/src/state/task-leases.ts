import { messageOf } from "../errors/host-error.js";
import type { Logger } from "../logging/logger.js";
import { StoreUnavailableError } from "./store.js";
import type { TaskStore } from "./task-store.js";

/** Options for {@link createTaskLeases}. */
export interface TaskLeasesOptions {
  store: TaskStore;
  logger: Logger;
  /**
   * The longest a task stays `working` once the replica running it stopped: its lease is renewed every quarter of
   * it and holds for three quarters ({@link TaskLeases.holdMs}), and every replica sweeps every quarter.
   * @default 15000
   */
  leaseMs?: number;
}

/** What stops a run: a task's CallStop. */
interface Stoppable {
  abort(reason: unknown): void;
}

/**
 * The leases of the tasks this replica runs, and the sweep that ends the tasks of replicas that stopped. One per
 * host, whatever serves it: a run holds its task's lease while it lasts, and learns here that its task ended
 * elsewhere (cancelled from any replica, through the store's watch; or ended by another replica while this one could
 * not renew, at the next renewal).
 */
export interface TaskLeases {
  /** How long one renewal holds a lease: a task's `leaseMs`. */
  readonly holdMs: number;
  /** Holds task `id`'s lease while its run lasts; `stop` aborts the run if the task ends elsewhere. Answers the release. */
  hold(id: string, stop: Stoppable): () => void;
  /**
   * Starts sweeping, and listening for cancels (a store replicas share only; the memory store's tasks end with their
   * process). Idempotent.
   */
  sweep(): void;
  /** Stops renewing and sweeping. */
  close(): void;
}

/**
 * The leases over a task store (see {@link TaskLeases}).
 *
 * @example
 * const leases = createTaskLeases({ store, logger, leaseMs: 15_000 });
 * const release = leases.hold(taskId, stop); // renewed every 3.75 s until release()
 */
export function createTaskLeases(options: TaskLeasesOptions): TaskLeases {
  const { store, logger } = options;
  const leaseMs = options.leaseMs ?? 15_000;
  const everyMs = Math.max(1, Math.floor(leaseMs / 4));
  const running = new Map<string, Stoppable>();
  let unwatch: (() => void) | undefined;
  let renewing: NodeJS.Timeout | undefined;
  let sweeping: NodeJS.Timeout | undefined;
  let warned = false;

  /** A failure to reach the store is said once per outage; the next renewal or sweep tries again. */
  const failed = (what: string) => (error: unknown) => {
    if (!(error instanceof StoreUnavailableError)) {
      logger.error({ err: error }, `could not ${what}`);
      return;
    }
    if (warned) return;
    warned = true;
    logger.warn({ reason: messageOf(error) }, `could not ${what}: the task store cannot be reached`);
  };

  const onChange = (changed: string, status: string) => {
    if (status === "cancelled") running.get(changed)?.abort(new Error("the client cancelled the task"));
  };

  const renew = async () => {
    const lost = await store.renew([...running.keys()]);
    warned = false;
    for (const id of lost) running.get(id)?.abort(new Error("the task ended on another replica"));
  };

  return {
    holdMs: Math.ceil((leaseMs * 3) / 4),
    hold(id, stop) {
      running.set(id, stop);
      unwatch ??= store.watch(onChange);
      if (renewing === undefined) {
        renewing = setInterval(() => void renew().catch(failed("renew the leases of this replica's tasks")), everyMs);
        renewing.unref();
      }
      return () => {
        if (running.get(id) === stop) running.delete(id);
        if (running.size > 0) return;
        clearInterval(renewing);
        renewing = undefined;
        // A shared store's watch stays while the replica sweeps: a cancel is heard from a task's first moment.
        if (sweeping !== undefined) return;
        unwatch?.();
        unwatch = undefined;
      };
    },
    sweep() {
      if (sweeping !== undefined || store.kind === "memory") return;
      unwatch ??= store.watch(onChange);
      const sweep = async () => {
        const ended = await store.sweep();
        warned = false;
        if (ended > 0) logger.warn({ tasks: ended }, "ended tasks failed: the replica running them stopped");
      };
      sweeping = setInterval(() => void sweep().catch(failed("sweep the tasks of stopped replicas")), everyMs);
      sweeping.unref();
    },
    close() {
      clearInterval(renewing);
      clearInterval(sweeping);
      renewing = undefined;
      sweeping = undefined;
      unwatch?.();
      unwatch = undefined;
    },
  };
}
