import type { JSONRPCMessage, LoggingMessageNotification, RequestId } from "@modelcontextprotocol/server";
import { isJsonContentType, ProtocolErrorCode, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import type { EdgeContext, EdgeRequest, SerializedAnswer } from "../transports/http/guard.js";
import { listAnswerJson } from "./connection-tools.js";
import { FIRST_MODERN_REVISION, plainToolsRequestOf } from "./plain-request.js";
import type { PassedOn, ToolConnection, ToolsCore } from "./tools-core.js";
import { answerMessageOf, supportsOf, thrownMessageOf } from "./tools-core.js";
import { incomingTraceContext } from "./trace-request.js";

/** A call the core ran whose answer is a question: the SDK's to ask, with this noted for its request (ToolsCore.passOn). */
export interface HttpPassOn {
  id: RequestId;
  passOn: PassedOn;
}

/**
 * The tools core over HTTP, the fast case of the one dispatch: the answer to a request every guard passed, when it
 * is a plain `tools/call` or `tools/list` (see plainToolsRequestOf) the SDK's stateless handler would answer with one
 * message; undefined for anything else, which goes to the SDK unchanged (whose tools handlers call the same core).
 * It answers, decided from the request before anything runs:
 * - a 2025-era POST (what the SDK routes to its stateless serving: no 2026-07-28 envelope claim, no modern
 *   protocol-version header, no `Mcp-Session-Id`, a protocol-version header absent or one the SDK supports): one
 *   JSON message, or an event stream when the call logged (each log line before the result, as the SDK sends them);
 * - a 2026-07-28-era tools/call whose standard headers name what its body does: its result carries the era's
 *   `resultType` and the server's identity, as the SDK stamps every result;
 * with a JSON content type and an `Accept` of both `application/json` and `text/event-stream` that accepts JSON, and
 * no progress token (the SDK streams progress while the call runs). A call whose answer is a question resolves to
 * an {@link HttpPassOn}: the request then goes to the SDK, which asks it, or refuses it for a client that did not
 * declare it can answer (a 2025-era request over HTTP never can).
 */
export function httpToolsAnswer(
  core: ToolsCore,
  request: EdgeRequest,
  context: EdgeContext,
): Promise<SerializedAnswer | HttpPassOn> | undefined {
  const body = context.body?.json?.value;
  const era = body === undefined ? undefined : eraOf(request, body);
  // Plain in the era the headers name, or the SDK's to serve: see eraOf.
  const plain = era === undefined ? undefined : plainToolsRequestOf(body, era);
  if (plain === undefined) return undefined;
  const modern = era === "modern";
  if (plain.method === "tools/list") {
    // The 2026-07-28 era's list answer carries its cache hints: the SDK's.
    return modern ? undefined : Promise.resolve(json(listAnswerJson(core, plain.id)));
  }
  const { id, call } = plain;
  if (call.progressToken !== undefined) return undefined;
  if (modern && request.headers.get("mcp-name") !== call.name) return undefined;
  const logged: LoggingMessageNotification["params"][] = [];
  if (core.host.tracing !== undefined) {
    // A plain request's `_meta` has no trace context: its HTTP traceparent header, if any, is the span's parent.
    call.id = id;
    call.trace = incomingTraceContext(undefined, request.headers);
  }
  const connection: ToolConnection = {
    transport: "tcp",
    // A 2025-era request over HTTP has no initialize: its client declared nothing.
    supports: plain.supports ?? supportsOf(undefined),
    caller: context.caller,
    stop: context.stop,
    // The 2026-07-28 era sends log lines only to a request that asked with a log level (a plain one never does).
    log: modern ? undefined : (params) => void logged.push(params),
  };
  return core.call(call, connection).then(
    (answer): SerializedAnswer | HttpPassOn => {
      if ("question" in answer) return { id, passOn: { answer, logged } };
      const message = answerMessageOf(id, answer);
      if (modern && "result" in message) {
        const identity = { name: core.host.manifest.name, version: core.host.manifest.version };
        message.result = { ...message.result, resultType: "complete", _meta: { [SERVER_INFO]: identity } };
      }
      const answered = answerOf(message, logged);
      // The 2026-07-28 era answers a capability the client did not declare (-32021: a tool that runs only as a task)
      // with HTTP 400, as the SDK's transport does; every other error rides on a 200.
      if (modern && "error" in message && message.error.code === ProtocolErrorCode.MissingRequiredClientCapability) {
        answered.status = 400;
      }
      return answered;
    },
    (error: unknown) => answerOf(thrownMessageOf(id, error), logged),
  );
}

/** The media types of an `Accept` (or `Content-Type`) header, lower case, without parameters. */
export function mediaTypesOf(header: string | null): string[] {
  return (header ?? "").split(",").map((part) => (part.split(";")[0] ?? "").trim().toLowerCase());
}

/** Whether a client takes a JSON answer (`application/json`, `application/*` or `*\/*`). */
export function acceptsJson(request: EdgeRequest): boolean {
  const accepted = mediaTypesOf(request.headers.get("accept"));
  return accepted.includes("application/json") || accepted.includes("application/*") || accepted.includes("*/*");
}

// --- internal ---

const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

function json(body: string): SerializedAnswer {
  return { status: 200, headers: { "content-type": "application/json" }, body };
}

/** The answer alone as JSON; after log lines, all of them as the SDK's event stream sends them (jsonrpc first). */
function answerOf(message: JSONRPCMessage, logged: readonly LoggingMessageNotification["params"][]): SerializedAnswer {
  if (logged.length === 0) return json(JSON.stringify(message));
  const events = logged.map((params) => ({ jsonrpc: "2.0", method: "notifications/message", params }));
  return {
    status: 200,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
    stream: true,
    body: [...events, message].map((event) => `event: message\ndata: ${JSON.stringify(event)}\n\n`).join(""),
  };
}

/**
 * The era whose plain requests (plainToolsRequestOf) the SDK's handler serves as this POST's headers name it, with one
 * JSON message; undefined when the SDK serves the request whatever its body. No `Mcp-Session-Id`, a JSON content
 * type, an `Accept` with both `application/json` and `text/event-stream` that accepts JSON, and:
 * - the 2025 era: no protocol-version header, or one the SDK supports from before 2026-07-28. A plain 2025-era body
 *   claims no envelope and is not `initialize`, so the SDK's era rule (`classifyInboundRequest`: the body first,
 *   then the header) routes it to its 2025-era serving; the rule is not run here, as it parses the body with three
 *   schemas (about a tenth of a call's time, and garbage that outlives the collector's young generation);
 * - the 2026-07-28 era: that revision in the header and an `Mcp-Method` header naming the body's method, which the
 *   SDK checks against the envelope a plain 2026-07-28 body carries (the same revision).
 * The tools core's parity test holds this to the SDK's answers.
 */
function eraOf(request: EdgeRequest, body: unknown): "legacy" | "modern" | undefined {
  const { headers } = request;
  if (request.method !== "POST" || headers.get("mcp-session-id") !== null) return undefined;
  if (!isJsonContentType(headers.get("content-type"))) return undefined;
  const accept = headers.get("accept");
  if (accept === null || !accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return undefined;
  }
  if (!acceptsJson(request)) return undefined;
  const version = headers.get("mcp-protocol-version");
  if (version === null) return "legacy";
  if (version === FIRST_MODERN_REVISION) {
    return headers.get("mcp-method") === (body as { method?: unknown }).method ? "modern" : undefined;
  }
  return SUPPORTED_PROTOCOL_VERSIONS.includes(version) && version < FIRST_MODERN_REVISION ? "legacy" : undefined;
}
