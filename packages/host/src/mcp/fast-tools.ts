import type { JSONRPCMessage, RequestId, Server } from "@modelcontextprotocol/server";
import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Host } from "../host.js";
import type { CallOptions, CallOutcome } from "../pipeline/call.js";
import { CallStop } from "../pipeline/call-stop.js";
import type { CallObserver } from "./server.js";
import type { ToolCallRequest } from "./tool-call.js";
import { adoptOutcome, LOG_LEVELS, runToolCall, toolAnswerOf, toolsListOf } from "./tool-call.js";

/** Options for {@link createFastTools}. */
export interface FastToolsOptions {
  /** The SDK server this connection is pinned to, once there is one (the fast path answers only beside it). */
  server: () => Server | undefined;
  /**
   * Writes one message to the client, as the connection's transport does (one JSON.stringify, one write); `json`,
   * when given, is the message already serialised (without the newline), for a transport that writes text.
   */
  send: (message: JSONRPCMessage, json?: string) => Promise<void>;
  /** Told when each tools/call starts and ends, as the SDK path tells it. */
  observer?: CallObserver;
}

/** How many messages the fast path answered, and how many calls it ran and handed to the SDK to answer. */
interface FastToolsCounts {
  calls: number;
  lists: number;
  handedOver: number;
}

/**
 * The fast path of one connection: answers `tools/call` and `tools/list` itself, and takes note of
 * `notifications/cancelled` for the calls it runs; every other message goes to the SDK's server unchanged.
 */
export interface FastTools {
  /**
   * Offers a parsed JSON-RPC message. Returns true when the fast path took it (and will answer it); false when the
   * caller must hand it to the SDK as usual. `deliver` hands it to the SDK later, for a call whose answer only the
   * SDK can give (a round of questions to the client): the SDK's handler then answers the outcome already run.
   */
  offer(message: unknown, deliver: (message: unknown) => void): boolean;
  /** The connection closed: every call in flight sees its signal abort, and none is answered. */
  close(): void;
  readonly counts: Readonly<FastToolsCounts>;
}

/**
 * The lean dispatcher for tools/call and tools/list, in front of the SDK's server on one connection (stdio, in
 * memory). It reads only what it needs (jsonrpc, id, method, params.name, params.arguments,
 * params._meta.progressToken), runs the pipeline exactly as the SDK's tools/call handler does (the same call
 * options, observer, progress before the result) and writes the answer once. It answers only where its answer is
 * the SDK's, by what the request and the connection say, before anything runs:
 * - the connection is pinned to a server that negotiated a 2025-era protocol (after `initialize`): the 2026-07-28
 *   era's per-request envelope, request state and input rounds stay with the SDK;
 * - the request is plain: `jsonrpc` "2.0", an id that is a string or a safe integer, params with only `name` (a
 *   string), `arguments` (a plain object without an own `__proto__` key, or absent) and `_meta` with at most a
 *   `progressToken` (a string or a safe integer); anything else (a malformed request, a task, an envelope key,
 *   `inputResponses`, `requestState`) goes to the SDK, which answers it as it always has.
 * A call whose outcome asks the client something (a dangerous tool's confirmation, a capability's question) or
 * carries content blocks of its own is handed to the SDK with its outcome, so it is not run twice.
 */
