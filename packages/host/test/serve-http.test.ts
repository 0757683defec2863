import { request as httpRequest } from "node:http";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "./http-helpers.js";
import { capturingLogger, connect, ERAS, messagesOf, raw, rpc, startServer } from "./http-helpers.js";

type Envelope = {
  ok: boolean;
  message: string;
  // biome-ignore lint/suspicious/noExplicitAny: each tool's data has its own shape; the assertions say which
  data?: any;
  error?: { code: string; retryable: boolean };
  meta: { tool: string; toolVersion: string };
};

/** A tools/call body as each era's client sends it; the 2026 era carries its `_meta` envelope on every request. */
function toolsCall(era: "legacy" | "modern", name: string, args: unknown) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const params = { name, arguments: args, ...(era === "modern" ? { _meta: meta } : {}) };
  const headers: Record<string, string> =
    era === "modern" ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name } : {};
  return { headers, body: rpc("tools/call", params, 7) };
}

describe.each(ERAS)("serveHostHttp, $era era, driven by the SDK client", ({ options }) => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startServer();
    client = await connect(server.url, options);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it("lists the tools with schemas and annotations, and calls one", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "probe.echo",
      "probe.whoami",
      "probe.write_thing",
      "probe.wait",
      "probe.sleep",
    ]);
    expect(tools[0]?.annotations).toMatchObject({ readOnlyHint: true });
    const result = await client.callTool({ name: "probe.echo", arguments: { text: "héllo" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      ok: true,
      data: { text: "héllo" },
      meta: { tool: "probe.echo", toolVersion: "0.2.0" },
    });
  });

  it("validates arguments on the server and answers an unknown tool with a JSON-RPC error", async () => {
    const bad = await client.callTool({ name: "probe.echo", arguments: { text: 3 } });
    expect(bad.isError).toBe(true);
    expect((bad.structuredContent as Envelope).error).toMatchObject({ code: "ARGUMENT_INVALID" });
    await expect(client.callTool({ name: "probe.nope", arguments: {} })).rejects.toThrow(/unknown tool "probe.nope"/);
  });

  it("streams progress notifications before the result", async () => {
    const progress: unknown[] = [];
    const result = await client.callTool(
      { name: "probe.sleep", arguments: { id: "progress", ms: 50 } },
      { onprogress: (p) => progress.push(p) },
    );
    expect(progress).toEqual([{ progress: 1, total: 2, message: "sleeping" }]);
    expect(result.structuredContent).toMatchObject({ ok: true, data: { slept: 50 } });
  });

  it("gives the skill the anonymous caller on an unauthenticated loopback server", async () => {
    const result = await client.callTool({ name: "probe.whoami", arguments: {} });
    expect((result.structuredContent as Envelope).data.auth).toEqual({ id: "anonymous", scopes: [] });
  });
});

describe.each([
  ["2025-11-25", "legacy"],
  ["2026-07-28", "modern"],
] as const)("a client that disconnects mid-call (%s era)", (_era, era) => {
  let server: TestServer;
  const logs = capturingLogger();

  beforeAll(async () => {
    server = await startServer({}, { logger: logs.logger });
  });
  afterAll(() => server?.stop());

  it("aborts the skill's ctx.signal", async () => {
    const url = new URL(server.url);
    const { headers, body } = toolsCall(era, "probe.wait", { id: era });
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    });
    req.on("error", () => undefined); // the test destroys it
    req.end(body);
    await server.recorded(`started ${era}`);
    expect(server.serving.inFlight).toBe(1);
    const done = logs.next((line) => line.msg === "http request" && line.disconnected === true);
    req.destroy();
    await server.recorded(`aborted ${era}`);
    // The request's line is logged once it is no longer counted.
    await done;
    expect(server.serving.inFlight).toBe(0);
  });
});

