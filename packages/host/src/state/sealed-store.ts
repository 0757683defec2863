// Where per-caller credentials are kept: opaque sealed records by key (the keyring in credentials/ seals and opens
// them; a store never sees a plain value). Memory for one process, a file for one machine, Redis for replicas.

/**
 * A place for sealed records. Every method of the Redis store answers for every replica at once; `take` is atomic
 * there (one taker). A method that cannot reach the store rejects with `StoreUnavailableError`.
 */
export interface SealedStore {
  /** `memory`, `file` or `redis`, for messages and `skillport check`. */
  readonly kind: string;
  get(key: string): Promise<string | undefined>;
  /** Writes `value` at `key`, kept for `ttlMs` when given, else until removed. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Removes `key` and answers what it held: of two replicas taking the same key, one gets it. */
  take(key: string): Promise<string | undefined>;
  /** Whether something was removed. */
  delete(key: string): Promise<boolean>;
  /** Every key starting with `prefix`, in no order. */
  keys(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Sealed records in this process: gone when it exits. Expired records are dropped when read.
 *
 * @example
 * const store = createMemorySealedStore();
 * await store.set("flow:abc", sealed, 600_000);
 */
export function createMemorySealedStore(now: () => number = Date.now): SealedStore {
  const records = new Map<string, { value: string; until: number }>();
  const live = (key: string) => {
    const record = records.get(key);
    if (record === undefined) return undefined;
    if (record.until <= now()) {
      records.delete(key);
      return undefined;
    }
    return record.value;
  };
  return {
    kind: "memory",
    get: async (key) => live(key),
    async set(key, value, ttlMs) {
      records.set(key, { value, until: ttlMs === undefined ? Number.POSITIVE_INFINITY : now() + ttlMs });
    },
    async take(key) {
      const value = live(key);
      records.delete(key);
      return value;
    },
    delete: async (key) => live(key) !== undefined && records.delete(key),
    keys: async (prefix) => [...records.keys()].filter((key) => key.startsWith(prefix) && live(key) !== undefined),
    async close() {},
  };
}
