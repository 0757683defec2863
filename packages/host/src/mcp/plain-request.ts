import type { RequestId } from "@modelcontextprotocol/server";
import type { ClientSupports, ToolCallRequest } from "./tools-core.js";
import { supportsOf } from "./tools-core.js";

/**
 * A plain `tools/call` or `tools/list`: one the tools core answers itself, without the SDK's server, because its
 * answer is the SDK's. For a call in the 2026-07-28 era, `supports` is what its envelope declares.
 */
export type PlainToolsRequest =
  | { method: "tools/call"; id: RequestId; call: ToolCallRequest; supports?: ClientSupports }
  | { method: "tools/list"; id: RequestId };

/** The first revision of the 2026-07-28 era; every revision before it is the 2025 era's. */
export const FIRST_MODERN_REVISION = "2026-07-28";

/**
 * The request when it is plain; undefined for anything else, which the SDK answers as it always has. Plain means a
 * shape the SDK surely accepts and reads as written, with nothing in it that only the SDK serves:
 * - `jsonrpc` "2.0", an id that is a string or a safe integer, no other member (the SDK refuses one);
 * - tools/call params with only `name` (a string), `arguments` (a plain object without an own `__proto__` key, which
 *   the SDK's copy would turn into a prototype, or absent) and `_meta`; tools/list params with only `cursor` (a
 *   string) and `_meta`;
 * - `_meta` with at most a `progressToken` (a string or a safe integer): a task, `inputResponses`, `requestState` or
 *   any other key is the SDK's; in the 2026-07-28 era (`modern`) `_meta` must also carry the per-request envelope in
 *   a shape the SDK surely accepts: the revision 2026-07-28, the client's capabilities (only `elicitation`,
 *   `sampling` and `roots`, with their known members) and, optionally, `clientInfo` with just a name and a version.
 *
 * Checked by hand, not with the SDK's own request schemas: those cost about 6.5 µs a call (bench/RESULTS.md), half
 * of what the whole host spends on a plain call. The tools core's parity test holds this to the SDK's answers.
 */
export function plainToolsRequestOf(message: unknown, era: "legacy" | "modern"): PlainToolsRequest | undefined {
  const modern = era === "modern";
  if (!isPlainObject(message)) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== "2.0") return undefined;
  for (const key in message) if (!MESSAGE_KEYS.has(key)) return undefined;
  if (method !== "tools/call" && method !== "tools/list") return undefined;
  if (!isRequestId(id)) return undefined;
  if (method === "tools/list") return isPlainListParams(params, modern) ? { method, id } : undefined;
  if (!isPlainObject(params)) return undefined;
  for (const key in params) if (key !== "name" && key !== "arguments" && key !== "_meta") return undefined;
  const { name, arguments: args, _meta } = params;
  if (typeof name !== "string") return undefined;
  if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, "__proto__"))) return undefined;
  const meta = metaOf(_meta, modern);
  if (meta === undefined) return undefined;
  const call: ToolCallRequest = { name, args: args ?? {}, progressToken: meta.token };
  return meta.supports === undefined ? { method, id, call } : { method, id, call, supports: meta.supports };
}

/** Whether a message is a `notifications/cancelled` with valid params, and the request it cancels. */
export function cancelledRequestOf(message: unknown): { requestId: RequestId; reason?: string } | undefined {
  if (!isPlainObject(message)) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== "2.0" || method !== "notifications/cancelled" || id !== undefined) return undefined;
  for (const key in message) if (!MESSAGE_KEYS.has(key)) return undefined;
  if (!isPlainObject(params)) return undefined;
  const { requestId, reason } = params;
  if (!isRequestId(requestId) || (reason !== undefined && typeof reason !== "string")) return undefined;
  return reason === undefined ? { requestId } : { requestId, reason };
}

// --- internal ---

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_KEY, CLIENT_INFO_KEY, CLIENT_CAPABILITIES_KEY]);
/** The capabilities an envelope may declare here, each with the members the SDK's schema surely takes. */
const KNOWN_CAPABILITIES: Record<string, Record<string, "object" | "boolean">> = {
  elicitation: { form: "object", url: "object" },
  sampling: { context: "object", tools: "object" },
  roots: { listChanged: "boolean" },
};

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `_meta`'s progress token and, in the 2026-07-28 era, the capabilities its envelope declares; undefined: not plain. */
function metaOf(
  meta: unknown,
  modern: boolean,
): { token: string | number | undefined; supports: ClientSupports | undefined } | undefined {
  if (meta === undefined) return modern ? undefined : { token: undefined, supports: undefined };
  if (!isPlainObject(meta)) return undefined;
  for (const key in meta) if (key !== "progressToken" && !(modern && ENVELOPE_KEYS.has(key))) return undefined;
  const supports = modern ? envelopeSupports(meta) : undefined;
  if (modern && supports === undefined) return undefined;
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== "string" && !Number.isSafeInteger(token)) return undefined;
  return { token: token as string | number | undefined, supports };
}

function envelopeSupports(meta: Record<string, unknown>): ClientSupports | undefined {
  if (meta[PROTOCOL_VERSION_KEY] !== FIRST_MODERN_REVISION) return undefined;
  const info = meta[CLIENT_INFO_KEY];
  if (info !== undefined) {
    if (!isPlainObject(info) || typeof info.name !== "string" || typeof info.version !== "string") return undefined;
    for (const key in info) if (key !== "name" && key !== "version") return undefined;
  }
  const capabilities = meta[CLIENT_CAPABILITIES_KEY];
  if (!isPlainObject(capabilities)) return undefined;
  for (const key in capabilities) {
    const known = Object.hasOwn(KNOWN_CAPABILITIES, key) ? KNOWN_CAPABILITIES[key] : undefined;
    const value = capabilities[key];
    if (known === undefined || !isPlainObject(value)) return undefined;
    for (const member in value) {
      const kind = Object.hasOwn(known, member) ? known[member] : undefined;
      const flag = value[member];
      if (kind === "boolean" ? typeof flag !== "boolean" : !isPlainObject(flag) || Object.keys(flag).length > 0) {
        return undefined;
      }
    }
  }
  return supportsOf(capabilities);
}

function isPlainListParams(params: unknown, modern: boolean): boolean {
  if (params === undefined) return !modern;
  if (!isPlainObject(params)) return false;
  for (const key in params) if (key !== "cursor" && key !== "_meta") return false;
  if (params.cursor !== undefined && typeof params.cursor !== "string") return false;
  return metaOf(params._meta, modern) !== undefined;
}
