import type { Guard } from "../guard.js";
import { JSON_RPC_INVALID_REQUEST, rpcError } from "../responses.js";

/**
 * One request, one message: a JSON-RPC batch (a JSON array) answers 400 with `-32600` and runs nothing, so the
 * rate limit counts calls, not envelopes (MCP removed batching in protocol 2025-06-18). Runs after the body guard,
 * which parsed the body; a body that is not JSON passes, and the SDK answers it with its parse error.
 *
 * @example
 * const guard = batchGuard();
 */
export function batchGuard(): Guard {
  return (_request, context) => {
    if (!Array.isArray(context.body?.json?.value)) return undefined;
    return rpcError(400, BATCH_REFUSED, {}, JSON_RPC_INVALID_REQUEST);
  };
}

// --- internal ---

const BATCH_REFUSED =
  "JSON-RPC batches are not supported: send one message per request (MCP removed batching in protocol 2025-06-18)";
