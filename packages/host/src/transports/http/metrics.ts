import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Options for {@link createMetrics}. */
export interface MetricsOptions {
  /** Also collect the process metrics prom-client offers (CPU, memory, event loop lag, GC). @default true */
  processMetrics?: boolean;
}

/** The host's Prometheus metrics, in a registry of their own (never prom-client's global one). */
export interface HttpMetrics {
  /** A tool call entered the pipeline. */
  callStarted(): void;
  /** A tool call finished: `outcome` is "ok" or the envelope's error code (or UNKNOWN_TOOL). */
  callFinished(tool: string, outcome: string, seconds: number): void;
  /** A skill instance could not serve a call because its code failed to load (UNAVAILABLE from the ensure-loaded stage). */
  skillLoadFailed(skill: string): void;
  /** An HTTP response was sent with this status. */
  response(status: number): void;
  /** The exposition text for GET /metrics. */
  render(): Promise<string>;
  readonly contentType: string;
}

/**
 * Creates the metrics served at GET /metrics (prom-client, Prometheus text format):
 * `skillport_tool_calls_total{tool,outcome}`, `skillport_tool_call_duration_seconds{tool}`,
 * `skillport_tool_calls_in_flight`, `skillport_skill_load_failures_total{skill}`,
 * `skillport_http_responses_total{code}`, plus prom-client's process metrics prefixed `skillport_`.
 *
 * @example
 * const metrics = createMetrics();
 * metrics.callFinished("notes.search_notes", "ok", 0.004);
 */
export function createMetrics(options: MetricsOptions = {}): HttpMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "skillport_" });
  const calls = new Counter({
    name: "skillport_tool_calls_total",
    help: "Tool calls by tool and outcome (ok, or the error code of the envelope).",
    labelNames: ["tool", "outcome"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "skillport_tool_call_duration_seconds",
    help: "Time from a tools/call request entering the pipeline to its envelope, by tool.",
    labelNames: ["tool"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: "skillport_tool_calls_in_flight",
    help: "Tool calls running now.",
    registers: [registry],
  });
  const loadFailures = new Counter({
    name: "skillport_skill_load_failures_total",
    help: "Calls a skill instance answered UNAVAILABLE, which is how a skill that failed to load answers, by mcp id.",
    labelNames: ["skill"] as const,
    registers: [registry],
  });
  const responses = new Counter({
    name: "skillport_http_responses_total",
    help: "HTTP responses by status code.",
    labelNames: ["code"] as const,
    registers: [registry],
  });

  return {
    callStarted: () => inFlight.inc(),
    callFinished(tool, outcome, seconds) {
      inFlight.dec();
      calls.inc({ tool, outcome });
      duration.observe({ tool }, seconds);
    },
    skillLoadFailed: (skill) => loadFailures.inc({ skill }),
    response: (status) => responses.inc({ code: String(status) }),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
