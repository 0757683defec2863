import type { SerializedAnswer } from "./guard.js";

/** JSON-RPC's "invalid request" code. */
export const JSON_RPC_INVALID_REQUEST = -32600;

/** A small JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/**
 * A refusal of the MCP endpoint as a JSON-RPC error with no id (the message was not read, or not as a request),
 * so an MCP client shows the message.
 *
 * @example
 * rpcError(503, "the server is shutting down; retry on another replica", { "retry-after": "1" });
 */
export function rpcError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = JSON_RPC_SERVER_ERROR,
): Response {
  return json(status, { jsonrpc: "2.0", id: null, error: { code, message } }, headers);
}

/** A serialised answer as a web Response. */
export function responseOf(answer: SerializedAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

// --- internal ---

/** JSON-RPC's "server error" code, for refusals at the HTTP edge that are not about the message itself. */
const JSON_RPC_SERVER_ERROR = -32000;
