import { randomBytes } from "node:crypto";
import type { Claim, Rate, RateDecision, StateStore } from "./store.js";

/** Options for {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /** Past this many keys, full (idle) buckets and expired claims are dropped. @default 10000 */
  maxKeys?: number;
  /** @default Date.now */
  now?: () => number;
}

/**
 * The default store: everything in this process, so it is shared by nothing else. One replica limits and counts
 * on its own: behind N replicas a caller may get N times its rate, and a one-time token may be used once per
 * replica. Configure the Redis store (`"state": { "store": "redis", … }`) to share.
 *
 * @example
 * const store = createMemoryStore();
 * const generation = await store.generation();
 * await store.claimOnce("once:abc", 60_000, generation); // "first"
 * await store.claimOnce("once:abc", 60_000, generation); // "used"
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): StateStore {
  const { maxKeys = 10_000, now = Date.now } = options;
  // What this store remembers starts with it: a token issued before (by an earlier run of this process, under a
  // configured secret) carries another generation, and may have been used then.
  const generation = randomBytes(16).toString("base64url");
  const buckets = new Map<string, TokenBuckets>(); // one set of buckets per rate
  const claimed = new Map<string, number>(); // key → expiry
  const replicas = new Map<string, number>(); // id → expiry

  return {
    kind: "memory",
    async take(key, rate) {
      const name = `${rate.requestsPerMinute}/${rate.burst}`;
      let forRate = buckets.get(name);
      if (forRate === undefined) {
        forRate = createTokenBuckets(rate, { maxKeys, now });
        buckets.set(name, forRate);
      }
      return forRate.take(key);
    },
    generation: async () => generation,
    async claimOnce(key, ttlMs, issuedIn): Promise<Claim> {
      if (issuedIn !== generation) return "forgotten";
      const at = now();
      const expiry = claimed.get(key);
      if (expiry !== undefined && expiry > at) return "used";
      if (claimed.size >= maxKeys) forgetExpired(claimed, at);
      claimed.set(key, at + ttlMs);
      return "first";
    },
    async heartbeat(id, ttlMs) {
      const at = now();
      replicas.set(id, at + ttlMs);
      forgetExpired(replicas, at);
      return [...replicas.keys()].sort();
    },
    async leave(id) {
      replicas.delete(id);
    },
    health: () => ({ ok: true }),
    close: async () => undefined,
  };
}

/** Token buckets of one rate, taken synchronously: the in-process limiter behind the memory store. */
export interface TokenBuckets {
  take(key: string): RateDecision;
  /** How many keys hold a bucket. */
  readonly size: number;
}

/**
 * A token bucket per key: each holds `burst` requests and refills at `requestsPerMinute`; an empty bucket answers
 * how many seconds until the next request is allowed. Past `maxKeys`, buckets that have refilled completely are
 * dropped (forgetting them changes no decision). The Redis store runs the same algorithm in a Lua script.
 */
export function createTokenBuckets(rate: Rate, options: Required<MemoryStoreOptions>): TokenBuckets {
  const { maxKeys, now } = options;
  if (rate.requestsPerMinute <= 0) return { take: () => ({ ok: true }), size: 0 };
  const burst = Math.max(1, rate.burst);
  const perMs = rate.requestsPerMinute / 60_000;
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
        bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, at - bucket.at) * perMs);
        bucket.at = at;
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterSec: retryAfter(bucket.tokens, perMs) };
    },
    get size() {
      return buckets.size;
    },
  };
}

/** Seconds until a bucket holding `tokens` has one again: at least 1. */
export function retryAfter(tokens: number, perMs: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
}

// --- internal ---

interface Bucket {
  tokens: number;
  at: number;
}

function sweep(buckets: Map<string, Bucket>, at: number, perMs: number, burst: number): void {
  for (const [key, bucket] of buckets) {
    if (bucket.tokens + (at - bucket.at) * perMs >= burst) buckets.delete(key);
  }
}

function forgetExpired(entries: Map<string, number>, at: number): void {
  for (const [key, expiry] of entries) if (expiry <= at) entries.delete(key);
}
