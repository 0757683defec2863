import type { Redis as RedisClient } from "ioredis";
import { messageOf } from "../errors/host-error.js";
import type { StoreHealth } from "./store.js";
import { StoreUnavailableError } from "./store.js";

/** Options for {@link connectRedis}. */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. */
  url: string;
  /** Put before every key the client sends (not before keys a script builds itself). */
  keyPrefix?: string;
  /** How long one command may take before the store counts as unavailable for it. @default 1000 */
  commandTimeoutMs?: number;
  /** Lua scripts, defined as commands of the client. */
  scripts: Record<string, { numberOfKeys: number; lua: string }>;
  /** Told whenever Redis becomes reachable or unreachable. */
  onHealth?: (health: StoreHealth) => void;
}

/** One connection to Redis, failing fast: every command either answers or rejects with {@link StoreUnavailableError}. */
export interface RedisConnection<Client extends RedisClient> {
  client: Client;
  /** Runs one command; any failure (no connection, a timeout, an error reply) means the store is unavailable. */
  command<T>(run: (client: Client) => Promise<T>): Promise<T>;
  health(): StoreHealth;
  close(): void;
}

/**
 * A Redis client as the stores use it: connected on first use, never queueing a command while Redis cannot be
 * reached (each rejects at once with {@link StoreUnavailableError}), never sending a command again after a lost
 * connection, and reconnecting by itself in the background (every 100 ms to 2 s). ioredis is loaded only here.
 */
export async function connectRedis<Client extends RedisClient>(
  options: RedisConnectionOptions,
): Promise<RedisConnection<Client>> {
  // ioredis is CommonJS: its module.exports (the default export) carries Redis when loaded natively and bundled alike.
  const { Redis } = (await import("ioredis")).default;
  const client = new Redis(options.url, {
    ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
    lazyConnect: true,
    // Fail fast instead of queueing: a call should not wait for a Redis that may not come back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A command cut off by a lost connection is not sent again: a claim may have been recorded, and its caller
    // was already told the store is unavailable.
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    scripts: options.scripts,
  }) as Client;

  let health: StoreHealth = { ok: false, reason: "not connected yet", since: new Date() };
  const setHealth = (next: StoreHealth) => {
    if (next.ok === health.ok) return;
    health = next;
    options.onHealth?.(next);
  };
  const down = (reason: string) => setHealth({ ok: false, reason, since: new Date() });
  client.on("ready", () => setHealth({ ok: true }));
  client.on("error", (error: Error) => down(messageOf(error)));
  client.on("close", () => down("the connection closed"));
  client.on("end", () => down("the store was closed"));
  // Connected on first use, so a command that never needs the store (skillport list) never opens a socket; a
  // replica that cannot reach Redis at start-up starts anyway, and says so.
  let connecting: Promise<void> | undefined;

  return {
    client,
    async command(run) {
      connecting ??= client.connect().then(
        () => undefined,
        () => undefined,
      );
      // Until the first connection is ready ("connect" is a socket still before Redis's ready check), a command
      // would be refused as if Redis were down: wait for it; after that, fail fast.
      if (client.status === "connecting" || client.status === "wait" || client.status === "connect") await connecting;
      try {
        const result = await run(client);
        setHealth({ ok: true });
        return result;
      } catch (error) {
        const reason = messageOf(error);
        down(reason);
        throw new StoreUnavailableError(`the state store (redis) cannot be reached: ${reason}`, { cause: error });
      }
    },
    health: () => health,
    close() {
      client.disconnect();
      setHealth({ ok: false, reason: "the store was closed", since: new Date() });
    },
  };
}
