import type { EdgeContext, Guard } from "../guard.js";
import type { RateLimiter } from "../rate-limit.js";
import { rpcError } from "../responses.js";

/**
 * One request, one token from the caller's bucket: `caller:<id>` for an authenticated caller, the remote address
 * on an unauthenticated server. An empty bucket answers 429 with `Retry-After` in seconds. Runs after the auth
 * guard, which names the caller. With a shared state store the bucket is shared by every replica.
 *
 * @example
 * const guard = rateLimitGuard(createRateLimiter({ requestsPerMinute: 600 }));
 */
export function rateLimitGuard(limiter: RateLimiter): Guard {
  return async (_request, context) => {
    const { caller, authenticatedBy } = context;
    const identified = caller !== undefined && authenticatedBy !== undefined && authenticatedBy !== "none";
    const decision = await limiter.take(identified ? `caller:${caller.id}` : addressKey(context));
    if (decision.ok) return undefined;
    const who = caller === undefined ? "" : ` from "${caller.id}"`;
    return rpcError(429, `too many requests${who}; retry after ${decision.retryAfterSec} s`, {
      "retry-after": String(decision.retryAfterSec),
    });
  };
}

/** The bucket of a request without an identity: its remote address. */
export function addressKey(context: EdgeContext): string {
  return `addr:${context.remoteAddress ?? "?"}`;
}
