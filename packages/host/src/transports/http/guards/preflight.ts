import type { Guard } from "../guard.js";
import { MCP_METHODS, MCP_SESSION_METHODS } from "./method.js";

/**
 * Answers OPTIONS with 204: the CORS preflight of an allowed origin (the methods, the headers it asked for, ten
 * minutes of caching), or just `Allow` for a client that sent no Origin. Runs after the origin guard, which
 * refuses any origin not listed.
 *
 * @example
 * const guard = preflightGuard();
 */
export function preflightGuard(options: { sessions?: boolean } = {}): Guard {
  const methods = options.sessions === true ? MCP_SESSION_METHODS : MCP_METHODS;
  return (request, context) => {
    if (request.method !== "OPTIONS") return undefined;
    const headers: Record<string, string> =
      context.origin === undefined
        ? { allow: methods }
        : {
            "access-control-allow-methods": methods,
            "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? "*",
            "access-control-max-age": "600",
          };
    return new Response(null, { status: 204, headers });
  };
}
