import type { Redis as RedisClient } from "ioredis";
import { connectRedis } from "./redis-connection.js";
import type { StoreHealth } from "./store.js";
import type { TaskAnswer, TaskCreation, TaskPatch, TaskRecord, TaskStatus, TaskStore } from "./task-store.js";
import { LEASE_LAPSED } from "./task-store.js";

/** Options for {@link createRedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS: the URL of the host's shared `state`. */
  url: string;
  /** Put before every key and the channel, so compositions can share one Redis. @default "skillport:" */
  prefix?: string;
  /**
   * The most tasks kept at once, every replica and caller together; past it a new task is refused (`full`).
   * @default 10000
   */
  maxTasks?: number;
  /** How long one command may take before the store counts as unavailable for it. @default 1000 */
  commandTimeoutMs?: number;
  /** The clock, in epoch ms. @default Redis's own clock (replicas' clocks do not matter) */
  now?: () => number;
  /** Told whenever the store becomes reachable or unreachable. */
  onHealth?: (health: StoreHealth) => void;
}

/**
 * Tasks in Redis (or Valkey), shared by every replica that points at it: each method is one Lua script, atomic
 * there. A task is a hash `task:<id>` that expires `ttlMs` after its last change (a working one `ttlMs + leaseMs`
 * after its lease was last renewed); `tasks:owner:<owner>` holds each owner's active tasks (the per-caller limit),
 * `tasks:all` every task by expiry (the size bound), `tasks:leases` the working ones by when their lease lapses (the
 * sweep). Every change of status is published on the channel `tasks:changed` (`<status> <id>`), which {@link
 * TaskStore.watch} subscribes to on a second connection. While Redis cannot be reached every method rejects at
 * once with `StoreUnavailableError`; the store reconnects by itself.
 *
 * @example
 * const tasks = await createRedisTaskStore({ url: "redis://127.0.0.1:6379", prefix: "skillport:notes:" });
 * await tasks.create(record, 16); // "created", seen by every replica
 */
export async function createRedisTaskStore(options: RedisTaskStoreOptions): Promise<TaskStore> {
  const prefix = options.prefix ?? "skillport:";
  const maxTasks = options.maxTasks ?? 10_000;
  const clock = options.now;
  const connection = await connectRedis<RedisWithScripts>({
    url: options.url,
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
    ...(options.onHealth === undefined ? {} : { onHealth: options.onHealth }),
    scripts: {
      taskCreate: { numberOfKeys: 0, lua: `${COMMON}${CREATE}` },
      taskGet: { numberOfKeys: 0, lua: `${COMMON}${GET}` },
      taskUpdate: { numberOfKeys: 0, lua: `${COMMON}${UPDATE}` },
      taskAnswer: { numberOfKeys: 0, lua: `${COMMON}${ANSWER}` },
      taskRenew: { numberOfKeys: 0, lua: `${COMMON}${RENEW}` },
      taskSweep: { numberOfKeys: 0, lua: `${COMMON}${SWEEP}` },
      taskRemove: { numberOfKeys: 0, lua: `${COMMON}${REMOVE}` },
    },
  });
  const channel = `${prefix}tasks:changed`;
  const lapsed = JSON.stringify(LEASE_LAPSED);
  // Every script begins with the prefix and the time: -1 asks for Redis's own.
  const head = () => [prefix, String(clock === undefined ? -1 : clock())];

  const listeners = new Set<(id: string, status: TaskStatus) => void>();
  let subscriber: RedisClient | undefined;
  // While the first watch subscribes, commands wait for it (up to a second), so that a change made after watch()
  // is heard.
  let subscribing: Promise<unknown> | undefined;
  let closed = false;
  const subscribe = async () => {
    const { Redis } = (await import("ioredis")).default;
    // Closed meanwhile: an open subscription would keep the process alive.
    if (closed) return;
    // Subscribed for the store's life, resubscribed after a reconnect: a message sent while it reconnects is lost,
    // which is why the replica running a task also learns of its end when it renews the lease.
    const sub = new Redis(options.url, { retryStrategy: (attempt) => Math.min(attempt * 100, 2000) });
    subscriber = sub;
    sub.on("error", () => undefined);
    sub.on("message", (_channel: string, message: string) => {
      const space = message.indexOf(" ");
      const status = message.slice(0, space) as TaskStatus;
      const id = message.slice(space + 1);
      for (const listener of [...listeners]) listener(id, status);
    });
    await sub.subscribe(channel);
  };
  const command = async <T>(run: (client: RedisWithScripts) => Promise<T>): Promise<T> => {
    if (subscribing !== undefined) await subscribing;
    return await connection.command(run);
  };

  return {
    kind: "redis",
    async create(task, maxActive) {
      const { id, owner, ttlMs, leaseMs, status, lastUpdatedAt } = task;
      const fixed = JSON.stringify({
        id,
        owner,
        tool: task.tool,
        args: task.args,
        supports: task.supports,
        createdAt: task.createdAt,
        ttlMs,
        pollIntervalMs: task.pollIntervalMs,
        leaseMs,
      });
      const argv = [lapsed, maxActive, maxTasks, id, owner, ttlMs, leaseMs, fixed, status, lastUpdatedAt];
      return await command((client) => client.taskCreate(...head(), ...argv.map(String)));
    },
    async get(id) {
      const fields = await command((client) => client.taskGet(...head(), lapsed, id));
      return fields.length === 0 ? undefined : recordOf(fields);
    },
    async update(id, from, patch) {
      return (await command((client) => client.taskUpdate(...head(), from.join(","), id, ...patchArgs(patch)))) === 1;
    },
    async answer(id, responses) {
      const pairs = Object.entries(responses).flatMap(([key, value]) => [key, JSON.stringify(value ?? null)]);
      const [kind, state, ...answers] = await command((client) => client.taskAnswer(...head(), id, ...pairs));
      if (kind !== "resume") return { kind: kind === "waiting" ? "waiting" : "ignored" } satisfies TaskAnswer;
      return { kind: "resume", round: { state: state ?? "", responses: objectOf(answers) } };
    },
    async renew(ids) {
      if (ids.length === 0) return [];
      return await command((client) => client.taskRenew(...head(), ...ids));
    },
    async sweep() {
      return await command((client) => client.taskSweep(...head(), lapsed));
    },
    async remove(id) {
      await command((client) => client.taskRemove(...head(), id));
    },
    watch(listener) {
      listeners.add(listener);
      if (subscriber === undefined && subscribing === undefined) {
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise((resolve) => {
          timer = setTimeout(resolve, 1000);
        });
        subscribing = Promise.race([subscribe().catch(() => undefined), bound]).finally(() => {
          clearTimeout(timer);
          subscribing = undefined;
        });
      }
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      listeners.clear();
      subscriber?.disconnect();
      connection.close();
    },
  };
}

