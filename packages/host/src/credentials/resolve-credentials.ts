import type { Redactor } from "../redaction/redactor.js";
import { StoreUnavailableError } from "../state/store.js";
import type { CallerSlot } from "./caller-slot.js";
import type { ConnectLinks } from "./connect-links.js";
import { CONNECT_PATHS } from "./connect-paths.js";
import { subjectTokenOf } from "./subject-tokens.js";
import type { KeptCredential, Vault } from "./vault.js";

/** What a call gets of its owner's per-caller credentials: each value by credential name, or why it cannot run. */
type Resolution =
  | { ok: true; values: Record<string, string> }
  | {
      ok: false;
      code: "CREDENTIALS_MISSING" | "UNAVAILABLE";
      message: string;
      /** Where the caller connects it (one-time, for this caller only), when they can. */
      link?: { url: string; expiresAt: number };
      slot: CallerSlot;
    };

/** Refreshes an OAuth credential about to expire: the new one (already kept), or undefined when it cannot be. */
export type Refresh = (
  slot: CallerSlot,
  caller: string,
  kept: KeptCredential & { kind: "oauth" },
) => Promise<KeptCredential | undefined>;

/** Exchanges a caller's own token for one meant for the slot's upstream (RFC 8693); cached by the exchanger. */
export type Exchange = (
  slot: CallerSlot,
  caller: string,
  subjectToken: string,
) => Promise<{ ok: true; token: string } | { ok: false; message: string }>;

/** What {@link createCredentialResolver} needs. */
export interface ResolverOptions {
  vault: Vault;
  links: ConnectLinks;
  redactor: Redactor;
  /** The connections page's origin (`https://skills.example.com`), once `serve --http` knows it. */
  baseUrl: () => string | undefined;
  refresh?: Refresh;
  exchange?: Exchange;
  /** Refresh an OAuth credential this long before it expires. @default 30_000 */
  refreshSkewMs?: number;
  now?: () => number;
}

/**
 * Resolves a call's per-caller credentials. A local call (no caller: stdio, `skillport call`) gets each slot's
 * fallback. A caller gets what they connected, refreshed shortly before it expires; else the fallback; else
 * CREDENTIALS_MISSING with a connect link minted for them. Every value resolved is taught to the redactor before it
 * can reach a skill.
 *
 * @example
 * const resolution = await resolver.resolve(entry.instance.perCaller, options.caller);
 */
export interface CredentialResolver {
  resolve(slots: readonly CallerSlot[], caller: { id: string } | undefined): Promise<Resolution>;
}

export function createCredentialResolver(options: ResolverOptions): CredentialResolver {
  const { vault, links, redactor } = options;
  const now = options.now ?? Date.now;
  const skew = options.refreshSkewMs ?? 30_000;
  const taught = new Set<string>();
  const teach = (value: string) => {
    if (taught.has(value)) return;
    taught.add(value);
    redactor.add([value]);
  };

  async function missing(slot: CallerSlot, caller: string, why: string): Promise<Resolution> {
    const base = options.baseUrl();
    if (base === undefined) {
      return { ok: false, code: "CREDENTIALS_MISSING", slot, message: `${why}; connect it on the connections page` };
    }
    const { token, expiresAt } = await links.mint(caller, slot.id);
    const url = `${base}${CONNECT_PATHS.open}?link=${token}`;
    const minutes = Math.max(1, Math.round((expiresAt - now()) / 60_000));
    return {
      ok: false,
      code: "CREDENTIALS_MISSING",
      slot,
      link: { url, expiresAt },
      message: `${why}; connect it at ${url} (the link is yours only, opens once and expires in ${minutes} min), then call again`,
    };
  }

  async function one(slot: CallerSlot, caller: { id: string } | undefined): Promise<string | Resolution> {
    if (caller === undefined) {
      if (slot.fallback !== undefined) return slot.fallback;
      return {
        ok: false,
        code: "CREDENTIALS_MISSING",
        slot,
        message: `${slot.label} is connected by each caller over HTTP, and a local call has none: set ${slot.where}.fallback to use one here`,
      };
    }
    if (slot.via === "exchange") {
      const subject = subjectTokenOf(caller);
      if (subject === undefined || options.exchange === undefined) {
        return {
          ok: false,
          code: "CREDENTIALS_MISSING",
          slot,
          message: `${slot.label} is reached with your own access token exchanged at the identity provider, and this call was not made with one (sign in with the identity provider's token)`,
        };
      }
      const exchanged = await options.exchange(slot, caller.id, subject);
      if (!exchanged.ok) return { ok: false, code: "CREDENTIALS_MISSING", slot, message: exchanged.message };
      return exchanged.token;
    }
    let kept = await vault.get(slot.id, caller.id);
    if (kept?.kind === "oauth" && kept.expiresAt !== undefined && kept.expiresAt - skew <= now()) {
      const refreshed = kept.refreshToken === undefined ? undefined : await options.refresh?.(slot, caller.id, kept);
      if (refreshed === undefined) {
        await vault.remove(slot.id, caller.id);
        kept = undefined;
        if (slot.fallback === undefined) return missing(slot, caller.id, `your connection to ${slot.label} expired`);
      } else {
        kept = refreshed;
      }
    }
    if (kept !== undefined) return kept.kind === "token" ? kept.value : kept.accessToken;
    if (slot.fallback !== undefined) return slot.fallback;
    return missing(slot, caller.id, `${slot.label} needs your own credential, and you have not connected one`);
  }

  return {
    async resolve(slots, caller) {
      const values: Record<string, string> = {};
      for (const slot of slots) {
        let found: string | Resolution;
        try {
          found = await one(slot, caller);
        } catch (error) {
          if (!(error instanceof StoreUnavailableError)) throw error;
          return {
            ok: false,
            code: "UNAVAILABLE",
            slot,
            message: `${slot.label}: the credential store cannot be reached; retry shortly`,
          };
        }
        if (typeof found !== "string") return found;
        teach(found);
        values[slot.name] = found;
      }
      return { ok: true, values };
    },
  };
}
