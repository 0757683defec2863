import type { SealedStore } from "../state/sealed-store.js";
import type { Keyring } from "./keyring.js";

/** What a caller connected for a slot, as kept (sealed) in the store. */
export type KeptCredential =
  | { kind: "token"; value: string; savedAt: number }
  | {
      kind: "oauth";
      accessToken: string;
      refreshToken?: string;
      /** Epoch ms; undefined when the server gave no lifetime. */
      expiresAt?: number;
      scope?: string;
      /** The authorization server's issuer, and what discovery found (so a refresh need not discover again). */
      issuer?: string;
      discovery?: unknown;
      savedAt: number;
    };

/** One kept credential as `skillport credentials list` shows it: never its value. */
export interface KeptCredentialInfo {
  slot: string;
  caller: string;
  kind: KeptCredential["kind"];
  savedAt: number;
  expiresAt?: number;
  /** False when the record does not open with any key of the keyring (sealed by a removed key, or tampered with). */
  readable: boolean;
}

/**
 * The credentials callers connected, sealed (see Keyring) in a store. A record's key names its slot and caller, and
 * is the record's additional data: a record moved under another caller's key does not open. Other sealed records
 * (connect flows, page sessions, OAuth client registrations) go through `sealed`.
 */
export interface Vault {
  get(slot: string, caller: string): Promise<KeptCredential | undefined>;
  put(slot: string, caller: string, credential: KeptCredential): Promise<void>;
  remove(slot: string, caller: string): Promise<boolean>;
  /** Every kept credential (of one slot, or all), without values. */
  list(slot?: string): Promise<KeptCredentialInfo[]>;
  /** Any other sealed value at `key` (its own namespace), kept for `ttlMs` when given. */
  sealed: {
    get(key: string): Promise<string | undefined>;
    set(key: string, value: string, ttlMs?: number): Promise<void>;
    /** Removes and answers it: one taker. */
    take(key: string): Promise<string | undefined>;
    delete(key: string): Promise<boolean>;
  };
  readonly store: SealedStore;
  readonly keyring: Keyring;
}

/**
 * A vault over a sealed store and a keyring.
 *
 * @example
 * const vault = createVault(createMemorySealedStore(), keyring);
 * await vault.put("gh.token", "token:alice", { kind: "token", value: "ghp_…", savedAt: Date.now() });
 */
export function createVault(store: SealedStore, keyring: Keyring): Vault {
  const placeOf = (slot: string, caller: string) => `${CREDENTIAL}${slot}:${caller}`;
  // Records opened, by place, with the sealed text they were opened from (see get).
  const opened = new Map<string, { sealed: string; kept: KeptCredential }>();
  const sealedGet = async (place: string) => {
    const text = await store.get(place);
    return text === undefined ? undefined : keyring.open(text, place);
  };
  return {
    store,
    keyring,
    async get(slot, caller) {
      const place = placeOf(slot, caller);
      const sealed = await store.get(place);
      if (sealed === undefined) return undefined;
      // The store is read every time (a record changed or removed on another replica counts at once); opening the
      // same sealed text again gives the same record, so it is opened once: AES-GCM and JSON cost a call ~15 µs.
      const known = opened.get(place);
      if (known !== undefined && known.sealed === sealed) return known.kept;
      const text = keyring.open(sealed, place);
      const kept = text === undefined ? undefined : parseKept(text);
      if (kept !== undefined) {
        if (opened.size >= MAX_OPENED && !opened.has(place)) opened.delete(opened.keys().next().value as string);
        // Shared by every call that reads it: nobody may change it.
        opened.set(place, { sealed, kept: Object.freeze(kept) });
      }
      return kept;
    },
    async put(slot, caller, credential) {
      const place = placeOf(slot, caller);
      await store.set(place, keyring.seal(JSON.stringify(credential), place));
    },
    remove(slot, caller) {
      opened.delete(placeOf(slot, caller));
      return store.delete(placeOf(slot, caller));
    },
    async list(slot) {
      const places = await store.keys(slot === undefined ? CREDENTIAL : `${CREDENTIAL}${slot}:`);
      const infos: KeptCredentialInfo[] = [];
      for (const place of places) {
        const rest = place.slice(CREDENTIAL.length);
        const split = rest.indexOf(":");
        if (split < 0) continue;
        const text = await sealedGet(place);
        const kept = text === undefined ? undefined : parseKept(text);
        infos.push({
          slot: rest.slice(0, split),
          caller: rest.slice(split + 1),
          kind: kept?.kind ?? "token",
          savedAt: kept?.savedAt ?? 0,
          ...(kept?.kind === "oauth" && kept.expiresAt !== undefined ? { expiresAt: kept.expiresAt } : {}),
          readable: kept !== undefined,
        });
      }
      return infos.sort((a, b) => a.slot.localeCompare(b.slot) || a.caller.localeCompare(b.caller));
    },
    sealed: {
      get: (key) => sealedGet(`${OTHER}${key}`),
      set: (key, value, ttlMs) => store.set(`${OTHER}${key}`, keyring.seal(value, `${OTHER}${key}`), ttlMs),
      async take(key) {
        const text = await store.take(`${OTHER}${key}`);
        return text === undefined ? undefined : keyring.open(text, `${OTHER}${key}`);
      },
      delete: (key) => store.delete(`${OTHER}${key}`),
    },
  };
}

// --- internal ---

const CREDENTIAL = "cred:";
/** The most records kept opened (one per caller and slot); the oldest opened is dropped first. */
const MAX_OPENED = 10_000;
const OTHER = "aux:";

function parseKept(text: string): KeptCredential | undefined {
  try {
    const value = JSON.parse(text) as KeptCredential;
    return value.kind === "token" || value.kind === "oauth" ? value : undefined;
  } catch {
    return undefined;
  }
}