// --- internal ---

interface RedisWithScripts extends RedisClient {
  taskCreate(...args: string[]): Promise<TaskCreation>;
  taskGet(...args: string[]): Promise<string[]>;
  taskUpdate(...args: string[]): Promise<number>;
  taskAnswer(...args: string[]): Promise<string[]>;
  taskRenew(...args: string[]): Promise<string[]>;
  taskSweep(...args: string[]): Promise<number>;
  taskRemove(...args: string[]): Promise<number>;
}

/** A flat [key, JSON, key, JSON, …] list as an object. */
function objectOf(pairs: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) out[pairs[i] as string] = JSON.parse(pairs[i + 1] as string);
  return out;
}

/** A task's hash (HGETALL's flat list) as the record it keeps. */
function recordOf(flat: readonly string[]): TaskRecord {
  const hash = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) hash.set(flat[i] as string, flat[i + 1] as string);
  const record = {
    ...JSON.parse(hash.get("fixed") ?? "{}"),
    status: hash.get("status") as TaskStatus,
    lastUpdatedAt: Number(hash.get("lastUpdatedAt")),
  } as TaskRecord;
  const message = hash.get("statusMessage");
  if (message !== undefined) record.statusMessage = message;
  for (const field of ["result", "error"] as const) {
    const json = hash.get(field);
    if (json !== undefined) record[field] = JSON.parse(json);
  }
  const questions: Record<string, unknown> = {};
  const answers: Record<string, unknown> = {};
  for (const [field, value] of hash) {
    if (field.startsWith("q:")) questions[field.slice(2)] = JSON.parse(value);
    else if (field.startsWith("a:")) answers[field.slice(2)] = JSON.parse(value);
  }
  if (hash.has("open")) record.inputRequests = questions;
  const state = hash.get("roundState");
  if (state !== undefined) record.round = { state, responses: answers };
  return record;
}

/**
 * A patch as the update script reads it: the new status ("" keeps it), whether the questions and the round are
 * replaced, the plain fields to delete (count, then names), then field/value pairs to set.
 */
function patchArgs(patch: TaskPatch): string[] {
  const remove: string[] = [];
  const set: string[] = [];
  if ("statusMessage" in patch) {
    if (patch.statusMessage === undefined) remove.push("statusMessage");
    else set.push("statusMessage", patch.statusMessage);
  }
  for (const field of ["result", "error"] as const) {
    if (!(field in patch)) continue;
    const value = patch[field];
    if (value === undefined) remove.push(field);
    else set.push(field, JSON.stringify(value));
  }
  const questions = "inputRequests" in patch;
  if (patch.inputRequests !== undefined) {
    const entries = Object.entries(patch.inputRequests);
    set.push("open", String(entries.length));
    for (const [key, value] of entries) set.push(`q:${key}`, JSON.stringify(value));
  }
  const round = "round" in patch;
  if (patch.round !== undefined) {
    set.push("roundState", patch.round.state);
    for (const [key, value] of Object.entries(patch.round.responses)) set.push(`a:${key}`, JSON.stringify(value));
  }
  return [patch.status ?? "", questions ? "1" : "0", round ? "1" : "0", String(remove.length), ...remove, ...set];
}

