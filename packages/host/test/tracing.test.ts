// OpenTelemetry traces in memory: the host's spans (the MCP request, each pipeline stage, the redaction and the
// audit) exported to the SDK's in-memory exporter, for calls made by the official SDK client over an in-memory
// connection and straight through the tools core. A canary credential and a canary argument are in no span.
import { Client } from "@modelcontextprotocol/client";
import { tracing as sdkTrace } from "@opentelemetry/sdk-node";
import { defineSkill, defineTool } from "@skillport/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../src/host.js";
import { createHost } from "../src/host.js";
import { connectInMemory } from "../src/mcp/connect-in-memory.js";
import { createToolsCore, supportsOf } from "../src/mcp/tools-core.js";
import { loadTracing } from "../src/tracing/otel-tracing.js";
import { TRACE_EVENTS, traceContextOf, tracingConfigured } from "../src/tracing/tracing.js";
import { ECHO, manifestOf, silentLogger } from "./helpers.js";

const SECRET = "canary-secret-7f3a9c2e5b1d8f4a";
const ARGUMENT = "canary-argument-b8e1d4c7a2f9";
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

const none = { type: "object", properties: {}, additionalProperties: false } as const;

/** A skill with a tool whose data drifted from its output schema, and one that holds its slot until cancelled. */
const typed = defineSkill({
  name: "typed",
  tools: [
    defineTool({
      name: "drift",
      title: "Drift",
      description: "Answers data its output schema does not allow.",
      input: none,
      output: { type: "object", properties: { words: { type: "integer" } }, required: ["words"] },
      risk: "read_only",
      run: () => ({ words: "many" }),
    }),
    defineTool({
      name: "hold",
      title: "Hold",
      description: "Waits until it is cancelled.",
      input: none,
      risk: "read_only",
      run: (_params, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
        ),
    }),
  ],
});

type Exported = InstanceType<typeof sdkTrace.InMemorySpanExporter>;
type ExportedSpan = ReturnType<Exported["getFinishedSpans"]>[number];

let host: Host;
let exporter: Exported;
let client: Client;

/** The spans of a trace exported so far (the SDK exports a span after it ends: flushed first). */
async function traceOf(traceId: string): Promise<ExportedSpan[]> {
  await host.tracing?.flush();
  return exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
}

function requestSpanOf(spans: ExportedSpan[]): ExportedSpan {
  const found = spans.find((span) => span.kind === 1 /* SERVER */);
  if (found === undefined) throw new Error(`no request span among ${spans.map((s) => s.name).join(", ")}`);
  return found;
}

