import type { Redis } from "ioredis";
import { connectRedis } from "./redis-connection.js";
import type { SealedStore } from "./sealed-store.js";

/**
 * Sealed records in Redis, shared by every replica under the composition's prefix (`<prefix>sealed:<key>`). `take`
 * is GETDEL (Redis 6.2): one replica gets a record. `keys` walks SCAN, never KEYS.
 *
 * @example
 * const store = await createRedisSealedStore({ url: "redis://127.0.0.1:6379", prefix: "skillport:notes:" });
 */
export async function createRedisSealedStore(options: { url: string; prefix: string }): Promise<SealedStore> {
  const connection = await connectRedis<Redis>({ url: options.url, keyPrefix: options.prefix, scripts: {} });
  const at = (key: string) => `sealed:${key}`;
  return {
    kind: "redis",
    get: (key) => connection.command(async (c) => (await c.get(at(key))) ?? undefined),
    set: (key, value, ttlMs) =>
      connection.command(async (c) => {
        if (ttlMs === undefined) await c.set(at(key), value);
        else await c.set(at(key), value, "PX", Math.max(1, Math.ceil(ttlMs)));
      }),
    take: (key) => connection.command(async (c) => (await c.getdel(at(key))) ?? undefined),
    delete: (key) => connection.command(async (c) => (await c.del(at(key))) > 0),
    keys: (prefix) =>
      connection.command(async (c) => {
        // SCAN's MATCH sees the full key: the client's prefix is not added to a pattern.
        const start = `${options.prefix}${at(prefix)}`;
        const pattern = `${start.replace(/[*?[\]\\]/g, "\\$&")}*`;
        const found: string[] = [];
        let cursor = "0";
        do {
          const [next, batch] = await c.scan(cursor, "MATCH", pattern, "COUNT", 500);
          cursor = next;
          for (const key of batch) found.push(key.slice(options.prefix.length + "sealed:".length));
        } while (cursor !== "0");
        return found;
      }),
    async close() {
      connection.close();
    },
  };
}
