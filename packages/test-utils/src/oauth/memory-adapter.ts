import type { Adapter } from "oidc-provider";

/** Stored models of one authorization server, in memory. */
export interface MemoryStore {
  /** The factory oidc-provider's `adapter` option takes: one adapter per model name. */
  adapterFor(model: string): Adapter;
  /** Removes every grant of `accountId` and each token issued under it; answers how many grants there were. */
  revokeGrantsOf(accountId: string): number;
}

/**
 * oidc-provider's storage for a test: a `Map` per server, so that two servers in one process share nothing (the
 * provider's own in-memory adapter is shared and warns when used), and a user's grants can be listed to revoke them.
 */
export function memoryStore(): MemoryStore {
  const entries = new Map<string, Entry>();
  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry !== undefined && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const revokeByGrantId = (grantId: string) => {
    for (const [key, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(key);
  };
  return {
    adapterFor(model) {
      const keyOf = (id: string) => `${model}:${id}`;
      const findBy = (field: string, value: string) => {
        for (const [key, entry] of entries) {
          if (key.startsWith(`${model}:`) && entry.payload[field] === value) return live(key)?.payload;
        }
        return undefined;
      };
      return {
        async upsert(id, payload, expiresIn) {
          const expiresAt = expiresIn === undefined ? Number.POSITIVE_INFINITY : Date.now() + expiresIn * 1000;
          entries.set(keyOf(id), { payload, expiresAt });
        },
        async find(id) {
          return live(keyOf(id))?.payload;
        },
        async findByUid(uid) {
          return findBy("uid", uid);
        },
        async findByUserCode(userCode) {
          return findBy("userCode", userCode);
        },
        async consume(id) {
          const entry = live(keyOf(id));
          if (entry !== undefined) entry.payload.consumed = Math.floor(Date.now() / 1000);
        },
        async destroy(id) {
          entries.delete(keyOf(id));
        },
        async revokeByGrantId(grantId) {
          revokeByGrantId(grantId);
        },
      };
    },
    revokeGrantsOf(accountId) {
      const grants = [...entries].filter(
        ([key, entry]) => key.startsWith("Grant:") && entry.payload.accountId === accountId,
      );
      for (const [key, entry] of grants) {
        entries.delete(key);
        revokeByGrantId(String(entry.payload.jti ?? key.slice("Grant:".length)));
      }
      return grants.length;
    },
  };
}

// --- internal ---

interface Entry {
  payload: Record<string, unknown>;
  expiresAt: number;
}
