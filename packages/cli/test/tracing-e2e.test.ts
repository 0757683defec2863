// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests write environment variables as ${NAME}, literally
// OpenTelemetry traces across real processes: an MCP client calls a hub (`skillport serve --http` with an upstream
// `servers` entry over HTTP), which calls an upstream Skillport host (`skillport serve --http`). Both export OTLP
// over HTTP (JSON) to a receiver on loopback, the third-party boundary faked by a node:http server. The spans of one
// call are one trace under the parent the client sent; the credential the hub holds for the upstream and the
// call's argument are in none of them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedHttp, Workspace } from "./workspace.js";
import { makeWorkspace, NOTES_SKILL, serveHttp } from "./workspace.js";

const SECRET = "canary-upstream-token-5c1e9a7d3f2b8e4a";
const ARGUMENT = "canaryargumentq7w3";
const PARENT_ID = "a1b2c3d4e5f60718";

/** A span as OTLP/JSON carries it (ids in hex). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
  events?: { name: string }[];
  service: string;
}

const SERVER = 2;
const CLIENT = 3;

/** The OTLP/HTTP receiver: every export's body as text, and its spans; `until` waits for spans to arrive. */
function otlpReceiver() {
  const bodies: string[] = [];
  const spans: OtlpSpan[] = [];
  const waiting: { check: () => boolean; resolve: () => void }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      bodies.push(text);
      if (request.url === "/v1/traces") {
        const body = JSON.parse(text) as {
          resourceSpans?: {
            resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
            scopeSpans?: { spans?: Omit<OtlpSpan, "service">[] }[];
          }[];
        };
        for (const resource of body.resourceSpans ?? []) {
          const service = resource.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? "";
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) spans.push({ ...span, service });
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const wait of waiting.splice(0)) {
        if (wait.check()) wait.resolve();
        else waiting.push(wait);
      }
    });
  });
  return {
    server,
    spans,
    bodies,
    /** Resolves once `check` holds of the spans received. */
    until(check: () => boolean): Promise<void> {
      if (check()) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ check, resolve }));
    },
  };
}

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
}

describe("traces through a hub to an upstream Skillport host", () => {
  const receiver = otlpReceiver();
  let ws: Workspace;
  let upstream: ServedHttp;
  let hub: ServedHttp;

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
    const { port } = receiver.server.address() as AddressInfo;
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "20",
    };
    ws = await makeWorkspace();
    const upstreamManifest = await ws.writeManifest(
      {
        name: "upstream",
        version: "3.1.0",
        skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }],
        http: { auth: { tokens: [{ name: "hub", token: { env: "UPSTREAM_TOKEN" } }] } },
      },
      "upstream.manifest.json",
    );
    upstream = serveHttp(["--manifest", upstreamManifest], ws.dir, { ...otel, UPSTREAM_TOKEN: SECRET });
    const hubManifest = await ws.writeManifest(
      {
        name: "hub",
        version: "1.0.0",
        skills: [],
        servers: [{ mcp: "up", url: await upstream.url, headers: { Authorization: "Bearer ${HUB_TOKEN}" } }],
      },
      "hub.manifest.json",
    );
    hub = serveHttp(["--manifest", hubManifest], ws.dir, { ...otel, HUB_TOKEN: SECRET });
    await hub.url;
  }, 60_000);
  afterAll(async () => {
    for (const served of [hub, upstream]) {
      served?.child.kill("SIGTERM");
      await served?.exit;
    }
    await new Promise((resolve) => receiver.server.close(resolve));
    await ws?.dispose();
  });

  /** Calls the hub's tool with a fresh trace; `via` says how the client sends its context. */
  async function tracedCall(via: "meta" | "header"): Promise<{ traceId: string; spans: OtlpSpan[] }> {
    const traceId = [...crypto.getRandomValues(new Uint8Array(16))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    const traceparent = `00-${traceId}-${PARENT_ID}-01`;
    const client = new Client({ name: "tracing-e2e", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(await hub.url), {
        requestInit: via === "header" ? { headers: { traceparent } } : {},
      }),
    );
    try {
      const result = await client.callTool({
        name: "up.notes.search_notes",
        arguments: { keyword: ARGUMENT },
        ...(via === "meta" ? { _meta: { traceparent } } : {}),
      });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { meta: { traceId: string } }).meta.traceId).toBe(traceId);
    } finally {
      await client.close();
    }
    const inTrace = () => receiver.spans.filter((span) => span.traceId === traceId);
    // Both hosts' request spans, and the hub's audit stage (its last span of the call).
    await receiver.until(() => {
      const spans = inTrace();
      return (
        spans.some((s) => s.service === "upstream" && s.name === "skillport.audit") &&
        spans.some((s) => s.service === "hub" && s.name === "skillport.audit") &&
        spans.filter((s) => s.kind === SERVER && s.name.startsWith("tools/call")).length === 2
      );
    });
    return { traceId, spans: inTrace() };
  }

  function checkTrace(spans: OtlpSpan[]): void {
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const hubRequest = spans.find((s) => s.service === "hub" && s.kind === SERVER && s.name.startsWith("tools/"));
    expect(hubRequest?.name).toBe("tools/call up.notes.search_notes");
    expect(hubRequest?.parentSpanId).toBe(PARENT_ID);
    expect(attribute(hubRequest as OtlpSpan, "mcp.method.name")).toBe("tools/call");
    expect(attribute(hubRequest as OtlpSpan, "gen_ai.tool.name")).toBe("up.notes.search_notes");
    expect(attribute(hubRequest as OtlpSpan, "skillport.outcome")).toBe("OK");
    // The hub's request to the upstream: a client span under its execute stage.
    const outgoing = spans.find((s) => s.service === "hub" && s.kind === CLIENT);
    expect(outgoing?.name).toBe("tools/call notes.search_notes");
    expect(byId.get(outgoing?.parentSpanId ?? "")?.name).toBe("skillport.execute");
    // The upstream's request span continues from it.
    const upstreamRequest = spans.find(
      (s) => s.service === "upstream" && s.kind === SERVER && s.name.startsWith("tools/"),
    );
    expect(upstreamRequest?.name).toBe("tools/call notes.search_notes");
    expect(upstreamRequest?.parentSpanId).toBe(outgoing?.spanId);
    expect(attribute(upstreamRequest as OtlpSpan, "skillport.skill.package")).toBe("@skillport/skill-notes");
    expect(attribute(upstreamRequest as OtlpSpan, "skillport.instance")).toBe("notes");
    // Every upstream stage hangs under the upstream request.
    const upstreamStages = spans.filter((s) => s.service === "upstream" && s.name.startsWith("skillport."));
    expect(upstreamStages.map((s) => s.parentSpanId)).toEqual(upstreamStages.map(() => upstreamRequest?.spanId));
  }

  it("is one trace under the client's parent, sent in _meta, and carries neither secret nor argument", async () => {
    const { spans } = await tracedCall("meta");
    checkTrace(spans);
    const exported = receiver.bodies.join("\n");
    expect(exported).not.toContain(SECRET);
    expect(exported).not.toContain(ARGUMENT);
  }, 30_000);

  it("is one trace under the client's parent sent as the HTTP traceparent header", async () => {
    const { spans } = await tracedCall("header");
    checkTrace(spans);
    const exported = receiver.bodies.join("\n");
    expect(exported).not.toContain(SECRET);
    expect(exported).not.toContain(ARGUMENT);
  }, 30_000);
});
