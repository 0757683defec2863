import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../json/canonical-json.js";
import { createMemoryStore } from "../state/memory-store.js";
import type { StateStore } from "../state/store.js";
import { StoreUnavailableError } from "../state/store.js";

/**
 * What checking a confirmation token found. `forgotten`: the token was issued in another generation of the store that
 * records used tokens (before it lost its data, or, for the memory store, before this process started), so it may
 * have been used. `unavailable`: the token holds, but that store cannot be reached, so it was not taken (and the
 * call must not run).
 */
export type Redemption =
  | "ok"
  | "invalid"
  | "expired"
  | "mismatch"
  | "other-caller"
  | "reused"
  | "forgotten"
  | "unavailable";

/** The shortest `confirmation.secret` accepted: a shorter one can be guessed offline from a single token. */
export const MIN_CONFIRMATION_SECRET_BYTES = 32;

/** Options for {@link createConfirmations}. */
export interface ConfirmationsOptions {
  /**
   * Signs tokens so every replica sharing it can verify them; at least 32 bytes.
   * @default 32 random bytes per process
   */
  secret?: string | undefined;
  /** @default 300 */
  ttlSeconds?: number;
  /** @default Date.now */
  now?: () => number;
  /**
   * Records used tokens: a token counts once on every replica sharing it (the host passes its state store). Each
   * token carries the store's generation at its issue, and is taken only in that generation.
   * @default a store in this process
   */
  store?: Pick<StateStore, "generation" | "claimOnce">;
}

/** What a confirmation token is bound to: the tool, its exact arguments, and who asked. */
export interface ConfirmationSubject {
  tool: string;
  args: unknown;
  /** The caller's identity; undefined for a local caller (stdio, `skillport call`). */
  caller: string | undefined;
}

/**
 * One-time, signed confirmation tokens for dangerous calls, of two kinds that never stand in for each other:
 * - a **question** (`ask`/`answer`): the state a server mints when it asks the user (MCP elicitation) and that
 *   comes back with the answer (the 2026-07-28 era's `requestState`; in the 2025 era it never leaves the server);
 * - an **operation id** (`issue`/`redeem`): the opt-in fallback for clients that cannot ask their user.
 * Each is bound to the tool, a hash of the exact arguments and the caller, expires, and counts once: changed
 * arguments, another caller, an expired or a reused token are refused. Tokens are HMAC-SHA256 signed with a secret
 * of at least 32 bytes, so no store is needed to verify them; "once" is a set-if-absent of the token's nonce in
 * `store`, kept a little past the token's expiry, so every replica sharing the store (and the secret) takes a token
 * once in all. A token carries (signed) the store's generation when it was issued, and one from another generation
 * (issued before the store lost its data) is `forgotten`, never taken: no clock decides it. When the store cannot be
 * reached, no token is issued (minting rejects with {@link StoreUnavailableError}: its generation cannot be known),
 * and a token that holds answers `unavailable` and is not taken.
 */
