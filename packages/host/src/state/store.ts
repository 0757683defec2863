// What replicas of one composition share: rate-limit buckets, one-time tokens, and who is ready. A store is a plain
// object behind this interface; the memory store keeps it in this process (one replica), the Redis store in Redis
// (every replica that points at it).

/** A token bucket's size and refill rate. */
export interface Rate {
  /** Sustained requests per minute; 0 turns the limit off. */
  requestsPerMinute: number;
  /** Requests a key may send at once before the rate applies (at least 1). */
  burst: number;
}

/** The outcome of taking one request from a key's bucket. */
export type RateDecision = { ok: true } | { ok: false; retryAfterSec: number };

/**
 * What a set-if-absent found: `first` — recorded now, no replica had it; `used` — already recorded; `forgotten` —
 * the thing was issued in another generation of the store, before it lost what it remembered (Redis restarted
 * without its data or was flushed; with the memory store, before this process started), so whether it was used
 * cannot be known.
 */
export type Claim = "first" | "used" | "forgotten";

/** Whether a store can be reached now. */
export type StoreHealth = { ok: true } | { ok: false; reason: string; since: Date };

/**
 * A place replicas share state. Every method answers for all replicas using the same store at once: `take` and
 * `claimOnce` are atomic there. A method that cannot reach the store rejects with {@link StoreUnavailableError};
 * callers decide what that means (see `shared-state.ts`).
 */
export interface StateStore {
  /** The kind, for /readyz and logs: `memory` or `redis`. */
  readonly kind: string;
  /** One request from `key`'s token bucket. */
  take(key: string, rate: Rate): Promise<RateDecision>;
  /**
   * The store's generation: a random id written once for the data it holds (set-if-absent, when that memory begins)
   * and never written again, so a store that lost its data answers another one. Compared as it is, never by time:
   * replicas' clocks do not matter. Something issued carries the generation of its issue, and hands it back to
   * {@link StateStore.claimOnce}. Rejects with {@link StoreUnavailableError} while the store cannot be reached.
   */
  generation(): Promise<string>;
  /**
   * Records `key` for `ttlMs` unless it is already recorded (set-if-absent), on every replica at once. `generation`
   * is the store's {@link StateStore.generation} when the thing the key names was issued: when it is not the store's
   * generation now the claim is `forgotten`, never `first`, since a record of its use may have been lost with the
   * data of that generation.
   */
  claimOnce(key: string, ttlMs: number, generation: string): Promise<Claim>;
  /** Says replica `id` is ready for `ttlMs` more, and answers every replica ready now (ids, sorted). */
  heartbeat(id: string, ttlMs: number): Promise<string[]>;
  /** Says replica `id` is no longer ready. */
  leave(id: string): Promise<void>;
  /** Whether the store can be reached, as last seen; never does I/O. */
  health(): StoreHealth;
  /** Lets go of connections and timers. */
  close(): Promise<void>;
}

/** Thrown (as a rejection) by a {@link StateStore} method when the store cannot be reached now. */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
}
