import type { Guard } from "../guard.js";
import { rpcError } from "../responses.js";

/**
 * Once shutdown starts, a request still arriving on an open connection answers 503 with `Retry-After: 1`, so the
 * client retries on another replica while the calls in flight finish.
 *
 * @example
 * const guard = drainingGuard(() => state.draining);
 */
export function drainingGuard(draining: () => boolean): Guard {
  return () =>
    draining()
      ? rpcError(503, "the server is shutting down; retry on another replica", { "retry-after": "1" })
      : undefined;
}