/**
 * What every script begins with: ARGV[1] the key prefix, ARGV[2] the time (-1: Redis's clock); the keys; and the
 * steps they share. Keys are built here from the prefix (the scripts touch tasks they find in the indexes), so the
 * store serves one Redis, not a cluster.
 */
const COMMON = `
local P = ARGV[1]
local NOW = tonumber(ARGV[2])
if NOW < 0 then
  local time = redis.call('TIME')
  NOW = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local ALL = P .. 'tasks:all'
local LEASES = P .. 'tasks:leases'
local CHANNEL = P .. 'tasks:changed'
local function taskKey(id) return P .. 'task:' .. id end
local function ownerKey(owner) return P .. 'tasks:owner:' .. owner end

-- How long the task is kept from now: ttl, and a working one its lease too; its expiry and its place in ALL.
local function keep(id, key, status)
  local fields = redis.call('HMGET', key, 'ttl', 'lease')
  local life = tonumber(fields[1])
  if status == 'working' then life = life + tonumber(fields[2]) end
  redis.call('PEXPIRE', key, life)
  redis.call('ZADD', ALL, NOW + life, id)
end

-- What a change of status from before to status implies: the lease, the owner's place, the watchers told.
local function changed(id, key, before, status)
  if status == 'working' then
    if before ~= 'working' then
      local untilAt = NOW + tonumber(redis.call('HGET', key, 'lease'))
      redis.call('HSET', key, 'leaseUntil', untilAt)
      redis.call('ZADD', LEASES, untilAt, id)
    end
  else
    redis.call('HDEL', key, 'leaseUntil')
    redis.call('ZREM', LEASES, id)
  end
  if status ~= 'working' and status ~= 'input_required' then
    redis.call('SREM', ownerKey(redis.call('HGET', key, 'owner')), id)
  end
  if status ~= before then redis.call('PUBLISH', CHANNEL, status .. ' ' .. id) end
  keep(id, key, status)
end

local function drop(id, key, owner)
  redis.call('DEL', key)
  redis.call('ZREM', ALL, id)
  redis.call('ZREM', LEASES, id)
  if owner then redis.call('SREM', ownerKey(owner), id) end
end

-- The task's status now, or false when there is none: an expired task is dropped, and with lapsed (the error as
-- JSON) a working task whose lease lapsed is ended failed first.
local function live(id, lapsed)
  local key = taskKey(id)
  local f = redis.call('HMGET', key, 'status', 'lastUpdatedAt', 'ttl', 'leaseUntil', 'owner')
  local status = f[1]
  if not status then
    redis.call('ZREM', ALL, id)
    redis.call('ZREM', LEASES, id)
    return false
  end
  if status ~= 'working' and tonumber(f[2]) + tonumber(f[3]) <= NOW then
    drop(id, key, f[5])
    return false
  end
  if lapsed and status == 'working' and f[4] and tonumber(f[4]) <= NOW then
    redis.call('HSET', key, 'status', 'failed', 'error', lapsed, 'lastUpdatedAt', NOW)
    changed(id, key, 'working', 'failed')
    return 'failed'
  end
  return status
end
`;

/**
 * ARGV[3] the lapsed error, [4] the owner's limit, [5] the store's, [6] id, [7] owner, [8] ttl, [9] lease, [10] the
 * fixed fields as JSON, [11] status, [12] lastUpdatedAt. Answers created, owner-limit or full.
 */
const CREATE = `
local id, owner = ARGV[6], ARGV[7]
redis.call('ZREMRANGEBYSCORE', ALL, '-inf', NOW)
if redis.call('ZCARD', ALL) >= tonumber(ARGV[5]) then return 'full' end
local owned = ownerKey(owner)
for _, other in ipairs(redis.call('SMEMBERS', owned)) do
  local status = live(other, ARGV[3])
  if status ~= 'working' and status ~= 'input_required' then redis.call('SREM', owned, other) end
end
if redis.call('SCARD', owned) >= tonumber(ARGV[4]) then return 'owner-limit' end
local key = taskKey(id)
redis.call('DEL', key)
redis.call('HSET', key, 'fixed', ARGV[10], 'owner', owner, 'ttl', ARGV[8], 'lease', ARGV[9], 'status', ARGV[11],
  'lastUpdatedAt', ARGV[12])
local untilAt = NOW + tonumber(ARGV[9])
redis.call('HSET', key, 'leaseUntil', untilAt)
redis.call('ZADD', LEASES, untilAt, id)
keep(id, key, 'working')
redis.call('SADD', owned, id)
redis.call('PEXPIRE', owned, tonumber(ARGV[8]) + tonumber(ARGV[9]))
return 'created'
`;

