import { randomBytes } from "node:crypto";
import os from "node:os";
import { messageOf } from "../errors/host-error.js";
import type { Logger } from "../logging/logger.js";
import { createTokenBuckets } from "./memory-store.js";
import type { Claim, Rate, RateDecision, StateStore } from "./store.js";
import { StoreUnavailableError } from "./store.js";

/** Options for {@link createSharedState}. */
export interface SharedStateOptions {
  store: StateStore;
  logger: Logger;
  /** How often a serving replica says it is ready. @default 2000 */
  heartbeatMs?: number;
}

/** What /readyz says of the shared state. */
export interface StateReadiness {
  /** The store's kind: `memory` (this process only) or `redis`. */
  store: string;
  /** Whether the store can be reached now; while it cannot, dangerous tools refuse and rate limits are per replica. */
  reachable: boolean;
  /** This replica's id, once it serves. */
  replica: string | undefined;
  /** The replicas ready as of the last heartbeat (this one included); empty while the store cannot be reached. */
  replicas: string[];
}

/**
 * The host's view of its store, with the failure behaviour written once:
 * - **rate limits** (`limiter`) count in the store, so a caller's budget is shared by every replica; while the
 *   store cannot be reached they count in this replica (a warning says so, once per outage);
 * - **one-time claims** (`generation`, `claimOnce`) reject with {@link StoreUnavailableError} while the store cannot
 *   be reached, so a confirmation is neither issued nor taken then — its caller refuses the call;
 * - **readiness** (`join`, `readiness`): a serving replica says it is ready every `heartbeatMs`, and /readyz reports
 *   the store and the replicas ready, from the last heartbeat (a probe never waits for the store).
 * Recovery needs no restart: the store reconnects by itself, and the next request uses it again.
 */
export interface SharedState {
  readonly store: StateStore;
  /** A rate limiter over the store at this rate, falling back to this replica's own count while it is unreachable. */
  limiter(rate: Rate): { take(key: string): Promise<RateDecision> };
  /** The store's generation now (see {@link StateStore.generation}); rejects while the store cannot be reached, so nothing is issued then. */
  generation(): Promise<string>;
  /** Set-if-absent for `ttlMs`, on every replica at once (see {@link StateStore.claimOnce}); rejects while the store cannot be reached. */
  claimOnce(key: string, ttlMs: number, generation: string): Promise<Claim>;
  /** Starts saying this replica is ready (HTTP serving). */
  join(): void;
  /** Stops saying so, and takes this replica off the list (shutdown). */
  leave(): Promise<void>;
  readiness(): StateReadiness;
  /** Leaves, and closes the store. */
  close(): Promise<void>;
}

/**
 * Wraps a store with the host's failure behaviour (see {@link SharedState}).
 *
 * @example
 * const state = createSharedState({ store: createMemoryStore(), logger });
 * const limiter = state.limiter({ requestsPerMinute: 600, burst: 600 });
 * await limiter.take("caller:token:ci-bot"); // { ok: true }
 */
export function createSharedState(options: SharedStateOptions): SharedState {
  const { store, logger } = options;
  const heartbeatMs = options.heartbeatMs ?? 2000;
  // What the last observation found: undefined before the first one (the memory store is always reachable).
  let reachable: boolean | undefined = store.health().ok ? true : undefined;
  let fellBack = false;
  let replica: string | undefined;
  let replicas: string[] = [];
  let timer: NodeJS.Timeout | undefined;

  /** Logs each change of the store's reachability once, whoever notices it first. */
  const observe = () => {
    const health = store.health();
    if (health.ok === reachable) return;
    const before = reachable;
    reachable = health.ok;
    if (health.ok) {
      fellBack = false;
      logger.info(
        { store: store.kind },
        before === undefined
          ? "sharing rate limits and confirmations through the state store"
          : "the state store is reachable again: rate limits and confirmations are shared",
      );
    } else {
      logger.warn(
        { store: store.kind, reason: health.reason },
        "the state store cannot be reached: dangerous tools refuse (UNAVAILABLE) until it returns",
      );
    }
  };

  const beat = async () => {
    if (replica === undefined) return;
    try {
      replicas = await store.heartbeat(replica, heartbeatMs * 3);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) logger.error({ err: error }, "state store heartbeat failed");
      replicas = [];
    }
    observe();
  };

  const leave = async () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    if (replica === undefined) return;
    replicas = replicas.filter((id) => id !== replica);
    await store.leave(replica).catch(() => undefined);
  };

  return {
    store,
    limiter(rate) {
      const local = createTokenBuckets(rate, { maxKeys: 10_000, now: Date.now });
      return {
        async take(key) {
          try {
            // While Redis is disconnected this rejects at once, without I/O; it reconnects by itself.
            return await store.take(key, rate);
          } catch (error) {
            if (!(error instanceof StoreUnavailableError)) throw error;
            observe();
            if (!fellBack) {
              fellBack = true;
              logger.warn(
                { store: store.kind, reason: messageOf(error) },
                "rate limits are counted per replica until the state store returns",
              );
            }
            return local.take(key);
          }
        },
      };
    },
    async generation() {
      try {
        return await store.generation();
      } finally {
        observe();
      }
    },
    async claimOnce(key, ttlMs, generation) {
      try {
        return await store.claimOnce(key, ttlMs, generation);
      } finally {
        observe();
      }
    },
    join() {
      if (timer !== undefined) return;
      replica ??= `${os.hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
      void beat();
      timer = setInterval(() => void beat(), heartbeatMs);
      timer.unref();
    },
    leave,
    readiness() {
      observe();
      return { store: store.kind, reachable: reachable === true, replica, replicas };
    },
    async close() {
      await leave();
      await store.close();
    },
  };
}