export function createFastTools(host: Host, options: FastToolsOptions): FastTools {
  const { send, observer } = options;
  // Each call in flight: its id, its stop, and whether the client (or the connection's end) stopped it. A list, not
  // a Map by id: a Map that lives as long as the connection and gains and loses an entry every call re-allocates its
  // table in the old generation (measured: about 150 bytes a call, left for a full collection); a cancel is rare.
  const inFlight: Running[] = [];
  const counts: FastToolsCounts = { calls: 0, lists: 0, handedOver: 0 };

  // What every call on this connection's server shares, made once per server: what its client supports, how a
  // call's log lines reach it.
  let shared: { server: Server; parts: Omit<CallOptions, "onProgress" | "stop"> } | undefined;
  const partsOf = (server: Server) => {
    if (shared?.server !== server) {
      const parts: Omit<CallOptions, "onProgress" | "stop"> = {
        input: { supports: supportsOf(server) },
        onLog: (level, text, data) => {
          server
            .sendLoggingMessage({
              level: LOG_LEVELS[level],
              data: data === undefined ? text : { message: text, ...data },
              logger: "skillport",
            })
            .catch(() => undefined); // a client gone away must not fail the call
        },
        confirmation: { elicit: Boolean(server.getClientCapabilities()?.elicitation) },
      };
      shared = { server, parts };
    }
    return shared.parts;
  };

  const reply = (message: JSONRPCMessage, json?: string) => {
    send(message, json).catch((error: unknown) => host.logger.warn({ err: error }, "could not answer a tools request"));
  };

  // Chained on the run rather than awaited in an async function: two promises fewer a call (see runToolCall).
  const call = (
    server: Server,
    id: RequestId,
    request: ToolCallRequest,
    message: unknown,
    deliver: (message: unknown) => void,
  ): void => {
    const running: Running = { id, stop: new CallStop(), cancelled: false };
    inFlight.push(running);
    const parts = partsOf(server);
    // A literal, not a spread: V8 copies a spread slowly.
    const callOptions: Omit<CallOptions, "onProgress"> = {
      input: parts.input,
      onLog: parts.onLog,
      confirmation: parts.confirmation,
      stop: running.stop,
    };
    const failed = (error: unknown) => {
      forget(running);
      if (!running.cancelled) reply(errorAnswer(id, error));
    };
    const answered = (outcome: CallOutcome) => {
      try {
        if (running.cancelled) return; // cancelled or closed: the SDK answers nothing either
        if (outcome.elicit !== undefined || outcome.input !== undefined || (outcome.content?.length ?? 0) > 0) {
          counts.handedOver++;
          forget(running);
          adoptOutcome(server, id, request.name, outcome);
          deliver(message);
          return;
        }
        let answer: JSONRPCMessage;
        try {
          answer = { result: toolAnswerOf(server, outcome), jsonrpc: "2.0", id } as JSONRPCMessage;
        } catch (error) {
          answer = errorAnswer(id, error);
        }
        reply(answer);
      } catch (error) {
        failed(error);
      } finally {
        forget(running);
      }
    };
    runToolCall(host, observer, request, callOptions, (notification) =>
      server.notification(notification, { relatedRequestId: id }),
    ).then(answered, failed);
  };

  return {
    counts,
    offer(message, deliver) {
      if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
      const { jsonrpc, id, method, params } = message as Record<string, unknown>;
      if (jsonrpc === "2.0" && method === "notifications/cancelled" && id === undefined) {
        for (const key in message) if (!MESSAGE_KEYS.has(key)) return false;
        cancel(params);
        return false; // the SDK hears it too: a cancel of one of its own requests is its to act on
      }
      const plain = plainToolsRequestOf(message);
      if (plain === undefined) return false;
      const server = options.server();
      if (server === undefined || server.transport === undefined || !servesLegacy(server)) return false;
      if (plain.method === "tools/list") {
        counts.lists++;
        const { result, json } = toolsListAnswerOf(host, plain.id);
        reply(result, json);
        return true;
      }
      counts.calls++;
      call(server, plain.id, plain.request, message, deliver);
      return true;
    },
    close() {
      const closed = new Error("the connection closed");
      for (const running of inFlight.splice(0)) {
        running.cancelled = true;
        running.stop.abort(closed);
      }
    },
  };

  /** Takes a call off the list in flight (swapping the last one into its place), if it is still there. */
  function forget(running: Running) {
    const at = inFlight.indexOf(running);
    if (at === -1) return;
    const last = inFlight.pop() as Running;
    if (at < inFlight.length) inFlight[at] = last;
  }

  /** notifications/cancelled for a call of this path: abort it, as the SDK aborts its own (valid params only). */
  function cancel(params: unknown) {
    if (typeof params !== "object" || params === null) return;
    const { requestId, reason } = params as { requestId?: unknown; reason?: unknown };
    if (!isRequestId(requestId) || (reason !== undefined && typeof reason !== "string")) return;
    const running = inFlight.find((call) => call.id === requestId);
    if (running === undefined) return;
    running.cancelled = true;
    running.stop.abort(reason);
  }
}

