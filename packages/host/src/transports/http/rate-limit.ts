import type { TokenBuckets } from "../../state/memory-store.js";
import { createTokenBuckets } from "../../state/memory-store.js";
import type { RateDecision } from "../../state/store.js";

/** Options for {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Sustained rate per key; 0 turns limiting off. @default 600 */
  requestsPerMinute: number;
  /** Requests a key may send at once before the rate applies. @default requestsPerMinute */
  burst?: number;
  /** Past this many keys, full (idle) buckets are dropped. @default 10000 */
  maxKeys?: number;
  /** @default Date.now */
  now?: () => number;
}

/**
 * Per-key token buckets, as the HTTP guards use them: in this process ({@link createRateLimiter}) or in the state
 * store replicas share (what `serveHostHttp` uses: the host's `state.limiter(rate)`).
 */
export interface RateLimiter {
  take(key: string): RateDecision | Promise<RateDecision>;
}

/** A {@link RateLimiter} kept in this process, answering at once. */
export interface LocalRateLimiter extends RateLimiter, TokenBuckets {
  take(key: string): RateDecision;
}

/**
 * A token bucket per key (a caller's identity or remote address), kept in this process: each replica limits on
 * its own, so behind N replicas a caller may get up to N times the rate (a host with a shared state store limits
 * across replicas instead). A bucket holds `burst` requests and refills at `requestsPerMinute`; an empty bucket
 * answers how many seconds until the next request is allowed.
 *
 * @example
 * const limiter = createRateLimiter({ requestsPerMinute: 600 });
 * const decision = limiter.take("ci-bot"); // { ok: false, retryAfterSec: 1 } when over the limit
 */
export function createRateLimiter(options: RateLimiterOptions): LocalRateLimiter {
  const { requestsPerMinute, maxKeys = 10_000, now = Date.now } = options;
  return createTokenBuckets({ requestsPerMinute, burst: options.burst ?? requestsPerMinute }, { maxKeys, now });
}