/** ARGV[3] the lapsed error, [4] id. Answers the task's hash, or nothing. */
const GET = `
if not live(ARGV[4], ARGV[3]) then return {} end
return redis.call('HGETALL', taskKey(ARGV[4]))
`;

/**
 * ARGV[3] the statuses it may change from (comma-separated), [4] id, [5] the new status ("" keeps it), [6] "1" to
 * replace the questions, [7] "1" to replace the round, [8] how many fields to delete, then their names, then
 * field/value pairs to set. Answers 1 when it changed the task.
 */
const UPDATE = `
local id = ARGV[4]
local before = live(id, false)
if not before or not string.find(',' .. ARGV[3] .. ',', ',' .. before .. ',', 1, true) then return 0 end
local key = taskKey(id)
if ARGV[6] == '1' or ARGV[7] == '1' then
  for _, field in ipairs(redis.call('HKEYS', key)) do
    local kind = string.sub(field, 1, 2)
    if (ARGV[6] == '1' and (kind == 'q:' or field == 'open')) or (ARGV[7] == '1' and (kind == 'a:' or field == 'roundState')) then
      redis.call('HDEL', key, field)
    end
  end
end
local removals = tonumber(ARGV[8])
for i = 9, 8 + removals do redis.call('HDEL', key, ARGV[i]) end
for i = 9 + removals, #ARGV, 2 do redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
local status = ARGV[5]
if status == '' then status = before end
redis.call('HSET', key, 'status', status, 'lastUpdatedAt', NOW)
changed(id, key, before, status)
return 1
`;

/**
 * ARGV[3] id, then key/answer pairs. Answers { "ignored" }, { "waiting" }, or { "resume", state, key, answer, … }
 * with every answer of the round; the round is taken once (its answers leave the task).
 */
const ANSWER = `
local id = ARGV[3]
if live(id, false) ~= 'input_required' then return { 'ignored' } end
local key = taskKey(id)
if redis.call('HEXISTS', key, 'roundState') == 0 or redis.call('HEXISTS', key, 'open') == 0 then return { 'ignored' } end
local answered = 0
for i = 4, #ARGV, 2 do
  if redis.call('HDEL', key, 'q:' .. ARGV[i]) == 1 then
    redis.call('HSET', key, 'a:' .. ARGV[i], ARGV[i + 1])
    answered = answered + 1
  end
end
if answered == 0 then return { 'ignored' } end
local open = tonumber(redis.call('HGET', key, 'open')) - answered
redis.call('HSET', key, 'lastUpdatedAt', NOW)
if open > 0 then
  redis.call('HSET', key, 'open', open)
  keep(id, key, 'input_required')
  return { 'waiting' }
end
local out = { 'resume', redis.call('HGET', key, 'roundState') }
for _, field in ipairs(redis.call('HKEYS', key)) do
  if string.sub(field, 1, 2) == 'a:' then
    table.insert(out, string.sub(field, 3))
    table.insert(out, redis.call('HGET', key, field))
    redis.call('HDEL', key, field)
  end
end
redis.call('HDEL', key, 'roundState', 'open')
redis.call('HSET', key, 'status', 'working')
changed(id, key, 'input_required', 'working')
return out
`;

/** ARGV[3…] ids. Renews the lease of each working one; answers the others. */
const RENEW = `
local lost = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  if live(id, false) == 'working' then
    local key = taskKey(id)
    local untilAt = NOW + tonumber(redis.call('HGET', key, 'lease'))
    redis.call('HSET', key, 'leaseUntil', untilAt)
    redis.call('ZADD', LEASES, untilAt, id)
    keep(id, key, 'working')
  else
    table.insert(lost, id)
  end
end
return lost
`;

/** ARGV[3] the lapsed error. Ends failed the working tasks whose lease lapsed (100 at a time); answers how many. */
const SWEEP = `
local ended = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', LEASES, '-inf', NOW, 'LIMIT', 0, 100)) do
  local status = live(id, ARGV[3])
  if status == 'failed' then ended = ended + 1 elseif status ~= 'working' then redis.call('ZREM', LEASES, id) end
end
return ended
`;

/** ARGV[3] id. */
const REMOVE = `
local key = taskKey(ARGV[3])
drop(ARGV[3], key, redis.call('HGET', key, 'owner'))
return 1
`;
