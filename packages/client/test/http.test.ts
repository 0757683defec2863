import { randomBytes } from "node:crypto";
import { connect } from "@skillport/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scratch, ServedHttp } from "./helpers.js";
import { notesManifest, scratch, serveHttp } from "./helpers.js";

const TOKEN = randomBytes(24).toString("hex");

describe("Streamable HTTP: a loopback skillport serve --http with a bearer token", () => {
  let where: Scratch;
  let served: ServedHttp;
  let url: string;

  beforeAll(async () => {
    where = await scratch();
    const manifest = await notesManifest(where, {
      http: { auth: { tokens: [{ name: "client-test", token: { env: "CLIENT_TEST_TOKEN" } }] } },
    });
    served = serveHttp(manifest, { CLIENT_TEST_TOKEN: TOKEN });
    url = await served.url;
  });
  afterAll(async () => {
    await served?.stop();
    await where?.dispose();
  });

  it.each([
    ["auto", "2026-07-28"],
    ["2026-07-28", "2026-07-28"],
    ["2025-11-25", "2025-11-25"],
  ] as const)("protocol %s speaks the %s era: lists, calls and refuses as values", async (protocol, era) => {
    const seen: string[] = [];
    const handle = connect({
      transport: "http",
      url,
      protocol,
      bearer: TOKEN,
      fetch: (input, init) => {
        const version = new Headers(init?.headers).get("mcp-protocol-version");
        if (version !== null) seen.push(version);
        return fetch(input, init);
      },
    });
    const started = await handle.start();
    expect(started.ok).toBe(true);
    const search = started.ok ? started.tools.find((t) => t.name === "notes.search_notes") : undefined;
    expect(search?.inputSchema).toMatchObject({ type: "object", required: ["keyword"] });
    const found = await handle.callTool("notes.search_notes", { keyword: "agent", limit: 2 });
    expect(found.ok).toBe(true);
    expect(found.ok && (found.result.structuredContent as { ok: boolean }).ok).toBe(true);
    const refused = await handle.callTool("notes.search_notes", { keyword: "a" });
    expect(refused).toMatchObject({ ok: false, error: { code: "TOOL_ERROR" } });
    expect(refused.ok ? "" : refused.error.message).toContain("keyword");
    const unknown = await handle.callTool("notes.nope");
    expect(unknown).toMatchObject({ ok: false, error: { code: "PROTOCOL_ERROR" } });
    expect(seen).toContain(era);
    await handle.stop();
  });

  it.each(["2026-07-28", "2025-11-25"] as const)(
    "protocol %s: the host's resources and templates on the handle; a note outside the allowed folders is refused",
    async (protocol) => {
      const handle = connect({ transport: "http", url, protocol, bearer: TOKEN });
      const resources = await handle.listResources();
      const uris = resources.ok ? resources.resources.map((r) => r.uri) : [];
      const basics = uris.find((uri) => uri.endsWith("AI-Agent/mcp-basics.md"));
      expect(basics).toBeDefined();
      expect(uris.some((uri) => uri.includes("Private/"))).toBe(false);
      const read = await handle.readResource(basics ?? "");
      expect(read).toMatchObject({ ok: true, contents: [{ uri: basics, mimeType: "text/markdown" }] });
      expect(read.ok ? read.contents[0]?.text : "").toMatch(/MCP/);
      const templates = await handle.listResourceTemplates();
      const template = templates.ok ? templates.resourceTemplates[0]?.uriTemplate : undefined;
      expect(template).toContain("{+path}");
      const secret = await handle.readResource((basics ?? "").replace("AI-Agent/mcp-basics.md", "Private/finances.md"));
      expect(secret).toMatchObject({ ok: false, error: { code: "PROTOCOL_ERROR" } });
      expect(JSON.stringify(secret)).not.toContain("SECRET-PRIVATE-MARKER");
      expect(await handle.listPrompts()).toEqual({ ok: true, prompts: [] });
      await handle.stop();
    },
  );

  it("callTool's meta goes as the request's _meta, its trace context as HTTP headers too", async () => {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const sent: { headers: Headers; body: unknown }[] = [];
    const handle = connect({
      transport: "http",
      url,
      bearer: TOKEN,
      fetch: (input, init) => {
        if (typeof init?.body === "string")
          sent.push({ headers: new Headers(init.headers), body: JSON.parse(init.body) });
        return fetch(input, init);
      },
    });
    const found = await handle.callTool(
      "notes.search_notes",
      { keyword: "agent" },
      { meta: { traceparent, tracestate: "vendor=1" }, onProgress: () => undefined },
    );
    expect(found.ok).toBe(true);
    const call = sent.find((s) => (s.body as { method?: string }).method === "tools/call");
    expect(call).toBeDefined();
    expect((call?.body as { params?: { _meta?: unknown } } | undefined)?.params?._meta).toMatchObject({
      traceparent,
      tracestate: "vendor=1",
      progressToken: expect.any(String),
    });
    expect(call?.headers.get("traceparent")).toBe(traceparent);
    expect(call?.headers.get("tracestate")).toBe("vendor=1");
    // A request without trace context goes as it was.
    const list = sent.find((s) => (s.body as { method?: string }).method === "tools/list");
    expect(list?.headers.get("traceparent")).toBeNull();
    await handle.stop();
  });

  it("a wrong token answers UNAUTHORIZED at start, as a value", async () => {
    const handle = connect({ transport: "http", url, bearer: "not-the-token-at-all" });
    const started = await handle.start();
    expect(started).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED", status: 401 } });
    expect(handle.state.value).toBe("error");
  });

  it("a missing bearer credential sends no request at all", async () => {
    let requests = 0;
    const handle = connect({
      transport: "http",
      url,
      bearer: { env: "SKILLPORT_CLIENT_TEST_UNSET" },
      fetch: (input, init) => {
        requests++;
        return fetch(input, init);
      },
    });
    const outcome = await handle.callTool("notes.search_notes", { keyword: "agent" });
    expect(outcome).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING", credential: "bearer" } });
    expect(requests).toBe(0);
  });

  it("a credential as a header of its own, and a server that is gone answers UNAVAILABLE", async () => {
    const headerHandle = connect({
      transport: "http",
      url,
      credentials: { token: { from: { value: TOKEN }, to: { header: "Authorization", prefix: "Bearer " } } },
    });
    expect((await headerHandle.start()).ok).toBe(true);
    await headerHandle.stop();
    const gone = connect({ transport: "http", url: "http://127.0.0.1:9/mcp", protocol: "2025-11-25" });
    expect(await gone.start()).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
  });

  it("connect() of the root entry takes HTTP only, and says where the others are", () => {
    expect(() => connect({ transport: "stdio" } as never)).toThrow(/@skillport\/client\/node/);
  });
});
