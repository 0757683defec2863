import type { EdgeRequest, Guard } from "../guard.js";
import { json } from "../responses.js";

/**
 * One argument a tool mirrors into an HTTP header (SEP-2243, protocol 2026-07-28): the property of its input
 * schema marked `"x-mcp-header": "<Name>"`, sent by clients as `Mcp-Param-<Name>` so proxies can route on it.
 */
export interface ParamHeader {
  /** The argument's path through `properties`, e.g. `["target", "zone"]`. */
  path: readonly string[];
  /** The header's name after `Mcp-Param-`, as declared. */
  header: string;
  type: string | undefined;
}

/**
 * The `x-mcp-header` declarations of a tool's input schema that the extension allows: on a string, integer,
 * boolean (or number) property reached through `properties` alone, named by an HTTP token, each name once
 * (case-insensitively). Any other declaration is left out: a conforming client does not send it.
 *
 * @example
 * paramHeadersOf({ type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } });
 * // [{ path: ["region"], header: "Region", type: "string" }]
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeader[] {
  const found: ParamHeader[] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, path: string[]) => {
    if (typeof node !== "object" || node === null || path.length > MAX_DEPTH) return;
    const schema = node as Record<string, unknown>;
    const header = schema[X_MCP_HEADER];
    const type = typeof schema.type === "string" ? schema.type : undefined;
    if (path.length > 0 && typeof header === "string" && TOKEN.test(header) && PRIMITIVES.has(type ?? "")) {
      if (!seen.has(header.toLowerCase())) {
        seen.add(header.toLowerCase());
        found.push({ path, header, type });
      }
    }
    const properties = schema.properties;
    if (typeof properties !== "object" || properties === null) return;
    for (const [key, child] of Object.entries(properties)) visit(child, [...path, key]);
  };
  visit(inputSchema, []);
  return found;
}

/**
 * SEP-2243: a 2026-07-28 `tools/call` whose tool mirrors arguments into `Mcp-Param-*` headers must carry each
 * such argument's header, with the same value (plain, or `=?base64?…?=` for values a header cannot hold).
 * An integer past 2^53 needs none (clients send none: it cannot be written exactly), but one sent is compared.
 * Anything else answers 400 with `-32020` (header mismatch) before the call runs: a proxy that routes or
 * authorizes on the header must never see one value while the tool runs with another. An argument left out (or
 * null) needs no header. Requests of the 2025 era, other methods and tools without declarations pass on.
 *
 * @example
 * const guard = paramHeaderGuard((tool) => declared.get(tool));
 */
export function paramHeaderGuard(declared: (tool: string) => readonly ParamHeader[] | undefined): Guard {
  return (request, context) => {
    const message = context.body?.json?.value as
      | { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown; _meta?: unknown } }
      | undefined;
    if (typeof message !== "object" || message === null || message.method !== "tools/call") return undefined;
    const params = message.params;
    const meta = params?._meta;
    // Only the 2026-07-28 era has these headers: its requests carry their protocol version in `_meta`.
    if (typeof meta !== "object" || meta === null || !(PROTOCOL_VERSION_KEY in meta)) return undefined;
    if (typeof params?.name !== "string") return undefined;
    const declarations = declared(params.name);
    if (declarations === undefined || declarations.length === 0) return undefined;
    const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : null;
    for (const declaration of declarations) {
      const problem = mismatch(declaration, params.arguments, request.headers);
      if (problem !== undefined) {
        return json(400, { jsonrpc: "2.0", id, error: { code: HEADER_MISMATCH, message: `Bad Request: ${problem}` } });
      }
    }
    return undefined;
  };
}

// --- internal ---

const X_MCP_HEADER = "x-mcp-header";
const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
/** The protocol's "header mismatch" error (2026-07-28). */
const HEADER_MISMATCH = -32020;
/** RFC 9110 `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVES = new Set(["string", "integer", "boolean", "number"]);
const MAX_DEPTH = 32;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** Why the request's header for `declaration` does not carry the body's value; undefined when it does. */
function mismatch(declaration: ParamHeader, args: unknown, headers: EdgeRequest["headers"]): string | undefined {
  const name = `Mcp-Param-${declaration.header}`;
  const value = valueAt(args, declaration.path);
  if (value === undefined || value === null) return undefined;
  const expected = asHeaderText(value);
  if (expected === undefined) return undefined; // an object or array: the schema check refuses it
  const sent = headers.get(name);
  if (sent === null) {
    // An integer past 2^53 has no header a client can write exactly: the SDK's client sends none, and none is
    // expected. One sent anyway is still compared.
    if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) return undefined;
    return `the ${name} header is missing, but the arguments carry ${declaration.path.join(".")}`;
  }
  const decoded = decode(sent);
  if (decoded === undefined) return `the ${name} header holds invalid Base64 (=?base64?…?=, padded, UTF-8)`;
  const equal = typeof value === "number" && DECIMAL.test(decoded) ? Number(decoded) === value : decoded === expected;
  return equal
    ? undefined
    : `the ${name} header says ${JSON.stringify(decoded)}, but the arguments carry ${declaration.path.join(".")}=${JSON.stringify(value)}`;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function asHeaderText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A header's value: the text inside `=?base64?…?=` decoded, or the value as written; undefined when invalid. */
function decode(value: string): string | undefined {
  if (!(value.startsWith("=?base64?") && value.endsWith("?=") && value.length >= 11)) return value;
  const encoded = value.slice("=?base64?".length, -"?=".length);
  if (!BASE64.test(encoded)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(encoded, "base64"));
  } catch {
    return undefined;
  }
}