/** A call the fast path runs, while it runs. */
interface Running {
  id: RequestId;
  stop: CallStop;
  /** The client cancelled it or the connection closed: it is not answered. */
  cancelled: boolean;
}

/** A plain tools/call or tools/list, as both fast paths (a connection's, HTTP's) read it: see {@link createFastTools}. */
export type PlainToolsRequest =
  | { method: "tools/call"; id: RequestId; request: ToolCallRequest & { supports?: Supports } }
  | { method: "tools/list"; id: RequestId };

/**
 * The request when it is a plain `tools/call` or `tools/list` the fast paths may answer (see {@link createFastTools}
 * for what plain means); undefined for anything else, which the SDK answers.
 */
export function plainToolsRequestOf(
  message: unknown,
  era: "legacy" | "modern" = "legacy",
): PlainToolsRequest | undefined {
  const modern = era === "modern";
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  if (jsonrpc !== "2.0") return undefined;
  // The SDK refuses a message with any other member (a strict JSON-RPC schema): that answer is its to give.
  for (const key in message) if (!MESSAGE_KEYS.has(key)) return undefined;
  if (method !== "tools/call" && method !== "tools/list") return undefined;
  if (!isRequestId(id)) return undefined;
  if (method === "tools/list") return isPlainListParams(params, modern) ? { method, id } : undefined;
  const request = plainCallOf(params, modern);
  return request === undefined ? undefined : { method, id, request };
}

