import { createHash, timingSafeEqual } from "node:crypto";
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import { createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, jwtVerify } from "jose";
import { rememberSubjectToken } from "../../credentials/subject-tokens.js";
import type { Caller } from "../../entries/check-scopes.js";
import type { ResolvedHttpConfig, ResolvedJwt, ResolvedToken } from "./config.js";

/** What authenticating one request found. */
export type AuthOutcome =
  | { ok: true; caller: Caller; via: "token" | "jwt" | "none" }
  /** `missing`/`invalid` answer 401; `unavailable` (the JWKS could not be fetched) answers 503. */
  | { ok: false; error: "missing" | "invalid" | "unavailable"; description: string };

/** Checks a request's `Authorization` header against the configured static tokens and JWT issuer. */
export interface Authenticator {
  /** False when no authentication is configured: every request is the anonymous caller. */
  readonly required: boolean;
  authenticate(authorization: string | undefined): Promise<AuthOutcome>;
}

/**
 * Caller ids name their source, so identities from different sources never meet: a static token named `ci-bot` is
 * `token:ci-bot`, a JWT whose subject is `ci-bot` is `jwt:ci-bot`. The id is what `ctx.auth.id`, the audit line, the
 * rate limit and confirmations see.
 */
const CALLER_SOURCES = { token: "token:", jwt: "jwt:" } as const;

/** The caller of an unauthenticated loopback server: it holds no scopes. */
export const ANONYMOUS: Caller = Object.freeze({ id: "anonymous", scopes: Object.freeze([]) as readonly string[] });

/**
 * Builds the request authenticator. Static tokens are compared in constant time (SHA-256 of both sides, every
 * token compared); JWTs are verified with jose against the issuer's JWKS (remote, fetched on first use and
 * cached, or from a file), with `iss`, `aud` and `exp` required. The caller that comes out holds an identity and
 * scopes, never the token: `token:<name>` for a static token, `jwt:<sub>` (or `jwt:<client_id>`) for a JWT.
 *
 * @example
 * const auth = createAuthenticator(config.auth);
 * const outcome = await auth.authenticate(req.headers.authorization);
 */
export function createAuthenticator(auth: ResolvedHttpConfig["auth"]): Authenticator {
  if (auth === undefined) {
    return { required: false, authenticate: async () => ({ ok: true, caller: ANONYMOUS, via: "none" }) };
  }
  const matchToken = staticTokenMatcher(auth.tokens);
  const verifyJwt = auth.jwt === undefined ? undefined : jwtVerifier(auth.jwt);

  return {
    required: true,
    async authenticate(authorization) {
      const token = bearerToken(authorization);
      if (token === undefined) {
        return {
          ok: false,
          error: "missing",
          description:
            authorization === undefined
              ? "this server requires a bearer token (Authorization: Bearer <token>)"
              : "the Authorization header is not a bearer token",
        };
      }
      const named = matchToken(token);
      if (named !== undefined) {
        return { ok: true, caller: { id: `${CALLER_SOURCES.token}${named.name}`, scopes: named.scopes }, via: "token" };
      }
      if (verifyJwt !== undefined && looksLikeJwt(token)) return verifyJwt(token);
      return { ok: false, error: "invalid", description: "the bearer token is not valid for this server" };
    },
  };
}

// --- internal ---

function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization);
  return match?.[1];
}

function looksLikeJwt(token: string): boolean {
  return token.split(".").length === 3;
}

/** Hashing both sides gives equal-length buffers, so timingSafeEqual can compare any candidate to any token. */
function staticTokenMatcher(tokens: readonly ResolvedToken[]): (candidate: string) => ResolvedToken | undefined {
  const digests = tokens.map((t) => ({ token: t, digest: sha256(t.secret) }));
  return (candidate) => {
    const digest = sha256(candidate);
    let found: ResolvedToken | undefined;
    // No early exit: the time taken does not say which token, if any, matched.
    for (const entry of digests) {
      if (timingSafeEqual(digest, entry.digest)) found ??= entry.token;
    }
    return found;
  };
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

function jwtVerifier(jwt: ResolvedJwt): (token: string) => Promise<AuthOutcome> {
  const keys: JWTVerifyGetKey =
    "url" in jwt.keys
      ? createRemoteJWKSet(jwt.keys.url, { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 600_000 })
      : createLocalJWKSet(jwt.keys.jwks);
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: jwt.issuer,
        audience: jwt.audience,
        clockTolerance: jwt.clockToleranceSec,
        requiredClaims: ["exp"],
        ...(jwt.algorithms === undefined ? {} : { algorithms: jwt.algorithms }),
      }));
    } catch (error) {
      return jwtFailure(error);
    }
    const id = stringClaim(payload.sub) ?? stringClaim(payload.client_id);
    if (id === undefined) {
      return { ok: false, error: "invalid", description: "the access token names no subject (sub or client_id)" };
    }
    const caller: Caller = { id: `${CALLER_SOURCES.jwt}${id}`, scopes: scopesOf(payload) };
    // Kept beside the caller, never on it: only a token exchange (RFC 8693) hands it on, to the identity provider.
    rememberSubjectToken(caller, token);
    return { ok: true, caller, via: "jwt" };
  };
}

function jwtFailure(error: unknown): AuthOutcome {
  if (error instanceof joseErrors.JWTExpired) {
    return { ok: false, error: "invalid", description: "the access token has expired" };
  }
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    const claim = error.claim === "aud" ? "audience (aud)" : error.claim === "iss" ? "issuer (iss)" : error.claim;
    return { ok: false, error: "invalid", description: `the access token's ${claim} is not accepted by this server` };
  }
  if (
    error instanceof joseErrors.JWKSTimeout ||
    error instanceof joseErrors.JWKSInvalid ||
    (error instanceof Error && !(error instanceof joseErrors.JOSEError))
  ) {
    return { ok: false, error: "unavailable", description: "the issuer's signing keys (JWKS) cannot be fetched" };
  }
  return { ok: false, error: "invalid", description: "the access token's signature or format is not valid" };
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** OAuth scopes: a space-separated `scope` (RFC 8693/9068) or an `scp` list (common in Azure AD, Okta). */
function scopesOf(payload: JWTPayload): readonly string[] {
  const scope = payload.scope ?? payload.scp;
  if (typeof scope === "string") return scope.split(" ").filter((s) => s !== "");
  if (Array.isArray(scope)) return scope.filter((s): s is string => typeof s === "string");
  return [];
}
