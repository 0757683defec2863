import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { classifyInboundRequest, isJsonContentType, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import type { Host } from "../host.js";
import type { CallOptions } from "../pipeline/call.js";
import type { EdgeContext, EdgeRequest } from "../transports/http/guard.js";
import { errorAnswer, FIRST_MODERN_REVISION, plainToolsRequestOf, toolsListAnswerOf } from "./fast-tools.js";
import type { ServerFactoryOptions } from "./server.js";
import { createServerFactory } from "./server.js";
import type { LoggedLine } from "./tool-call.js";
import { LOG_LEVELS, runToolCall, toolAnswerOf } from "./tool-call.js";

/** An answer the HTTP fast path writes itself: a status, its headers and the body, already serialised. */
export interface FastHttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** An event stream, sent as the SDK's is: chunked, without a length. */
  stream?: boolean;
}

/** The HTTP fast path of a server: see {@link createFastHttp}. */
export interface FastHttp {
  /**
   * The answer to a request every guard of the endpoint passed (its caller and body in `context`), or undefined
   * when the SDK's handler answers it; then `context.handedOver` may hold a call already run, for the SDK to answer.
   */
  answer(request: EdgeRequest, context: EdgeContext, signal: AbortSignal): Promise<FastHttpAnswer | undefined>;
  readonly counts: Readonly<{ calls: number; lists: number; handedOver: number }>;
}

/**
 * The lean dispatcher of `mcp/fast-tools.ts` for HTTP: a stateless 2025-era `tools/call` or `tools/list`, once every
 * guard passed it, is answered here as the SDK's stateless handler answers it (one JSON message, or an event stream
 * when the call logged), without a web Request, a per-request SDK server or its transport. It answers only where
 * its answer is the SDK's, decided from the request before anything runs:
 * - a POST whose JSON body is a plain request (`plainToolsRequestOf`: as over stdio) without a progress token (the
 *   SDK streams progress while the call runs);
 * - what the SDK's entry would route to its 2025-era stateless serving (`classifyInboundRequest` says legacy: no
 *   2026-07-28 envelope claim, no modern protocol-version header), with no `Mcp-Session-Id`, a protocol-version
 *   header absent or one the SDK supports, a JSON content type, and an `Accept` with both `application/json` and
 *   `text/event-stream` (the SDK's 406 otherwise) that accepts the JSON answer.
 * Everything else, the 2026-07-28 era included (its envelope, `resultType` and request state are the SDK's), goes
 * to the SDK's handler unchanged. A call whose outcome asks the client something or carries content blocks of its
 * own is handed to the SDK with its outcome (`context.handedOver`), so it is not run twice.
 */
export function createFastHttp(host: Host, options: Pick<ServerFactoryOptions, "observer">): FastHttp {
  const { observer } = options;
  const counts = { calls: 0, lists: 0, handedOver: 0 };
  // A 2025-era server never connected, for what the SDK's own server would do to a result (its era's projection).
  const projector = createServerFactory(host, { announceListChanged: false })({ era: "legacy" });
  // What the SDK adds to every 2026-07-28 result: the server's identity.
  const serverIdentity = {
    "io.modelcontextprotocol/serverInfo": { name: host.manifest.name, version: host.manifest.version },
  };

  return {
    counts,
    async answer(request, context, signal) {
      const body = context.body?.json?.value;
      const era = body === undefined ? undefined : eraOf(request, body);
      const plain = era === undefined ? undefined : plainToolsRequestOf(body, era);
      if (plain === undefined) return undefined;
      const modern = era === "modern";
      if (plain.method === "tools/list") {
        if (modern) return undefined; // its answer carries the era's cache hints: the SDK's
        counts.lists++;
        return json(toolsListAnswerOf(host, plain.id).json);
      }
      const { id, request: call } = plain;
      if (call.progressToken !== undefined) return undefined;
      if (modern && request.headers.get("mcp-name") !== call.name) return undefined;
      counts.calls++;
      const logged: LoggedLine[] = [];
      // A stateless 2025-era request has no initialize: the client declared no capabilities. A 2026-07-28 request
      // declares them in its envelope.
      const supports = call.supports ?? { elicitation: false, sampling: false, roots: false };
      const callOptions: Omit<CallOptions, "onProgress"> = {
        signal,
        input: { supports },
        confirmation: { elicit: supports.elicitation },
        // The 2026-07-28 era sends log lines only to a request that asked with a log level (never a plain one).
        onLog: modern
          ? () => undefined
          : (level, text, data) => {
              logged.push({ level, data: data === undefined ? text : { message: text, ...data } });
            },
        ...(context.caller === undefined ? {} : { caller: context.caller }),
      };
      let answer: JSONRPCMessage;
      try {
        const outcome = await runToolCall(host, observer, call, callOptions, () => Promise.resolve());
        if (outcome.elicit !== undefined || outcome.input !== undefined || (outcome.content?.length ?? 0) > 0) {
          counts.calls--;
          counts.handedOver++;
          context.handedOver = { id, name: call.name, outcome, logged };
          return undefined;
        }
        const result = toolAnswerOf(projector, outcome);
        answer = {
          result: modern ? { ...result, resultType: "complete", _meta: serverIdentity } : result,
          jsonrpc: "2.0",
          id,
        } as JSONRPCMessage;
      } catch (error) {
        answer = errorAnswer(id, error);
      }
      if (logged.length === 0) return json(JSON.stringify(answer));
      // The SDK sends each log line in the answer's stream before the result, and the stream is then passed on as is.
      return {
        status: 200,
        headers: {
          "content-type": "text/event-stream",
          "cache-control": "no-cache, no-transform",
          connection: "keep-alive",
          "x-accel-buffering": "no",
        },
        stream: true,
        body: [...logged.map(notificationOf), answer]
          .map((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`)
          .join(""),
      };
    },
  };
}

/** A log line as the SDK's transport writes its notification: jsonrpc first. */
function notificationOf(line: LoggedLine): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: LOG_LEVELS[line.level], data: line.data, logger: "skillport" },
  } as JSONRPCMessage;
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

function json(body: string): FastHttpAnswer {
  return { status: 200, headers: { "content-type": "application/json" }, body };
}

/**
 * The era in which the SDK's handler would serve this POST and answer it with one JSON message, when the fast path
 * can answer it alike: undefined for anything else.
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
  const method = headers.get("mcp-method");
  const route = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: version ?? undefined,
    mcpMethodHeader: method ?? undefined,
    mcpNameHeader: headers.get("mcp-name") ?? undefined,
    body,
  });
  if (route.kind === "legacy") {
    const supported =
      version === null || (SUPPORTED_PROTOCOL_VERSIONS.includes(version) && version < FIRST_MODERN_REVISION);
    return supported ? "legacy" : undefined;
  }
  // The 2026-07-28 era: its standard headers present and naming what the body names (the SDK checks them too).
  if (route.kind !== "modern" || route.classification.revision !== FIRST_MODERN_REVISION) return undefined;
  if (version !== FIRST_MODERN_REVISION || method !== (body as { method?: unknown }).method) return undefined;
  return "modern";
}