/** The tools/list answer to `id`, and its JSON (the list serialised once per list, for every answer). */
export function toolsListAnswerOf(host: Host, id: RequestId): { result: JSONRPCMessage; json: string } {
  const result = toolsListOf(host);
  let json = listJson.get(result);
  if (json === undefined) {
    json = JSON.stringify(result);
    listJson.set(result, json);
  }
  return {
    result: { result, jsonrpc: "2.0", id } as JSONRPCMessage,
    json: `{"result":${json},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
  };
}

// --- internal ---

const listJson = new WeakMap<object, string>();

/** The first revision of the 2026-07-28 era; every revision before it is the 2025 era's. */
export const FIRST_MODERN_REVISION = "2026-07-28";

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

function servesLegacy(server: Server): boolean {
  const version = server.getNegotiatedProtocolVersion();
  return version !== undefined && version < FIRST_MODERN_REVISION;
}

function supportsOf(server: Server): NonNullable<CallOptions["input"]>["supports"] {
  const capabilities = server.getClientCapabilities();
  return {
    elicitation: Boolean(capabilities?.elicitation),
    sampling: Boolean(capabilities?.sampling),
    roots: Boolean(capabilities?.roots),
  };
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `_meta` with at most a progress token: anything more (an envelope key, a related task) is the SDK's to read. In
 * the 2026-07-28 era (`modern`), `_meta` must also carry the per-request envelope, in a shape the SDK's schema
 * surely accepts: the revision 2026-07-28, the client's capabilities (only `elicitation`, `sampling` and `roots`,
 * with their known flags) and, optionally, `clientInfo` with just a name and a version; anything else is the SDK's.
 */
function metaOf(meta: unknown, modern: boolean): { ok: boolean; token?: string | number; supports?: Supports } {
  if (meta === undefined) return { ok: !modern };
  if (!isPlainObject(meta)) return { ok: false };
  for (const key in meta) if (key !== "progressToken" && !(modern && ENVELOPE_KEYS.has(key))) return { ok: false };
  const supports = modern ? envelopeSupports(meta) : undefined;
  if (modern && supports === undefined) return { ok: false };
  const token = meta.progressToken;
  if (token === undefined) return { ok: true, supports };
  return typeof token === "string" || Number.isSafeInteger(token)
    ? { ok: true, token: token as string | number, supports }
    : { ok: false };
}

type Supports = NonNullable<CallOptions["input"]>["supports"];

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_KEY, CLIENT_INFO_KEY, CLIENT_CAPABILITIES_KEY]);
/** The capabilities the fast path reads, each with the members it knows the schema takes (`true`: a boolean). */
const KNOWN_CAPABILITIES: Record<string, Record<string, "object" | "boolean">> = {
  elicitation: { form: "object", url: "object" },
  sampling: { context: "object", tools: "object" },
  roots: { listChanged: "boolean" },
};

function envelopeSupports(meta: Record<string, unknown>): Supports | undefined {
  if (meta[PROTOCOL_VERSION_KEY] !== FIRST_MODERN_REVISION) return undefined;
  const info = meta[CLIENT_INFO_KEY];
  if (info !== undefined) {
    if (!isPlainObject(info) || typeof info.name !== "string" || typeof info.version !== "string") return undefined;
    for (const key in info) if (key !== "name" && key !== "version") return undefined;
  }
  const capabilities = meta[CLIENT_CAPABILITIES_KEY];
  if (!isPlainObject(capabilities)) return undefined;
  for (const key in capabilities) {
    const known = KNOWN_CAPABILITIES[key];
    const value = capabilities[key];
    if (!Object.hasOwn(KNOWN_CAPABILITIES, key) || known === undefined || !isPlainObject(value)) return undefined;
    for (const member in value) {
      const kind = Object.hasOwn(known, member) ? known[member] : undefined;
      const flag = value[member];
      if (kind === "boolean" ? typeof flag !== "boolean" : !isPlainObject(flag) || Object.keys(flag).length > 0) {
        return undefined;
      }
    }
  }
  return {
    elicitation: capabilities.elicitation !== undefined,
    sampling: capabilities.sampling !== undefined,
    roots: capabilities.roots !== undefined,
  };
}

function plainCallOf(params: unknown, modern: boolean): (ToolCallRequest & { supports?: Supports }) | undefined {
  if (!isPlainObject(params)) return undefined;
  for (const key in params) if (key !== "name" && key !== "arguments" && key !== "_meta") return undefined;
  const { name, arguments: args, _meta } = params;
  if (typeof name !== "string") return undefined;
  // The SDK copies arguments key by key, so an own "__proto__" key would become the copy's prototype there.
  if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, "__proto__"))) return undefined;
  const meta = metaOf(_meta, modern);
  if (!meta.ok) return undefined;
  return {
    name,
    args: (args as Record<string, unknown> | undefined) ?? {},
    progressToken: meta.token,
    ...(meta.supports === undefined ? {} : { supports: meta.supports }),
  };
}

function isPlainListParams(params: unknown, modern: boolean): boolean {
  if (params === undefined) return !modern;
  if (!isPlainObject(params)) return false;
  for (const key in params) if (key !== "cursor" && key !== "_meta") return false;
  if (params.cursor !== undefined && typeof params.cursor !== "string") return false;
  return metaOf(params._meta, modern).ok;
}

/** A thrown error as the SDK answers it: its own code when it has one (an unknown tool's invalid params), else internal. */
export function errorAnswer(id: RequestId, error: unknown): JSONRPCMessage {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const thrown = Number.isSafeInteger(code) ? (code as number) : ProtocolErrorCode.InternalError;
  return {
    jsonrpc: "2.0",
    id,
    error: {
      // The SDK answers the 2025 era's resource-not-found code as invalid params; a tools/call never throws it.
      code: thrown === -32002 ? ProtocolErrorCode.InvalidParams : thrown,
      message: (message as string | undefined) ?? "Internal error",
      ...(data === undefined ? {} : { data }),
    },
  } as JSONRPCMessage;
}
