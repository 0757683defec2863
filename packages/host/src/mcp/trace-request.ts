import { createHash } from "node:crypto";
import type { RequestId } from "@modelcontextprotocol/server";
import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { CallOutcome } from "../pipeline/call.js";
import type { Registry } from "../registry/registry.js";
import type { TraceContext, TraceSpan, Tracing } from "../tracing/tracing.js";
import { TRACEPARENT, TRACESTATE, traceContextOf } from "../tracing/tracing.js";

/** Where an MCP request came from, for its span: the transport's name as OpenTelemetry's `network.transport`. */
export interface RequestOrigin {
  /** `pipe` for stdio and in memory, `tcp` for HTTP. */
  readonly transport?: "pipe" | "tcp" | undefined;
  /** The session the request belongs to (a 2025-era HTTP session); recorded as a digest, never as it is. */
  readonly sessionId?: string | undefined;
}

/**
 * Opens the span of one MCP request (`{method} {target}`, server kind) under the context the client sent, named
 * and attributed after OpenTelemetry's semantic conventions for MCP: `mcp.method.name`, `gen_ai.tool.name` and
 * `gen_ai.operation.name` for a tool call, `jsonrpc.request.id`, `mcp.session.id`, `network.transport`.
 */
export function openRequestSpan(
  tracing: Tracing,
  method: string,
  target: string | undefined,
  request: { id?: RequestId | undefined; trace?: TraceContext | undefined },
  origin: RequestOrigin,
): TraceSpan {
  const attributes: Record<string, string> = {};
  if (method === "tools/call" && target !== undefined) {
    attributes["gen_ai.tool.name"] = target;
    attributes["gen_ai.operation.name"] = "execute_tool";
  } else if (method === "prompts/get" && target !== undefined) attributes["gen_ai.prompt.name"] = target;
  if (request.id !== undefined) attributes["jsonrpc.request.id"] = String(request.id);
  if (origin.sessionId !== undefined) attributes["mcp.session.id"] = sessionDigest(origin.sessionId);
  if (origin.transport !== undefined) attributes["network.transport"] = origin.transport;
  return tracing.request({ method, target, parent: request.trace, attributes });
}

/**
 * Ends a tool call's span with what it answered: the instance, skill package and version that answered, the stage,
 * the outcome code (`OK` or the envelope's error code, also `error.type`), or the JSON-RPC error code of a request
 * answered with one (`rpc.response.status_code`).
 */
export function endToolSpan(span: TraceSpan, outcome: CallOutcome, registry: Registry, name: string): void {
  const { tool } = outcome;
  const attributes: Record<string, string | number> = { "skillport.stage": outcome.stage };
  if (tool === undefined || outcome.rejected !== undefined) {
    attributes["rpc.response.status_code"] = String(ProtocolErrorCode.InvalidParams);
    span.set(attributes);
    span.fail(String(ProtocolErrorCode.InvalidParams), tool === undefined ? "unknown tool" : "round state refused");
    span.end();
    return;
  }
  const instance = registry.tools.get(name)?.instance;
  attributes["skillport.instance"] = tool.instance;
  if (instance !== undefined) {
    attributes["skillport.skill.package"] = instance.packageName;
    attributes["skillport.skill.version"] = instance.version;
  }
  const { envelope } = outcome;
  attributes["skillport.outcome"] = envelope.ok ? "OK" : envelope.error.code;
  span.set(attributes);
  if (!envelope.ok) span.fail(envelope.error.code);
  span.end();
}

/** Ends a request's span that failed with a thrown error (the transport answers an internal error). */
export function endThrownSpan(span: TraceSpan): void {
  span.set({ "rpc.response.status_code": String(ProtocolErrorCode.InternalError) });
  span.fail(String(ProtocolErrorCode.InternalError), "internal error");
  span.end();
}

/** The trace context of a request's `_meta`, or else of its HTTP headers; undefined when it carries none. */
export function incomingTraceContext(
  meta: Readonly<Record<string, unknown>> | undefined,
  headers: { get(name: string): string | null } | undefined,
): TraceContext | undefined {
  return (
    traceContextOf(meta?.[TRACEPARENT], meta?.[TRACESTATE]) ??
    (headers === undefined ? undefined : traceContextOf(headers.get(TRACEPARENT), headers.get(TRACESTATE)))
  );
}

// --- internal ---

/** A session id as a trace may carry it: the first 16 hex digits of its SHA-256 (it can be told apart, not used). */
function sessionDigest(sessionId: string): string {
  return createHash("sha256").update(sessionId).digest("hex").slice(0, 16);
}