export function createConfirmations(options: ConfirmationsOptions = {}) {
  const secret = options.secret ?? randomBytes(MIN_CONFIRMATION_SECRET_BYTES).toString("hex");
  if (Buffer.byteLength(secret) < MIN_CONFIRMATION_SECRET_BYTES) {
    throw new RangeError(`the confirmation secret must have at least ${MIN_CONFIRMATION_SECRET_BYTES} bytes`);
  }
  const ttlMs = (options.ttlSeconds ?? 300) * 1000;
  const now = options.now ?? Date.now;
  const store = options.store ?? createMemoryStore({ now });

  const sign = (payload: string) => createHmac("sha256", secret).update(payload).digest("base64url");

  const mint = async (kind: Kind, subject: ConfirmationSubject, round?: InputRound) => {
    // Read before the token exists: while the store cannot be reached this rejects, and nothing is issued.
    const generation = await store.generation();
    const expires = now() + ttlMs;
    const claims: Claims = {
      k: kind,
      g: generation,
      t: subject.tool,
      h: hashArguments(subject.args),
      c: callerTag(subject.caller),
      e: expires,
      n: randomBytes(12).toString("base64url"),
      ...(round === undefined ? {} : { r: round }),
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
    return { token: `${payload}.${sign(payload)}`, expiresAt: new Date(expires) };
  };

  const check = async (
    kind: Kind,
    token: string,
    subject: ConfirmationSubject,
    onClaims?: (claims: Claims) => void,
  ): Promise<Redemption> => {
    const [payload, signature, extra] = token.split(".");
    if (payload === undefined || signature === undefined || extra !== undefined) return "invalid";
    const expected = Buffer.from(sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
    let claims: Partial<Claims>;
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Partial<Claims>;
    } catch {
      return "invalid";
    }
    if (claims.k !== kind || typeof claims.n !== "string") return "invalid";
    const at = now();
    if (typeof claims.e !== "number" || claims.e < at) return "expired";
    if (claims.c !== callerTag(subject.caller)) return "other-caller";
    if (claims.t !== subject.tool || claims.h !== hashArguments(subject.args)) return "mismatch";
    // A token without a generation (issued before tokens carried one) cannot be vouched for.
    if (typeof claims.g !== "string") return "forgotten";
    try {
      // Kept past the expiry by a margin, so a replica whose clock runs behind still finds it used.
      const claim = await store.claimOnce(`confirm:${claims.n}`, claims.e - at + CLOCK_SKEW_MARGIN_MS, claims.g);
      if (claim === "first") onClaims?.(claims as Claims);
      return claim === "first" ? "ok" : claim === "used" ? "reused" : "forgotten";
    } catch (error) {
      if (error instanceof StoreUnavailableError) return "unavailable";
      throw error;
    }
  };

  return {
    /**
     * The state of a round of questions a capability asked the client (`ctx.elicit`, `ctx.sample`,
     * `ctx.listRoots`): the answers it already had, the questions of this round, and whether a dangerous call was
     * confirmed. Bound to the call like the other tokens, signed, expiring, and counted once when it comes back.
     * Rejects with {@link StoreUnavailableError} while the store cannot be reached.
     */
    carry: async (subject: ConfirmationSubject, round: InputRound): Promise<string> => {
      const { token } = await mint("in", subject, round);
      return `${INPUT_STATE_PREFIX}${token}`;
    },
    /** The round a state carries, when it is one this server minted for this call and not yet used. */
    resume: async (
      state: string,
      subject: ConfirmationSubject,
    ): Promise<{ verdict: Redemption; round?: InputRound }> => {
      let round: InputRound | undefined;
      const verdict = await check("in", state.slice(INPUT_STATE_PREFIX.length), subject, (claims) => {
        round = claims.r;
      });
      return verdict === "ok" && round !== undefined ? { verdict, round } : { verdict };
    },
    /**
     * The state of a question to the user about this exact call; it comes back with the answer. Rejects with
     * {@link StoreUnavailableError} while the store cannot be reached.
     */
    ask: async (subject: ConfirmationSubject): Promise<{ state: string; expiresAt: Date }> => {
      const { token, expiresAt } = await mint("ask", subject);
      return { state: token, expiresAt };
    },
    /** Checks that an answer belongs to a question this server asked about this exact call, and uses it up. */
    answer: (state: string, subject: ConfirmationSubject): Promise<Redemption> => check("ask", state, subject),
    /**
     * A fresh operation id for this exact call (the opt-in fallback for clients that cannot ask their user). Rejects
     * with {@link StoreUnavailableError} while the store cannot be reached.
     */
    issue: async (subject: ConfirmationSubject): Promise<{ operationId: string; expiresAt: Date }> => {
      const { token, expiresAt } = await mint("op", subject);
      return { operationId: token, expiresAt };
    },
    /** Checks an operation id against the call and, when it holds, uses it up. */
    redeem: (operationId: string, subject: ConfirmationSubject): Promise<Redemption> =>
      check("op", operationId, subject),
  };
}

export type Confirmations = ReturnType<typeof createConfirmations>;

/** A stable hash of JSON arguments: key order does not matter. */
function hashArguments(args: unknown): string {
  return createHash("sha256").update(canonicalJson(args)).digest("base64url");
}

/** What a round of questions carries to the next: the answers so far, the questions asked, a confirmation. */
export interface InputRound {
  /** The client's answers the run already used, by question key. */
  answers: Record<string, unknown>;
  /** The questions of the round just asked: key → method. */
  asked: Record<string, string>;
  /** True when a dangerous call was already confirmed in this flow. */
  confirmed: boolean;
}

/**
 * What `minting` (`issue`, `ask`, `carry`) resolves to, or undefined when it rejected because the state store cannot
 * be reached: the caller answers UNAVAILABLE.
 */
export async function unlessUnavailable<T>(minting: Promise<T>): Promise<T | undefined> {
  try {
    return await minting;
  } catch (error) {
    if (error instanceof StoreUnavailableError) return undefined;
    throw error;
  }
}

/** How a round's state starts: it is told apart from a confirmation question's state before it is checked. */
export const INPUT_STATE_PREFIX = "in.";

// --- internal ---

/** How long a used token stays recorded past its expiry: more than replicas' clocks are expected to differ. */
const CLOCK_SKEW_MARGIN_MS = 60_000;

type Kind = "ask" | "op" | "in";

interface Claims {
  /** Which kind of token: a question's state or an operation id. */
  k: Kind;
  /** The store's generation when it was issued (see StateStore.generation). */
  g: string;
  t: string;
  h: string;
  /** A hash of the caller, so the token does not show who it was issued to. */
  c: string;
  e: number;
  n: string;
  /** A round of questions ("in" tokens only). */
  r?: InputRound;
}

function callerTag(caller: string | undefined): string {
  return createHash("sha256")
    .update(caller === undefined ? "local" : `caller:${caller}`)
    .digest("base64url")
    .slice(0, 22);
}
