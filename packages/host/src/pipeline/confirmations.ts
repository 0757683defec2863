import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** What redeeming an operation id found. */
export type Redemption = "ok" | "invalid" | "expired" | "mismatch" | "reused";

/** Options for {@link createConfirmations}. */
export interface ConfirmationsOptions {
  /** Signs operation ids so every replica sharing it can verify them. @default a random secret per process */
  secret?: string | undefined;
  /** @default 300 */
  ttlSeconds?: number;
  /** @default Date.now */
  now?: () => number;
}

/**
 * One-time operation ids for dangerous calls when the client cannot ask its user. An id is bound to the tool
 * and a hash of the exact arguments, expires, and runs once: changed arguments, a reused id or an expired id are
 * refused. Ids are HMAC-signed, so they need no shared store to verify; "once" is enforced per process.
 */
export function createConfirmations(options: ConfirmationsOptions = {}) {
  const secret = options.secret ?? randomBytes(32).toString("hex");
  const ttlMs = (options.ttlSeconds ?? 300) * 1000;
  const now = options.now ?? Date.now;
  const redeemed = new Map<string, number>(); // id → expiry, forgotten once expired

  const sign = (payload: string) => createHmac("sha256", secret).update(payload).digest("base64url");

  return {
    /** A fresh operation id for this exact call. */
    issue(tool: string, args: unknown): { operationId: string; expiresAt: Date } {
      const expires = now() + ttlMs;
      const payload = Buffer.from(
        JSON.stringify({ t: tool, h: hashArguments(args), e: expires, n: randomBytes(9).toString("base64url") }),
      ).toString("base64url");
      return { operationId: `${payload}.${sign(payload)}`, expiresAt: new Date(expires) };
    },

    /** Checks an operation id against the call and, when it holds, uses it up. */
    redeem(operationId: string, tool: string, args: unknown): Redemption {
      const [payload, signature, extra] = operationId.split(".");
      if (payload === undefined || signature === undefined || extra !== undefined) return "invalid";
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
      let claims: { t?: unknown; h?: unknown; e?: unknown };
      try {
        claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        return "invalid";
      }
      const at = now();
      for (const [id, expiry] of redeemed) if (expiry < at) redeemed.delete(id);
      if (typeof claims.e !== "number" || claims.e < at) return "expired";
      if (claims.t !== tool || claims.h !== hashArguments(args)) return "mismatch";
      if (redeemed.has(operationId)) return "reused";
      redeemed.set(operationId, claims.e);
      return "ok";
    },
  };
}

export type Confirmations = ReturnType<typeof createConfirmations>;

/** A stable hash of JSON arguments: key order does not matter. */
export function hashArguments(args: unknown): string {
  return createHash("sha256").update(canonicalJson(args)).digest("base64url");
}

// --- internal ---

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
