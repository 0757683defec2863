import type { Guard } from "../guard.js";
import { rpcError } from "../responses.js";

/** The methods the MCP endpoint answers without sessions: POST carries every message, OPTIONS is the CORS preflight. */
export const MCP_METHODS = "POST, OPTIONS";
/** With 2025-era sessions (`http.sessions`), GET opens a session's event stream and DELETE ends a session. */
export const MCP_SESSION_METHODS = "POST, GET, DELETE, OPTIONS";

/**
 * Only POST (and OPTIONS, the preflight) reaches the MCP endpoint; any other method answers 405 with `Allow`.
 * Without sessions the endpoint serves no 2025-era GET stream or DELETE: it keeps no session. With
 * `sessions: true`, GET and DELETE pass too, and only a request naming a session of its caller is served.
 *
 * @example
 * const guard = methodGuard("/mcp");
 */
export function methodGuard(path: string, options: { sessions?: boolean } = {}): Guard {
  const allow = options.sessions === true ? MCP_SESSION_METHODS : MCP_METHODS;
  return (request) => {
    if (allow.split(", ").includes(request.method)) return undefined;
    return rpcError(405, `${request.method} is not allowed on ${path}; send JSON-RPC messages with POST`, { allow });
  };
}
