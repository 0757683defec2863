// What the host asks of a tracer, without the OpenTelemetry SDK: the pipeline and the MCP layer speak only to these
// types, and the SDK (otel-tracing.ts) is loaded when the environment configures an exporter. With tracing off the
// host holds no Tracing at all, and a call pays one branch on `undefined`.

/** A W3C trace context as it travels: `traceparent` and `tracestate`, from `_meta` or HTTP headers. */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string | undefined;
}

/** A value a span or an event may carry: never an argument value, a result or a credential. */
type TraceValue = string | number | boolean;

/** Attributes of a span or an event. */
export type TraceAttributes = Readonly<Record<string, TraceValue | undefined>>;

/** What opens the span of one MCP request the host serves. */
export interface RequestSpanInit {
  /** `tools/call`, `resources/read`, … (`mcp.method.name`). */
  readonly method: string;
  /** The tool or prompt the request names, for the span's name and `gen_ai.tool.name`; undefined for a list. */
  readonly target?: string | undefined;
  /** The context the client sent (its `_meta`, else the HTTP `traceparent` header): the span's parent. */
  readonly parent?: TraceContext | undefined;
  /** Attributes known when the request arrives (the request id, the transport, …). */
  readonly attributes?: TraceAttributes | undefined;
}

/** One span while it is open. Every name, attribute and event passes the host's redactor on its way in. */
export interface TraceSpan {
  /** The trace's id, 32 hex digits: the envelope's `meta.traceId` when the call is traced. */
  readonly traceId: string;
  /** A span under this one: a pipeline stage (internal), or a request to an upstream server (client). */
  child(name: string, kind?: "internal" | "client", attributes?: TraceAttributes): TraceSpan;
  set(attributes: TraceAttributes): void;
  /** A policy decision or something that happened to the call: its name and counts or codes, never values. */
  event(name: string, attributes?: TraceAttributes): void;
  /** Marks the span failed with this code (`error.type`) and a short description. */
  fail(code: string, description?: string): void;
  /** The context to pass on to the next hop (`_meta` and the HTTP `traceparent` header). */
  context(): TraceContext;
  end(): void;
}

/** A tracer for the host's requests: spans exported through the configured OpenTelemetry exporter. */
export interface Tracing {
  /** Opens the span of one MCP request (server kind); one the sampler drops records nothing, its context travels on. */
  request(init: RequestSpanInit): TraceSpan;
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

/**
 * One traced call as the pipeline carries it: the request's span, and the span of the stage running now, under which
 * a stage's decisions are recorded and an upstream request is opened. Made only for a call that is traced.
 */
export class CallTrace {
  /** The stage running now (set by the pipeline as each stage starts and ends), else the request's span. */
  current: TraceSpan;
  constructor(readonly request: TraceSpan) {
    this.current = request;
  }

  /** Records a decision on the span of the stage that made it. */
  event(name: string, attributes?: TraceAttributes): void {
    this.current.event(name, attributes);
  }
}

/**
 * The policy decisions a call's trace records, as span events: their names and what they carry (codes and counts,
 * never argument values or secrets).
 */
export const TRACE_EVENTS = {
  confirmationAsked: "skillport.confirmation.asked",
  confirmationAccepted: "skillport.confirmation.accepted",
  confirmationRefused: "skillport.confirmation.refused",
  scopeRefused: "skillport.scope.refused",
  rateLimited: "skillport.rate_limited",
  redacted: "skillport.redacted",
  outputSchemaMismatch: "skillport.output_schema.mismatch",
  timeout: "skillport.timeout",
  cancelled: "skillport.cancelled",
} as const;

/** The `_meta` keys of W3C trace context in MCP (the MCP SDK's TRACEPARENT_META_KEY and TRACESTATE_META_KEY). */
export const TRACEPARENT = "traceparent";
export const TRACESTATE = "tracestate";

/**
 * The trace context in a request's `_meta` (or HTTP headers read into one), when its `traceparent` has the W3C
 * shape; undefined otherwise (a malformed one is ignored, as the W3C recommends, and the request starts a trace).
 */
export function traceContextOf(traceparent: unknown, tracestate: unknown): TraceContext | undefined {
  if (typeof traceparent !== "string" || !TRACEPARENT_SHAPE.test(traceparent)) return undefined;
  return typeof tracestate === "string" && tracestate.length <= MAX_TRACESTATE
    ? { traceparent, tracestate }
    : { traceparent };
}

/**
 * Whether the environment asks for traces: an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or an exporter other than `none` (`OTEL_TRACES_EXPORTER`), and
 * `OTEL_SDK_DISABLED` not true.
 */
export function tracingConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === "none") return false;
  if (exporter !== undefined && exporter !== "") return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

// --- internal ---

/** A version (not ff), a trace id and a parent id not all zeros, flags. */
const TRACEPARENT_SHAPE = /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The W3C limit on a tracestate's length (32 members of up to 256 characters, with commas). */
const MAX_TRACESTATE = 8192;
