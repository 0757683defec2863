// A hostile upstream schema cannot freeze the host: a remote server publishes "^(a+)+$" with no maxLength in an
// input schema and in an output schema (the client's fixture redos-server.mjs), mounted through the manifest over
// stdio and over Streamable HTTP, and driven through `skillport serve --http` by two callers at once.
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ServedHttp, Workspace } from "./workspace.js";
import { makeWorkspace, NOTES_SKILL, runCli, serveHttp } from "./workspace.js";

const FIXTURE = fileURLToPath(new URL("../../client/test/fixtures/redos-server.mjs", import.meta.url));
/** 41 characters: about 2^40 steps for a backtracking "^(a+)+$". */
const HOSTILE = `${"a".repeat(40)}!`;

type Envelope = { ok: boolean; message: string; error?: { code: string } };

let ws: Workspace;
const children: ChildProcess[] = [];
const clients: Client[] = [];

beforeEach(async () => {
  ws = await makeWorkspace();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  // SIGKILL: a host whose event loop is stuck in a pattern would never run its SIGTERM handler.
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await ws.dispose();
});

/** The fixture over Streamable HTTP on 127.0.0.1; resolves with its URL. */
function startHttpFixture(): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE, "--http"], { stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      const line = stderr.split("\n").find((l) => l.includes('"listening"'));
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on("exit", (code) => reject(new Error(`the fixture exited with ${code}:\n${stderr}`)));
  });
}

async function manifestWith(server: Record<string, unknown>) {
  return ws.writeManifest(
    {
      name: "redos",
      skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }],
      servers: [{ mcp: "bad", ...server }],
    },
    "redos.manifest.json",
  );
}

async function caller(served: ServedHttp): Promise<Client> {
  const client = new Client({ name: "redos-test", version: "0.0.0" });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(await served.url)));
  return client;
}

/**
 * One call's envelope. A host stuck in a backtracking pattern never answers it (about 2^40 steps for HOSTILE: hours),
 * nor any other caller's call meanwhile: the SDK's timeout, far above any answer a linear engine gives, ends the wait
 * and fails the test. No clock is read: a shared test machine's queueing cannot fail it.
 */
async function envelopeOf(client: Client, name: string, args: Record<string, unknown>): Promise<Envelope> {
  const answered = await client.callTool({ name, arguments: args }, { timeout: 10_000 });
  return answered.structuredContent as Envelope;
}

describe.each([
  ["stdio", async () => ({ command: process.execPath, args: [FIXTURE] })],
  ["Streamable HTTP", async () => ({ url: await startHttpFixture() })],
])("a hostile upstream over %s", (_transport, upstream) => {
  it("refuses the 41-character argument and the hostile output while another caller is served", async () => {
    const served = serveHttp(["--manifest", await manifestWith(await upstream())], ws.dir);
    children.push(served.child);
    const [attacker, other] = [await caller(served), await caller(served)];
    expect((await envelopeOf(attacker, "bad.match", { text: "aaa" })).ok).toBe(true);
    expect((await envelopeOf(attacker, "bad.answer", { text: "aaa" })).ok).toBe(true);

    for (const tool of ["bad.match", "bad.answer"]) {
      const [attack, meanwhile] = await Promise.all([
        envelopeOf(attacker, tool, { text: HOSTILE }),
        envelopeOf(other, "notes.search_notes", { keyword: "agent" }),
      ]);
      expect(attack).toMatchObject({ ok: false });
      expect(attack.message).toContain("pattern");
      // The argument is the caller's fault; an answer failing its own schema is the server's.
      expect(attack.error?.code).toBe(tool === "bad.match" ? "ARGUMENT_INVALID" : "UPSTREAM_ERROR");
      expect(meanwhile.ok).toBe(true);
      // And the host still answers the attacker, at once.
      expect((await envelopeOf(attacker, tool, { text: "aaa" })).ok).toBe(true);
    }
  }, 60_000);

  it("fails closed on a pattern RE2 cannot run: the tool answers UNAVAILABLE naming the pattern", async () => {
    const served = serveHttp(["--manifest", await manifestWith(await upstream())], ws.dir);
    children.push(served.child);
    const client = await caller(served);
    for (const tool of ["bad.lookahead", "bad.lookahead_answer"]) {
      const envelope = await envelopeOf(client, tool, { text: "aaa" });
      expect(envelope).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
      expect(envelope.message).toContain('"^(?=a)a*$"');
      expect(envelope.message).toContain("lookahead");
    }
    expect((await envelopeOf(client, "bad.match", { text: "aaa" })).ok).toBe(true);
  }, 60_000);
});

describe("skillport check and lock over a hostile upstream", () => {
  it("report each super-linear pattern and each pattern RE2 cannot run, naming server, tool and pointer", async () => {
    const manifest = await manifestWith({ command: process.execPath, args: [FIXTURE] });
    const checked = await runCli(["check", "--manifest", manifest, "--json"], ws.dir, {
      SKILLPORT_LOG_LEVEL: "silent",
    });
    const report = JSON.parse(checked.stdout) as {
      findings: { severity: string; rule: string; where: string; message: string }[];
    };
    const patterns = report.findings.filter((f) => f.rule === "upstream-pattern");
    expect(patterns).toEqual([
      expect.objectContaining({
        severity: "warning",
        where: 'servers[0] ("bad"), tool match /inputSchema/properties/text/pattern',
      }),
      expect.objectContaining({
        severity: "warning",
        where: 'servers[0] ("bad"), tool answer /outputSchema/properties/text/pattern',
      }),
      expect.objectContaining({
        severity: "error",
        where: 'servers[0] ("bad"), tool lookahead /inputSchema/properties/text/pattern',
      }),
      expect.objectContaining({
        severity: "error",
        where: 'servers[0] ("bad"), tool lookahead_answer /outputSchema/properties/text/pattern',
      }),
    ]);
    expect(patterns[0]?.message).toContain("exponential");
    expect(patterns[2]?.message).toContain("lookahead");
    expect(checked.code).toBe(1);

    const locked = await runCli(["lock", "--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(locked.code).toBe(0);
    expect(locked.stderr).toContain('servers[0] ("bad"), tool match /inputSchema/properties/text/pattern');
    expect(locked.stderr).toContain('servers[0] ("bad"), tool lookahead_answer /outputSchema/properties/text/pattern');
  }, 60_000);
});
