import { request as httpRequest } from "node:http";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { linesOf, untilLines } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, NOTES_SKILL, REPO, runCli, type ServedHttp as Served, serveHttp } from "./workspace.js";

const PROBE_SKILL = path.join(REPO, "packages/host/test/fixtures/skill-probe");

const ERAS = [
  { era: "2025-11-25 (initialize)", options: {} },
  { era: "2026-07-28 (stateless)", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } },
] as const;

async function connect(url: string, options: object): Promise<Client> {
  const client = new Client({ name: "skillport-cli-test", version: "0.0.0" }, options as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function refused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpRequest(new URL("/healthz", url), (res) => {
      res.resume();
      resolve(false);
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
    req.end();
  });
}

describe("skillport serve --http, a real process driven by the SDK client", () => {
  let ws: Workspace;
  let served: Served;
  let url: string;
  let record: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    record = path.join(ws.dir, "record.log");
    const manifest = await ws.writeManifest(
      {
        name: "http-test",
        version: "1.0.0",
        skills: [
          { path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } },
          { path: PROBE_SKILL, config: { record } },
        ],
        http: { shutdownGraceMs: 10_000 },
      },
      "http.manifest.json",
    );
    served = serveHttp(["--manifest", manifest], ws.dir);
    url = await served.url;
  });
  afterAll(async () => {
    if (served?.child.exitCode === null) served.child.kill("SIGKILL");
    await ws?.dispose();
  });

  const lines = () => linesOf(record);
  /** Resolves once the probe has recorded `line`. */
  const recorded = (line: string) => untilLines(record, (seen) => seen.includes(line));

  it("logs the bound URL on an ephemeral loopback port", () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(url).not.toContain(":3333/");
  });

  it.each(ERAS)("lists and calls tools in the $era era", async ({ options }) => {
    const client = await connect(url, options);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("notes.search_notes");
      const result = await client.callTool({ name: "notes.search_notes", arguments: { keyword: "agent" } });
      expect(result.structuredContent).toMatchObject({ ok: true, meta: { tool: "notes.search_notes" } });
    } finally {
      await client.close();
    }
  });

  it("aborts a skill's signal when its HTTP client disconnects", async () => {
    const req = httpRequest(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    });
    req.on("error", () => undefined);
    req.end(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "probe.wait", arguments: { id: "gone" } },
      }),
    );
    await recorded("started gone");
    req.destroy();
    await recorded("aborted gone");
  });

  it("on SIGTERM stops accepting, lets the in-flight call finish, and exits 0", async () => {
    const client = await connect(url, ERAS[1].options);
    const slow = client.callTool({ name: "probe.sleep", arguments: { id: "drain", ms: 1_500 } });
    await recorded("started drain");
    served.child.kill("SIGTERM");
    await served.stderrUntil((text) => text.includes('"msg":"shutting down: no new connections"'));
    // It stops listening right after saying so: each try is a connection, refused once it has.
    while (!(await refused(url))) {}
    const result = await slow;
    expect(result.structuredContent).toMatchObject({ ok: true, data: { slept: 1_500 } });
    expect(await served.exit).toBe(0);
    expect(await lines()).toContain("finished drain");
    expect(served.stderr()).toMatch(/"msg":"stopped"/);
    await client.close();
  });
});

describe("skillport serve --http refuses unsafe or broken setups", () => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => ws.dispose());

  it("will not bind beyond loopback without authentication, and says how to configure it", async () => {
    const { code, stderr } = await runCli(["serve", "--http", "--host", "0.0.0.0", "--port", "0"], ws.dir);
    expect(code).toBe(1);
    expect(stderr).toContain("refusing to serve on 0.0.0.0 without authentication");
    expect(stderr).toContain('"auth": { "tokens"');
  });

  it("names a missing token variable", async () => {
    const manifest = await ws.writeManifest(
      {
        skills: [{ path: NOTES_SKILL, config: { vault: "./vault" } }],
        http: { auth: { tokens: [{ name: "ci", token: { env: "SKILLPORT_NO_SUCH_TOKEN" } }] } },
      },
      "token.json",
    );
    const { code, stderr } = await runCli(["serve", "--http", "--manifest", manifest, "--port", "0"], ws.dir);
    expect(code).toBe(1);
    expect(stderr).toContain("SKILLPORT_NO_SUCH_TOKEN is not set");
  });

  it("refuses --stdio with --http and a port that is not a number", async () => {
    expect((await runCli(["serve", "--http", "--stdio"], ws.dir)).code).toBe(2);
    const bad = await runCli(["serve", "--http", "--port", "eighty"], ws.dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port takes a whole number, got "eighty"');
  });
});

describe("skillport serve --http --banner", () => {
  it("prints the URL, the tool table and ready-to-paste client configs, and stops on SIGINT", async () => {
    const ws = await makeWorkspace();
    try {
      const served = serveHttp(["--banner"], ws.dir);
      const url = await served.url;
      // The banner ends with the two stdio setups (Claude Desktop or Cursor, and VS Code).
      await served.stderrUntil((text) => text.split('"--stdio"').length === 3);
      const banner = served.stderr();
      expect(banner).toContain(`MCP endpoint  ${url}`);
      expect(banner).toMatch(/notes\.search_notes\s+read_only\s+Search notes/);
      expect(banner).toContain(`claude mcp add --transport http skillport ${url}`);
      expect(banner).toContain(`"type": "http",\n      "url": "${url}"`);
      expect(banner).toContain('"--stdio"'); // Claude Desktop spawns its own copy
      expect(banner).toContain(`curl -s ${url} `);
      served.child.kill("SIGINT");
      expect(await served.exit).toBe(0);
    } finally {
      await ws.dispose();
    }
  });
});
