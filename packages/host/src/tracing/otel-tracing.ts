import type * as OtelApi from "@opentelemetry/api";
import type * as OtelSdk from "@opentelemetry/sdk-node";
import type { Logger } from "../logging/logger.js";
import { requireFromHost } from "../package/package-files.js";
import type { Redactor } from "../redaction/redactor.js";
import type { RequestSpanInit, TraceAttributes, TraceContext, TraceSpan, Tracing } from "./tracing.js";
import { TRACEPARENT, TRACESTATE, tracingConfigured } from "./tracing.js";

/** Options for {@link loadTracing}. */
export interface TracingOptions {
  /** Every span name, attribute, event and status message passes it before the SDK sees it. */
  redactor: Redactor;
  logger: Logger;
  /**
   * Where the `OTEL_*` settings are read (the SDK itself reads `process.env` for the exporter's endpoint, protocol,
   * headers, sampler and batch settings).
   * @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one (the host passes its
   * manifest's name).
   * @default "skillport"
   */
  serviceName?: string;
  /** `service.version` (the host passes its manifest's version). */
  serviceVersion?: string;
  /**
   * Span processors to use instead of the ones the environment configures (tests: an in-memory exporter). Given,
   * tracing is on whatever the environment says.
   */
  spanProcessors?: OtelSdk.tracing.SpanProcessor[];
}

/**
 * The OpenTelemetry SDK for Node (`@opentelemetry/sdk-node`), started when the environment configures traces (see
 * tracingConfigured) and loaded only then: undefined, and nothing of the SDK imported, otherwise. Traces only (no
 * metrics or logs are exported, whatever `OTEL_METRICS_EXPORTER` says: /metrics serves Prometheus), no
 * instrumentation of other libraries: the spans are the host's own. `shutdown` exports what is left, and lets go
 * of the global tracer provider, so a later host in the same process can start its own.
 *
 * @example
 * const tracing = await loadTracing({ redactor, logger }); // undefined unless OTEL_EXPORTER_OTLP_ENDPOINT (…) is set
 */
export async function loadTracing(options: TracingOptions): Promise<Tracing | undefined> {
  const env = options.env ?? process.env;
  if (options.spanProcessors === undefined && !tracingConfigured(env)) return undefined;
  // CommonJS from the host's own dependencies (the skillport command bundles the host, never the SDK).
  const api = requireFromHost("@opentelemetry/api") as typeof OtelApi;
  const sdk = requireFromHost("@opentelemetry/sdk-node") as typeof OtelSdk;
  const named =
    env.OTEL_SERVICE_NAME !== undefined || /(?:^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? "");
  const resource = sdk.resources.resourceFromAttributes(
    options.serviceVersion === undefined ? {} : { "service.version": options.serviceVersion },
  );
  const node = new sdk.NodeSDK({
    ...(named ? {} : { serviceName: options.serviceName ?? "skillport" }),
    resource: sdk.resources.defaultResource().merge(resource),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors === undefined ? {} : { spanProcessors: options.spanProcessors }),
  });
  node.start();
  // The spans' instrumentation scope: this package, at its version.
  const { version } = requireFromHost("./package.json") as { version: string };
  const tracer = api.trace.getTracer("@skillport/host", version);
  const propagator = new sdk.core.W3CTraceContextPropagator();
  const { redactor } = options;
  const clean = (text: string) => (redactor.active ? redactor.string(text) : text);
  const attributesOf = (attributes: TraceAttributes | undefined): OtelApi.Attributes | undefined => {
    if (attributes === undefined) return undefined;
    const out: OtelApi.Attributes = {};
    for (const key in attributes) {
      const value = attributes[key];
      if (value !== undefined) out[clean(key)] = typeof value === "string" ? clean(value) : value;
    }
    return out;
  };

  class Span implements TraceSpan {
    readonly traceId: string;
    /** False for a span the sampler dropped: then nothing is set on it (its context still travels on). */
    readonly recording: boolean;
    constructor(readonly span: OtelApi.Span) {
      this.traceId = span.spanContext().traceId;
      this.recording = span.isRecording();
    }
    child(name: string, kind: "internal" | "client" = "internal", attributes?: TraceAttributes): TraceSpan {
      const parent = api.trace.setSpan(api.ROOT_CONTEXT, this.span);
      const spanKind = kind === "client" ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL;
      const options: OtelApi.SpanOptions = { kind: spanKind };
      const cleaned = attributesOf(attributes);
      if (cleaned !== undefined) options.attributes = cleaned;
      return new Span(tracer.startSpan(clean(name), options, parent));
    }
    set(attributes: TraceAttributes): void {
      if (!this.recording) return;
      const cleaned = attributesOf(attributes);
      if (cleaned !== undefined) this.span.setAttributes(cleaned);
    }
    event(name: string, attributes?: TraceAttributes): void {
      if (!this.recording) return;
      this.span.addEvent(clean(name), attributesOf(attributes));
    }
    fail(code: string, description?: string): void {
      if (!this.recording) return;
      this.span.setAttribute("error.type", clean(code));
      this.span.setStatus({
        code: api.SpanStatusCode.ERROR,
        ...(description === undefined ? {} : { message: clean(description) }),
      });
    }
    context(): TraceContext {
      const carrier: Record<string, string> = {};
      propagator.inject(api.trace.setSpan(api.ROOT_CONTEXT, this.span), carrier, api.defaultTextMapSetter);
      const traceparent = carrier[TRACEPARENT] ?? "";
      const tracestate = carrier[TRACESTATE];
      return tracestate === undefined ? { traceparent } : { traceparent, tracestate };
    }
    end(): void {
      this.span.end();
    }
  }

  return {
    request(init: RequestSpanInit) {
      const carrier: Record<string, string> = {};
      if (init.parent !== undefined) {
        carrier[TRACEPARENT] = init.parent.traceparent;
        if (init.parent.tracestate !== undefined) carrier[TRACESTATE] = init.parent.tracestate;
      }
      const parent = propagator.extract(api.ROOT_CONTEXT, carrier, api.defaultTextMapGetter);
      const name = init.target === undefined ? init.method : `${init.method} ${init.target}`;
      const options: OtelApi.SpanOptions = {
        kind: api.SpanKind.SERVER,
        attributes: attributesOf({ "mcp.method.name": init.method, ...init.attributes }) ?? {},
      };
      return new Span(tracer.startSpan(clean(name), options, parent));
    },
    async flush() {
      const provider = api.trace.getTracerProvider() as { getDelegate?: () => { forceFlush?: () => Promise<void> } };
      await provider.getDelegate?.().forceFlush?.();
    },
    async shutdown() {
      try {
        await node.shutdown();
      } catch (error) {
        options.logger.warn({ err: error }, "the trace exporter did not shut down cleanly; some spans may be lost");
      } finally {
        api.trace.disable();
        api.propagation.disable();
        api.context.disable();
      }
    },
  };
}
