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

/** The outcome of taking one request from a key's bucket. */
export type RateDecision = { ok: true } | { ok: false; retryAfterSec: number };

/** Per-key token buckets. */
export interface RateLimiter {
  take(key: string): RateDecision;
  /** How many keys hold a bucket. */
  readonly size: number;
}

/**
 * A token bucket per key (a caller's identity or remote address), kept in this process: each replica limits on
 * its own, so behind N replicas a caller may get up to N times the rate. A bucket holds `burst` requests and
 * refills at `requestsPerMinute`; an empty bucket answers how many seconds until the next request is allowed.
 *
 * @example
 * const limiter = createRateLimiter({ requestsPerMinute: 600 });
 * const decision = limiter.take("ci-bot"); // { ok: false, retryAfterSec: 1 } when over the limit
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { requestsPerMinute, maxKeys = 10_000, now = Date.now } = options;
  if (requestsPerMinute <= 0) return { take: () => ({ ok: true }), size: 0 };
  const burst = Math.max(1, options.burst ?? requestsPerMinute);
  const perMs = requestsPerMinute / 60_000;
  const buckets = new Map<string, Bucket>();

  return {
    take(key) {
      const at = now();
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        if (buckets.size >= maxKeys) sweep(buckets, at, perMs, burst);
        bucket = { tokens: burst, at };
        buckets.set(key, bucket);
      } else {
        bucket.tokens = Math.min(burst, bucket.tokens + (at - bucket.at) * perMs);
        bucket.at = at;
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterSec: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
    },
    get size() {
      return buckets.size;
    },
  };
}

// --- internal ---

interface Bucket {
  tokens: number;
  at: number;
}

/** Drops buckets that have refilled completely: forgetting them changes no decision. */
function sweep(buckets: Map<string, Bucket>, at: number, perMs: number, burst: number): void {
  for (const [key, bucket] of buckets) {
    if (bucket.tokens + (at - bucket.at) * perMs >= burst) buckets.delete(key);
  }
}
