// The composed web handler over a real host (the probe fixture), called with `handle(new Request(…))`: every guard
// in its place, the MCP SDK last, the server's own routes beside it. No socket.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../../src/host.js";
import { createHostHttpHandler } from "../../src/mcp/serve-http.js";
import { resolveHttpConfig } from "../../src/transports/http/config.js";
import type { HttpHandler, ServeState } from "../../src/transports/http/handler.js";
import { createMetrics } from "../../src/transports/http/metrics.js";
import { RESERVED_PATHS } from "../../src/transports/http/routes.js";
import { manifestOf, silentLogger } from "../helpers.js";
import { ERAS, messagesOf, PROBE } from "../http-helpers.js";
import { contextOf, countingStream, post, rpc, rpcErrorOf, URL_OF_MCP } from "./web-helpers.js";

const TOKEN = "writer-token-0123456789abcdef";
const LISTED = "http://localhost:5173";
const bearer = { authorization: `Bearer ${TOKEN}` };
const whoami = rpc("tools/call", { name: "probe.whoami", arguments: {} });

interface Edge {
  handle: HttpHandler;
  state: ServeState;
  record: string;
  lines(): Promise<string[]>;
  dispose(): Promise<void>;
}

/** The web handler of a host over the probe skill, with `http` as the manifest's http object. */
async function edgeOf(http: unknown = {}): Promise<Edge> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-web-"));
  const record = path.join(dir, "record.log");
  const host = await createHost({
    manifest: manifestOf({
      name: "probe-server",
      version: "9.9.9",
      skills: [{ path: PROBE, config: { record }, scopes: { write_thing: ["things:write"] } }],
      http,
      audit: { file: path.join(dir, "audit.log") },
    }),
    logger: silentLogger(),
  });
  const config = await resolveHttpConfig(host.manifest, { env: { WEB_TOKEN: TOKEN } });
  const state: ServeState = { draining: false, resource: "http://localhost:3333/mcp" };
  const { handle, close } = createHostHttpHandler(host, config, {
    metrics: createMetrics({ processMetrics: false }),
    state,
  });
  return {
    handle,
    state,
    record,
    lines: async () => (await readFile(record, "utf8").catch(() => "")).split("\n").filter((l) => l !== ""),
    dispose: async () => {
      await close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const WITH_TOKEN = {
  allowedOrigins: [LISTED],
  rateLimit: { requestsPerMinute: 60, burst: 20 },
  maxBodyBytes: 4096,
  auth: { tokens: [{ name: "writer", scopes: ["things:write"], token: { env: "WEB_TOKEN" } }] },
};

describe("the composed web handler, driven by the SDK client through fetch (no socket)", () => {
  let edge: Edge;

  beforeAll(async () => {
    edge = await edgeOf(WITH_TOKEN);
  });
  afterAll(() => edge?.dispose());

  it.each(ERAS)("lists and calls tools as the token's caller in the $era era", async ({ options }) => {
    const transport = new StreamableHTTPClientTransport(new URL(URL_OF_MCP), {
      authProvider: { token: async () => TOKEN },
      // What a socket adds for a client: the Host header.
      fetch: (url, init) => {
        const request = new Request(url, init);
        request.headers.set("host", new URL(url).host);
        return edge.handle(request, contextOf());
      },
    });
    const client = new Client({ name: "web-test", version: "0.0.0" }, options as never);
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("probe.whoami");
      const result = await client.callTool({ name: "probe.whoami", arguments: {} });
      expect((result.structuredContent as { data: { auth: unknown } }).data.auth).toEqual({
        id: "token:writer",
        scopes: ["things:write"],
      });
      expect(JSON.stringify(result)).not.toContain(TOKEN);
    } finally {
      await client.close();
    }
  });
});

describe("the guards, in order, through the composed handler", () => {
  let edge: Edge;

  beforeAll(async () => {
    edge = await edgeOf(WITH_TOKEN);
  });
  afterAll(() => edge?.dispose());
  afterEach(() => {
    edge.state.draining = false;
  });

  it("checks the Host first: a bad Host with an unlisted origin and no token answers 400", async () => {
    const answer = await edge.handle(post(whoami, { host: "evil.com@localhost", origin: "http://evil.example" }));
    expect(answer.status).toBe(400);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("then the Origin: an unlisted page answers 403 before the method or the token are looked at", async () => {
    const request = new Request(URL_OF_MCP, { method: "DELETE", headers: { host: "localhost", origin: "null" } });
    const answer = await edge.handle(request);
    expect(answer.status).toBe(403);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("then the method, with CORS for a listed page", async () => {
    const request = new Request(URL_OF_MCP, { method: "GET", headers: { host: "localhost", origin: LISTED } });
    const answer = await edge.handle(request);
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST, OPTIONS");
    expect(answer.headers.get("access-control-allow-origin")).toBe(LISTED);
  });

  it("answers a listed page's preflight without a token: browsers send none", async () => {
    const request = new Request(URL_OF_MCP, {
      method: "OPTIONS",
      headers: { host: "localhost", origin: LISTED, "access-control-request-method": "POST" },
    });
    const answer = await edge.handle(request);
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(answer.headers.get("vary")).toBe("origin");
    expect(answer.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
  });

  it("answers 503 while draining, before authentication", async () => {
    edge.state.draining = true;
    const answer = await edge.handle(post(whoami));
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("1");
  });

  it("authenticates before reading the body: an unauthenticated client cannot make the server read its upload", async () => {
    const { stream, seen } = countingStream(Number.POSITIVE_INFINITY, 1000);
    const request = new Request(URL_OF_MCP, {
      method: "POST",
      headers: { host: "localhost", origin: LISTED, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const answer = await edge.handle(request);
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe(
      'Bearer realm="skillport", resource_metadata="http://localhost:3333/.well-known/oauth-protected-resource/mcp"',
    );
    expect(answer.headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(seen.pulled).toBe(0);
  });

  it("reads the body of an authenticated caller up to http.maxBodyBytes only", async () => {
    const { stream, seen } = countingStream(Number.POSITIVE_INFINITY, 1000);
    const request = new Request(URL_OF_MCP, {
      method: "POST",
      headers: { host: "localhost", "content-type": "application/json", ...bearer },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const answer = await edge.handle(request);
    expect(answer.status).toBe(413);
    expect(answer.headers.get("connection")).toBe("close");
    expect(seen.pulled).toBe(5);
  });

  it("refuses a batch of calls with -32600 and runs none of them", async () => {
    const batch = ["a", "b", "c"].map((id, i) =>
      JSON.parse(rpc("tools/call", { name: "probe.sleep", arguments: { id, ms: 0 } }, i + 1)),
    );
    const answer = await edge.handle(post(JSON.stringify(batch), bearer));
    expect(answer.status).toBe(400);
    expect((await rpcErrorOf(answer)).code).toBe(-32600);
    expect(await edge.lines()).toEqual([]);
  });

  it("serves one message from the body the guards read, and the scopes of the caller they found", async () => {
    const answer = await edge.handle(post(rpc("tools/call", { name: "probe.write_thing", arguments: {} }), bearer));
    expect(answer.status).toBe(200);
    expect(messagesOf(await answer.text())[0].result.structuredContent).toMatchObject({
      ok: true,
      data: { written: true },
    });
  });

  it("answers a body that is not JSON with the SDK's parse error", async () => {
    const answer = await edge.handle(post("{ nope", bearer));
    expect(answer.status).toBe(400);
    expect((await rpcErrorOf(answer)).code).toBe(-32700);
  });

  it("limits by caller once authenticated, with CORS on the 429", async () => {
    const limited = await edgeOf({ ...WITH_TOKEN, rateLimit: { requestsPerMinute: 60, burst: 1 } });
    try {
      const send = () => limited.handle(post(whoami, { ...bearer, origin: LISTED }));
      expect((await send()).status).toBe(200);
      const answer = await send();
      expect(answer.status).toBe(429);
      expect(answer.headers.get("access-control-allow-origin")).toBe(LISTED);
      expect((await rpcErrorOf(answer)).message).toContain('too many requests from "token:writer"');
    } finally {
      await limited.dispose();
    }
  });
});

describe("the server's own routes", () => {
  let edge: Edge;

  beforeAll(async () => {
    edge = await edgeOf(WITH_TOKEN);
  });
  afterAll(() => edge?.dispose());

  const get = (path: string, headers: Record<string, string> = {}) =>
    edge.handle(new Request(`http://localhost:3333${path}`, { headers }));

  it("answers /healthz, /readyz and /metrics without Host check or token", async () => {
    expect(await (await get("/healthz", { host: "evil.example" })).json()).toEqual({ status: "ok" });
    expect(await (await get("/readyz")).json()).toEqual({
      status: "ready",
      skills: 1,
      tools: 5,
      // Not served over a socket, so not among the ready replicas.
      state: { store: "memory", reachable: true, replicas: [] },
    });
    const metrics = await get("/metrics");
    expect(metrics.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await metrics.text()).toContain("# TYPE skillport_tool_calls_total counter");
  });

  it("turns /readyz to 503 once draining", async () => {
    edge.state.draining = true;
    try {
      const ready = await get("/readyz");
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "draining" });
    } finally {
      edge.state.draining = false;
    }
  });

  it("serves the protected-resource metadata at the configured public URL, whatever the request says", async () => {
    const metadata = await get("/.well-known/oauth-protected-resource/mcp", { host: "evil.example" });
    expect(metadata.headers.get("cache-control")).toBe("max-age=3600");
    expect(await metadata.json()).toEqual({
      resource: "http://localhost:3333/mcp",
      bearer_methods_supported: ["header"],
      scopes_supported: ["things:write"],
      resource_name: "probe-server",
    });
  });

  it("answers 405 with Allow: GET, HEAD for another method on a route, and 404 elsewhere", async () => {
    const posted = await edge.handle(new Request("http://localhost:3333/healthz", { method: "POST", body: "x" }));
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET, HEAD");
    const nowhere = await get("/nowhere");
    expect(nowhere.status).toBe(404);
    expect(await nowhere.json()).toEqual({
      error: "not_found",
      message: "nothing at /nowhere; the MCP endpoint is /mcp",
    });
    const postedNowhere = await edge.handle(new Request("http://localhost:3333/nowhere", { method: "PUT" }));
    expect(await postedNowhere.json()).toEqual({ error: "not_found" });
  });

  it("serves no metadata without authentication", async () => {
    const open = await edgeOf();
    try {
      expect((await open.handle(new Request("http://localhost/.well-known/oauth-protected-resource"))).status).toBe(
        404,
      );
    } finally {
      await open.dispose();
    }
  });
});

describe("one list of reserved paths", () => {
  it.each(RESERVED_PATHS)("%s is answered by the server and refused as the MCP endpoint's path", async (reserved) => {
    const edge = await edgeOf();
    try {
      expect((await edge.handle(new Request(`http://localhost${reserved}`))).status).toBe(200);
    } finally {
      await edge.dispose();
    }
    const manifest = manifestOf({ skills: [], http: { path: reserved } });
    await expect(resolveHttpConfig(manifest)).rejects.toThrow(`path: "${reserved}" is taken by the server itself`);
  });

  it("covers what the README promises: /healthz, /readyz and /metrics", () => {
    expect([...RESERVED_PATHS].sort()).toEqual(["/healthz", "/metrics", "/readyz"]);
  });
});
