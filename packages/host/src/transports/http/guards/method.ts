import type { Guard } from "../guard.js";
import { rpcError } from "../responses.js";

/** The methods the MCP endpoint answers: POST carries every message, OPTIONS is the CORS preflight. */
export const MCP_METHODS = "POST, OPTIONS";

/**
 * Only POST (and OPTIONS, the preflight) reaches the MCP endpoint; any other method answers 405 with `Allow`.
 * The endpoint serves no 2025-era GET stream or DELETE: it keeps no session.
 *
 * @example
 * const guard = methodGuard("/mcp");
 */
export function methodGuard(path: string): Guard {
  return (request) => {
    if (request.method === "POST" || request.method === "OPTIONS") return undefined;
    return rpcError(405, `${request.method} is not allowed on ${path}; send JSON-RPC messages with POST`, {
      allow: MCP_METHODS,
    });
  };
}