function parentOf(span: ExportedSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** Everything a span exports that could carry text: its name, attributes, events and status. */
function textOf(spans: ExportedSpan[]): string {
  return JSON.stringify(
    spans.map((span) => [span.name, span.attributes, span.events, span.status, span.resource.attributes]),
  );
}

/** A fresh trace id for each call, so that each test reads its own spans. */
let sequence = 0;
function parentContext(): { traceId: string; traceparent: string } {
  sequence++;
  const traceId = `${TRACE_ID.slice(0, 24)}${sequence.toString(16).padStart(8, "0")}`;
  return { traceId, traceparent: `00-${traceId}-${PARENT_ID}-01` };
}

describe("traces of a tool call", () => {
  // One host traced at a time: its tracer provider is the process's global one until it closes.
  beforeAll(async () => {
    process.env.SKILLPORT_TRACING_TEST_TOKEN = SECRET;
    exporter = new sdkTrace.InMemorySpanExporter();
    host = await createHost({
      manifest: manifestOf({
        name: "traced",
        version: "2.0.0",
        skills: [
          {
            path: ECHO,
            mcp: "echo",
            credentials: { token: { env: "SKILLPORT_TRACING_TEST_TOKEN" } },
            timeoutMs: 50,
            allow: ["wipe"],
          },
          { package: "skill-typed", mcp: "typed", scopes: { "*": ["typed:call"] }, concurrency: 1, queue: 0 },
        ],
        confirmation: { fallback: "operation-id" },
      }),
      modules: { "skill-typed": { register: typed } },
      logger: silentLogger(),
      tracing: { spanProcessors: [new sdkTrace.SimpleSpanProcessor(exporter)] },
    });
    client = new Client({ name: "tracing-test", version: "0.0.0" });
    await client.connect(await connectInMemory(host));
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
    delete process.env.SKILLPORT_TRACING_TEST_TOKEN;
  });

  it("opens the request's span under the client's context, and one span per stage under it", async () => {
    const { traceId, traceparent } = parentContext();
    const result = await client.callTool({
      name: "echo.echo",
      arguments: { text: ARGUMENT },
      _meta: { traceparent, tracestate: "vendor=1" },
    });
    expect(result.isError).toBeFalsy();
    const spans = await traceOf(traceId);
    const request = requestSpanOf(spans);
    expect(request.name).toBe("tools/call echo.echo");
    expect(parentOf(request)).toBe(PARENT_ID);
    expect(request.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "echo.echo",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "pipe",
      "skillport.instance": "echo",
      "skillport.skill.package": expect.any(String),
      "skillport.skill.version": expect.any(String),
      "skillport.outcome": "OK",
      "skillport.stage": "shape",
    });
    expect(typeof request.attributes["jsonrpc.request.id"]).toBe("string");
    // The envelope names the trace.
    expect((result.structuredContent as { meta: { traceId: string } }).meta.traceId).toBe(traceId);
    const stages = spans.filter((span) => parentOf(span) === request.spanContext().spanId).map((span) => span.name);
    expect(stages).toEqual([
      "skillport.authorize",
      "skillport.ensure-loaded",
      "skillport.migrate",
      "skillport.validate",
      "skillport.resume",
      "skillport.confirm",
      "skillport.execute",
      "skillport.shape",
      "skillport.redact",
      "skillport.audit",
    ]);
    expect(request.resource.attributes).toMatchObject({ "service.name": "traced", "service.version": "2.0.0" });
    expect(textOf(spans)).not.toContain(ARGUMENT);
  });

  it("counts the redactions an answer needed, and carries neither the secret nor the argument", async () => {
    const { traceId, traceparent } = parentContext();
    const result = await client.callTool({ name: "echo.echo", arguments: { text: SECRET }, _meta: { traceparent } });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    const spans = await traceOf(traceId);
    const redact = spans.find((span) => span.name === "skillport.redact");
    expect(redact?.events.map((event) => [event.name, event.attributes])).toEqual([
      [TRACE_EVENTS.redacted, { "skillport.redactions": 1 }],
    ]);
    expect(textOf(spans)).not.toContain(SECRET);
  });

  it("marks a failure with its code, and records a timeout as an event of the execute stage", async () => {
    const { traceId, traceparent } = parentContext();
    await client.callTool({ name: "echo.sleep", arguments: { ms: 5000 }, _meta: { traceparent } });
    const spans = await traceOf(traceId);
    const request = requestSpanOf(spans);
    expect(request.attributes).toMatchObject({ "skillport.outcome": "TIMEOUT", "error.type": "TIMEOUT" });
    expect(request.status.code).toBe(2 /* ERROR */);
    const execute = spans.find((span) => span.name === "skillport.execute");
    expect(execute?.events.map((event) => event.name)).toEqual([TRACE_EVENTS.timeout]);
    expect(execute?.attributes["error.type"]).toBe("TIMEOUT");
  });

  it("records a dangerous call's confirmation as asked, then accepted", async () => {
    const first = parentContext();
    const asked = await client.callTool({
      name: "echo.wipe",
      arguments: { target: ARGUMENT },
      _meta: { traceparent: first.traceparent },
    });
    const confirm = (await traceOf(first.traceId)).find((span) => span.name === "skillport.confirm");
    expect(confirm?.events.map((event) => [event.name, event.attributes])).toEqual([
      [TRACE_EVENTS.confirmationAsked, { "skillport.confirmation.via": "operation-id" }],
    ]);
    const operationId = (asked.structuredContent as { error: { operationId: string } }).error.operationId;
    const second = parentContext();
    await client.callTool({
      name: "echo.wipe",
      arguments: { target: ARGUMENT, _confirm: operationId },
      _meta: { traceparent: second.traceparent },
    });
    const accepted = (await traceOf(second.traceId)).find((span) => span.name === "skillport.confirm");
    expect(accepted?.events.map((event) => event.name)).toEqual([TRACE_EVENTS.confirmationAccepted]);
    // The operation id is the call's own secret: it is no more in the trace than the arguments.
    expect(textOf([...(await traceOf(first.traceId)), ...(await traceOf(second.traceId))])).not.toContain(operationId);
    expect(textOf(await traceOf(second.traceId))).not.toContain(ARGUMENT);
  });

  it("answers an unknown tool with a span marked with the JSON-RPC error", async () => {
    const { traceId, traceparent } = parentContext();
    await expect(client.callTool({ name: "echo.nope", arguments: {}, _meta: { traceparent } })).rejects.toThrow();
    const request = requestSpanOf(await traceOf(traceId));
    expect(request.attributes).toMatchObject({ "rpc.response.status_code": "-32602", "error.type": "-32602" });
  });

  it("takes the context the transport read, and starts a trace of its own without one", async () => {
    const core = createToolsCore(host);
    const answer = await core.call(
      { name: "echo.echo", args: { text: "hi" }, id: 7, trace: traceContextOf(TRACEPARENT, undefined) },
      { supports: supportsOf(undefined), transport: "tcp" },
    );
    expect("result" in answer).toBe(true);
    const request = requestSpanOf(await traceOf(TRACE_ID));
    expect(parentOf(request)).toBe(PARENT_ID);
    expect(request.attributes).toMatchObject({ "jsonrpc.request.id": "7", "network.transport": "tcp" });
    const untraced = await core.call({ name: "echo.echo", args: { text: "hi" } }, { supports: supportsOf(undefined) });
    const envelope = ("result" in untraced ? untraced.result.structuredContent : undefined) as {
      meta: { traceId: string };
    };
    expect(envelope.meta.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(parentOf(requestSpanOf(await traceOf(envelope.meta.traceId)))).toBeUndefined();
  });

  it("records a scope refused, a rate limit, a cancellation and an output-schema mismatch as events", async () => {
    const core = createToolsCore(host);
    const supports = supportsOf(undefined);
    const allowed = { id: "allowed", scopes: ["typed:call"] };
    const eventsOf = async (traceId: string, stage: string) =>
      (await traceOf(traceId))
        .filter((span) => span.name === `skillport.${stage}`)
        .flatMap((span) => span.events.map((event) => [event.name, event.attributes]));
    const refused = parentContext();
    await core.call(
      { name: "typed.drift", args: {}, trace: traceContextOf(refused.traceparent, undefined) },
      { supports, caller: { id: "narrow", scopes: [] } },
    );
    expect(await eventsOf(refused.traceId, "authorize")).toEqual([
      [TRACE_EVENTS.scopeRefused, { "skillport.scopes.missing": 1 }],
    ]);
    const drift = parentContext();
    await core.call(
      { name: "typed.drift", args: {}, trace: traceContextOf(drift.traceparent, undefined) },
      { supports, caller: allowed },
    );
    expect(await eventsOf(drift.traceId, "shape")).toEqual([
      [TRACE_EVENTS.outputSchemaMismatch, { "skillport.schema.at": "/data/words" }],
    ]);
    const holding = parentContext();
    const cancel = new AbortController();
    const held = core.call(
      { name: "typed.hold", args: {}, trace: traceContextOf(holding.traceparent, undefined) },
      { supports, caller: allowed, signal: cancel.signal },
    );
    const busy = parentContext();
    await core.call(
      { name: "typed.hold", args: {}, trace: traceContextOf(busy.traceparent, undefined) },
      { supports, caller: allowed },
    );
    expect(await eventsOf(busy.traceId, "execute")).toEqual([
      [TRACE_EVENTS.rateLimited, { "skillport.stage": "execute" }],
    ]);
    cancel.abort("the user stopped it");
    await held;
    expect(await eventsOf(holding.traceId, "execute")).toEqual([
      [TRACE_EVENTS.cancelled, { "skillport.stage": "execute" }],
    ]);
  });

  it("traces a tools/list as a request of its own", async () => {
    const { traceId, traceparent } = parentContext();
    await client.listTools({ _meta: { traceparent } });
    expect(requestSpanOf(await traceOf(traceId)).name).toBe("tools/list");
  });
});

describe("traces of a search", () => {
  it("gives search_tools a request span of its own, with its outcome and without the query", async () => {
    const exported = new sdkTrace.InMemorySpanExporter();
    const searching = await createHost({
      manifest: manifestOf({ skills: [{ path: ECHO, mcp: "echo" }], discovery: "search" }),
      logger: silentLogger(),
      tracing: { spanProcessors: [new sdkTrace.SimpleSpanProcessor(exported)] },
    });
    try {
      const answer = await createToolsCore(searching).call(
        { name: "search_tools", args: { query: `echo ${ARGUMENT}` }, trace: traceContextOf(TRACEPARENT, undefined) },
        { supports: supportsOf(undefined) },
      );
      expect("result" in answer && answer.result.isError).not.toBe(true);
      await searching.tracing?.flush();
      const spans = exported.getFinishedSpans().filter((span) => span.spanContext().traceId === TRACE_ID);
      const request = requestSpanOf(spans);
      expect(request.name).toBe("tools/call search_tools");
      expect(parentOf(request)).toBe(PARENT_ID);
      expect(request.attributes).toMatchObject({ "skillport.stage": "search", "skillport.outcome": "OK" });
      expect(textOf(spans)).not.toContain(ARGUMENT);
    } finally {
      await searching.close();
    }
  });
});

describe("trace context", () => {
  it("takes a W3C traceparent and ignores a malformed one", () => {
    expect(traceContextOf(TRACEPARENT, "a=1")).toEqual({ traceparent: TRACEPARENT, tracestate: "a=1" });
    expect(traceContextOf(TRACEPARENT, 5)).toEqual({ traceparent: TRACEPARENT });
    for (const bad of [
      undefined,
      42,
      "",
      `00-${"0".repeat(32)}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${"0".repeat(16)}-01`,
      `ff-${TRACE_ID}-${PARENT_ID}-01`,
      `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
      `${TRACEPARENT}-extra`,
    ]) {
      expect(traceContextOf(bad, undefined)).toBeUndefined();
    }
  });
});

describe("configuration", () => {
  it("is on only when the environment names an exporter or an OTLP endpoint", () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_SERVICE_NAME: "x" })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://x" })).toBe(false);
    expect(tracingConfigured({ OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" })).toBe(false);
  });

  it("loads nothing, and the host has no tracer, when it is off", async () => {
    const redactor = host.redactor;
    expect(await loadTracing({ redactor, logger: silentLogger(), env: {} })).toBeUndefined();
    const plain = await createHost({ manifest: manifestOf({ skills: [{ path: ECHO }] }), logger: silentLogger() });
    try {
      expect(plain.tracing).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
