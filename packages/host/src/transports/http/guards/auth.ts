import type { Logger } from "../../../logging/logger.js";
import type { Authenticator } from "../auth.js";
import type { Guard } from "../guard.js";
import { bearerChallenge, protectedResourceUrl } from "../protected-resource.js";
import type { RateLimiter } from "../rate-limit.js";
import { json, rpcError } from "../responses.js";
import { addressKey } from "./rate-limit.js";

/** Options for {@link authGuard}. */
export interface AuthGuardOptions {
  authenticator: Authenticator;
  /** Failed attempts take from the remote address's bucket, so guessing tokens is as limited as calling. */
  limiter: RateLimiter;
  /** The MCP endpoint's public URL, named by the challenge; undefined when not known (no `http.publicUrl`). */
  resource: () => string | undefined;
  logger: Logger;
}

/**
 * Bearer authentication: the caller found (an identity and scopes, never the token) goes to `context.caller`.
 * Without a valid token: 401 with a `WWW-Authenticate` challenge pointing at the RFC 9728 metadata; 503 when the
 * JWT issuer's keys cannot be fetched; 429 once the remote address has failed too often. An unauthenticated
 * server lets everyone in as the anonymous caller.
 *
 * @example
 * const guard = authGuard({ authenticator, limiter, resource: () => "https://skills.example.com/mcp", logger });
 */
export function authGuard(options: AuthGuardOptions): Guard {
  const { authenticator, limiter, resource, logger } = options;
  return async (request, context) => {
    const auth = await authenticator.authenticate(request.headers.get("authorization") ?? undefined);
    if (auth.ok) {
      context.caller = auth.caller;
      context.authenticatedBy = auth.via;
      return undefined;
    }
    const decision = await limiter.take(addressKey(context));
    if (!decision.ok) return rpcError(429, "too many requests", { "retry-after": String(decision.retryAfterSec) });
    if (auth.error === "unavailable") {
      logger.warn({ reason: auth.description }, "cannot verify access tokens");
      return rpcError(503, `cannot verify the access token now: ${auth.description}`, { "retry-after": "5" });
    }
    const publicUrl = resource();
    const invalid = auth.error === "invalid";
    const challenge = bearerChallenge(
      publicUrl === undefined ? undefined : protectedResourceUrl(publicUrl),
      invalid ? "invalid_token" : undefined,
      invalid ? auth.description : undefined,
    );
    return json(
      401,
      { error: invalid ? "invalid_token" : "unauthorized", error_description: auth.description },
      { "www-authenticate": challenge },
    );
  };
}
