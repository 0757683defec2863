import { randomBytes } from "node:crypto";
import type { Redis as RedisClient } from "ioredis";
import { retryAfter } from "./memory-store.js";
import { connectRedis } from "./redis-connection.js";
import type { Claim, StateStore, StoreHealth } from "./store.js";

/** Options for {@link createRedisStore}. */
export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. Redis 6.2 or later, or Valkey. */
  url: string;
  /** Put before every key, so compositions can share one Redis. @default "skillport:" */
  prefix?: string;
  /** How long one command may take before the store counts as unavailable for it. @default 1000 */
  commandTimeoutMs?: number;
  /** Told whenever the store becomes reachable or unreachable. */
  onHealth?: (health: StoreHealth) => void;
}

/**
 * The store replicas share, in Redis (or Valkey) through ioredis. Rate limits run as one Lua script per request
 * (a token bucket on the server's clock, so replicas' clocks do not matter); one-time claims are `SET … NX PX` in a
 * script that first checks the generation the claim was issued in against the `generation` key, a random id written
 * once per dataset (set-if-absent, by the first replica to talk to this Redis since it began or lost its data), so a
 * claim for something issued before Redis lost its data is `forgotten`, not `first`, whatever the replicas' clocks
 * say; ready replicas are a sorted set by expiry. The generation is read from Redis for every token issued, never
 * kept in the replica, so one read before Redis lost its data is never issued in or written back. Run Redis with
 * `maxmemory-policy noeviction`: an evicted claim would be forgotten without a trace. The first command connects;
 * after that a command never waits for a connection: while Redis cannot be reached each one rejects at once with
 * {@link StoreUnavailableError}, and ioredis reconnects in the background (every 100 ms to 2 s), so the store
 * recovers by itself when Redis returns. ioredis is loaded only when this store is made.
 *
 * @example
 * const store = await createRedisStore({ url: "redis://127.0.0.1:6379", prefix: "skillport:notes:" });
 * const generation = await store.generation(); // carried in what is issued now
 * await store.claimOnce("once:abc", 60_000, generation); // "first" on one replica, "used" on every other
 */
export async function createRedisStore(options: RedisStoreOptions): Promise<StateStore> {
  const prefix = options.prefix ?? "skillport:";
  const connection = await connectRedis<RedisWithScripts>({
    url: options.url,
    keyPrefix: prefix,
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
    ...(options.onHealth === undefined ? {} : { onHealth: options.onHealth }),
    scripts: {
      takeToken: { numberOfKeys: 1, lua: TAKE_TOKEN },
      heartbeat: { numberOfKeys: 2, lua: HEARTBEAT },
      claimOnce: { numberOfKeys: 2, lua: CLAIM_ONCE },
      generation: { numberOfKeys: 1, lua: GENERATION },
    },
  });
  const { client } = connection;
  const command = <T>(run: () => Promise<T>): Promise<T> => connection.command(run);

  return {
    kind: "redis",
    async take(key, rate) {
      if (rate.requestsPerMinute <= 0) return { ok: true };
      const burst = Math.max(1, rate.burst);
      const [taken, tokens] = await command(() => client.takeToken(`rate:${key}`, rate.requestsPerMinute, burst));
      return taken === 1
        ? { ok: true }
        : { ok: false, retryAfterSec: retryAfter(Number(tokens), rate.requestsPerMinute / 60_000) };
    },
    async generation() {
      // Read from Redis each time, never kept here: a copy could outlive the data it names, and what is issued
      // while Redis cannot be reached must not be issued at all.
      return await command(() => client.generation(GENERATION_KEY, newGeneration()));
    },
    async claimOnce(key, ttlMs, issuedIn) {
      const ttl = Math.max(1, Math.ceil(ttlMs));
      return await command(() => client.claimOnce(`once:${key}`, GENERATION_KEY, ttl, issuedIn, newGeneration()));
    },
    async heartbeat(id, ttlMs) {
      const ttl = Math.max(1, Math.ceil(ttlMs));
      return (await command(() => client.heartbeat("replicas", GENERATION_KEY, id, ttl, newGeneration()))).sort();
    },
    async leave(id) {
      await command(() => client.zrem("replicas", id));
    },
    health: connection.health,
    async close() {
      connection.close();
    },
  };
}

// --- internal ---

interface RedisWithScripts extends RedisClient {
  takeToken(key: string, requestsPerMinute: number, burst: number): Promise<[number, string]>;
  heartbeat(key: string, generation: string, id: string, ttlMs: number, fresh: string): Promise<string[]>;
  claimOnce(key: string, generation: string, ttlMs: number, issuedIn: string, fresh: string): Promise<Claim>;
  generation(key: string, fresh: string): Promise<string>;
}

/** The key holding this dataset's generation: a random id, written once (set-if-absent), never expiring. */
const GENERATION_KEY = "generation";

/** A generation for a dataset that has none yet: random, so no earlier dataset's can come back. */
function newGeneration(): string {
  return randomBytes(16).toString("base64url");
}

/** The time on Redis's clock, in ms, as Lua code. */
const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * The generation of the data this Redis holds (KEYS[1]), written first as ARGV[1] when missing: a fresh Redis and
 * one that lost its data look the same, and either begins a new generation.
 */
const GENERATION = `
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
`;

/**
 * Set-if-absent of KEYS[1] for ARGV[1] ms, unless what it names was issued in a generation (ARGV[2]) other than
 * KEYS[2]'s, the data's generation (written now as ARGV[3] if missing): a Redis that lost its data (restarted
 * without persistence, flushed) begins a new generation, and whatever was issued before it may have been used then.
 */
const CLAIM_ONCE = `
redis.call('SET', KEYS[2], ARGV[3], 'NX')
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 'forgotten' end
if redis.call('SET', KEYS[1], '1', 'PX', ARGV[1], 'NX') then return 'first' end
return 'used'
`;

/**
 * The token bucket of memory-store.ts, atomically in Redis on the server's clock: refill by the time passed, take
 * one when there is one. A bucket is forgotten once it would be full again, which changes no decision.
 * Answers { 1, "" } when taken, { 0, tokens left } when not (tokens as text: Lua numbers reach the client cut
 * to integers).
 */
const TAKE_TOKEN = `${NOW}
local rpm = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local perMs = rpm / 60000
local saved = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(saved[1])
local at = tonumber(saved[2])
if tokens == nil or at == nil then
  tokens = burst
else
  tokens = math.min(burst, tokens + math.max(0, now - at) * perMs)
end
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / perMs) + 1000)
if taken == 1 then return { 1, '' } end
return { 0, tostring(tokens) }
`;

/**
 * Marks one replica ready until now + ttl, forgets the expired ones, and lists those left; writes the data's
 * generation (KEYS[2], as ARGV[3]) when missing, so it begins when the first replica starts serving rather than at
 * the first confirmation.
 */
const HEARTBEAT = `${NOW}
redis.call('SET', KEYS[2], ARGV[3], 'NX')
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], ttl)
return redis.call('ZRANGE', KEYS[1], 0, -1)
`;
