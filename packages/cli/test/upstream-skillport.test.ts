// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests write environment variables as ${NAME}, literally
// A Skillport host as the upstream of another Skillport host, over stdio and over HTTP. The caller's bearer token
// never reaches the upstream: the upstream accepts two tokens, its own for the outer host ("outer") and the very
// token the outer host's caller holds ("caller"), and its audit log says who called it on every call. The upstream
// is a real `skillport serve` process; the outer host is built as the command builds it and served in this process.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpInProcess } from "./in-process.js";
import { httpInProcess, stdioInProcess } from "./in-process.js";
import type { ServedHttp, Workspace } from "./workspace.js";
import { CLI, makeWorkspace, NOTES_SKILL, serveHttp } from "./workspace.js";

type Envelope = { ok: boolean; message: string; data?: unknown; error?: { code: string; field?: string } };

const CALLER_TOKEN = "caller-token-0b7f3c9e1a2d4e5f";
const OUTER_TOKEN = "outer-token-9d8c7b6a5f4e3d2c";

describe("a Skillport host as an upstream server", () => {
  let ws: Workspace;
  let inner: ServedHttp;
  let outer: HttpInProcess;
  let outerAudit: string;
  let innerManifest: string;
  let innerAudit: string;
  let client: Client;

  beforeAll(async () => {
    ws = await makeWorkspace();
    innerAudit = path.join(ws.dir, "inner-audit.log");
    innerManifest = await ws.writeManifest(
      {
        name: "inner",
        skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }],
        audit: { file: innerAudit },
        http: {
          auth: {
            tokens: [
              { name: "outer", token: { env: "INNER_OUTER_TOKEN" } },
              { name: "caller", token: { env: "INNER_CALLER_TOKEN" } },
            ],
          },
        },
      },
      "inner.manifest.json",
    );
    inner = serveHttp(["--manifest", innerManifest], ws.dir, {
      INNER_OUTER_TOKEN: OUTER_TOKEN,
      INNER_CALLER_TOKEN: CALLER_TOKEN,
      SKILLPORT_LOG_LEVEL: "info",
    });
    const innerUrl = await inner.url;
    outerAudit = path.join(ws.dir, "outer-audit.log");
    const outerManifest = await ws.writeManifest(
      {
        name: "outer",
        skills: [],
        servers: [{ mcp: "inner", url: innerUrl, headers: { Authorization: "Bearer ${INNER_TOKEN}" } }],
        http: { auth: { tokens: [{ name: "client", token: { env: "OUTER_CLIENT_TOKEN" } }] } },
        audit: { file: outerAudit },
      },
      "outer.manifest.json",
    );
    outer = await httpInProcess(outerManifest, {
      env: { INNER_TOKEN: OUTER_TOKEN, OUTER_CLIENT_TOKEN: CALLER_TOKEN },
      logLevel: "info",
    });
    client = new Client({ name: "upstream-test", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(outer.url), {
        requestInit: { headers: { Authorization: `Bearer ${CALLER_TOKEN}` } },
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await outer?.close();
    inner?.child.kill("SIGTERM");
    await inner?.exit;
    await ws.dispose();
  });

  it("over HTTP: its tools are namespaced, its envelopes kept, its errors keep their codes", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["inner.notes.search_notes"]));
    const found = (await client.callTool({ name: "inner.notes.search_notes", arguments: { keyword: "agent" } }))
      .structuredContent as Envelope;
    expect(found.ok).toBe(true);
    // The upstream's envelope is unwrapped: its data is the data, not an envelope inside an envelope.
    expect(found.data).toMatchObject({ hits: expect.any(Array) });
    const missing = (
      await client.callTool({ name: "inner.notes.read_note", arguments: { path: "AI-Agent/missing-note.md" } })
    ).structuredContent as Envelope;
    expect(missing).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });

  it("never forwards the caller's token: the upstream sees only the token its entry names", async () => {
    await client.callTool({ name: "inner.notes.search_notes", arguments: { keyword: "mcp" } });
    const lines = (await readFile(innerAudit, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { caller?: string; tool: string });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.map((l) => l.caller)).toEqual(lines.map(() => "token:outer"));
    // Neither token in the outer host's log lines or audit.
    const said = outer.stderr() + (await readFile(outerAudit, "utf8"));
    expect(said).toContain("inner.notes.search_notes");
    expect(said).not.toContain(OUTER_TOKEN);
    expect(said).not.toContain(CALLER_TOKEN);
  });

  it("over stdio: the upstream host is a child process the outer host starts", async () => {
    const outerManifest = await ws.writeManifest(
      {
        name: "outer-stdio",
        skills: [],
        servers: [
          {
            mcp: "inner",
            command: process.execPath,
            args: [CLI, "serve", "--stdio", "--manifest", innerManifest],
            env: { SKILLPORT_LOG_LEVEL: "silent" },
          },
        ],
      },
      "outer-stdio.manifest.json",
    );
    const connected = await stdioInProcess(outerManifest);
    try {
      const found = (
        await connected.client.callTool({ name: "inner.notes.search_notes", arguments: { keyword: "agent" } })
      ).structuredContent as Envelope;
      expect(found).toMatchObject({ ok: true, data: { hits: expect.any(Array) } });
      // The upstream's published schema is checked by the outer host first.
      const invalid = (await connected.client.callTool({ name: "inner.notes.search_notes", arguments: {} }))
        .structuredContent as Envelope;
      expect(invalid).toMatchObject({ ok: false, error: { code: "ARGUMENT_INVALID" } });
    } finally {
      await connected.close();
    }
  }, 60_000);
});