describe("health, readiness and metrics", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  const at = (path: string) => raw(server.url, { method: "GET", path });

  it("answers /healthz and /readyz", async () => {
    expect((await at("/healthz")).json()).toEqual({ status: "ok" });
    const ready = await at("/readyz");
    expect(ready.status).toBe(200);
    // A serving replica lists itself among the ready replicas of its state store (here: this process's memory).
    const body = ready.json() as { state: { replica: string; replicas: string[] } };
    expect(body).toEqual({
      status: "ready",
      skills: 1,
      tools: 5,
      state: { store: "memory", reachable: true, replica: expect.any(String), replicas: [body.state.replica] },
    });
    expect((await at("/nowhere")).status).toBe(404);
    expect((await raw(server.url, { path: "/healthz" })).status).toBe(405);
  });

  it("serves Prometheus metrics that parse, counting calls by tool and outcome", async () => {
    await raw(server.url, { body: rpc("tools/call", { name: "probe.echo", arguments: { text: "a" } }) });
    await raw(server.url, { body: rpc("tools/call", { name: "probe.echo", arguments: {} }) });
    await raw(server.url, { body: rpc("tools/call", { name: "probe.nope", arguments: {} }) });
    const metrics = await at("/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parsePrometheus(metrics.text);
    expect(samples.get('skillport_tool_calls_total{tool="probe.echo",outcome="ok"}')).toBe(1);
    expect(samples.get('skillport_tool_calls_total{tool="probe.echo",outcome="ARGUMENT_INVALID"}')).toBe(1);
    expect(samples.get('skillport_tool_calls_total{tool="(unknown)",outcome="UNKNOWN_TOOL"}')).toBe(1);
    expect(samples.get('skillport_tool_call_duration_seconds_count{tool="probe.echo"}')).toBe(2);
    expect(samples.get('skillport_tool_call_duration_seconds_bucket{le="+Inf",tool="probe.echo"}')).toBe(2);
    expect(samples.get("skillport_tool_calls_in_flight")).toBe(0);
    expect(samples.get('skillport_http_responses_total{code="200"}')).toBeGreaterThanOrEqual(3);
    expect(samples.has("skillport_process_resident_memory_bytes")).toBe(true);
    expect(metrics.text).toContain("# TYPE skillport_skill_load_failures_total counter");
  });
});

describe("graceful shutdown", () => {
  it("stops accepting, lets an in-flight call finish, then closes", async () => {
    const server = await startServer();
    const slow = raw(server.url, {
      body: rpc("tools/call", { name: "probe.sleep", arguments: { id: "slow", ms: 400 } }),
    });
    await server.recorded("started slow");
    const closing = server.serving.close({ graceMs: 5_000 });
    // It stops listening once it has left the shared state (a turn or two later): each try is a connection, until one
    // is refused; a try that got in before is closed on it, and tried again.
    while (!(await refused(server.url))) {}
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(messagesOf(answer.text)[0].result.structuredContent).toMatchObject({ ok: true, data: { slept: 400 } });
    expect(await closing).toEqual({ drained: true });
    expect(await server.lines()).toEqual(["started slow", "finished slow"]);
    await server.stop();
  });

  it("aborts what is still running when the grace period ends", async () => {
    const server = await startServer();
    const stuck = raw(server.url, { body: rpc("tools/call", { name: "probe.wait", arguments: { id: "stuck" } }) });
    stuck.catch(() => undefined);
    await server.recorded("started stuck");
    expect(await server.serving.close({ graceMs: 100 })).toEqual({ drained: false });
    await server.recorded("aborted stuck");
    await server.stop();
  });
});

/** Whether a connection to the server is refused (ECONNREFUSED) rather than answered or closed. */
function refused(url: string): Promise<boolean> {
  return raw(url, { method: "GET", path: "/healthz" }).then(
    () => false,
    (error: Error) => {
      if (/ECONNREFUSED/.test(error.message)) return true;
      if (/socket hang up|ECONNRESET/.test(error.message)) return false;
      throw error;
    },
  );
}

/** Parses the Prometheus text format strictly enough to fail on a malformed line: sample → value. */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (\S+)$/;
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
    const match = sample.exec(line);
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`);
    const value = Number(match[2] === "+Inf" ? Number.POSITIVE_INFINITY : match[2]);
    if (Number.isNaN(value)) throw new Error(`not a number: ${line}`);
    samples.set(match[1] as string, value);
  }
  return samples;
}
