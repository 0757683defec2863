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
/** The bound: an answer, a refusal included, within 100 ms. */
const BOUND_MS = 100;

type Envelope = { ok: boolean; message: string; error?: { code: string }; meta: { durationMs: number } };

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
 * One call's envelope and how long the host took to answer it, as its envelope's meta says: measured in the host,
 * so a test machine's queueing (two cores, other suites beside) does not count against the host. A stuck host never
 * answers at all: the SDK's timeout ends the test's wait.
 */
async function timed(client: Client, name: string, args: Record<string, unknown>) {
  const answered = await client.callTool({ name, arguments: args }, { timeout: 5_000 });
  const envelope = answered.structuredContent as Envelope;
  return { ms: envelope.meta.durationMs, envelope };
}

describe.each([
  ["stdio", async () => ({ command: process.execPath, args: [FIXTURE] })],
  ["Streamable HTTP", async () => ({ url: await startHttpFixture() })],
])("a hostile upstream over %s", (_transport, upstream) => {
  it("answers the 41-character argument and the hostile output within 100 ms while another caller is served", async () => {
    const served = serveHttp(["--manifest", await manifestWith(await upstream())], ws.dir);
    children.push(served.child);
    const [attacker, other] = [await caller(served), await caller(served)];
    // First calls compile each validator: measured after them.
    expect((await timed(attacker, "bad.match", { text: "aaa" })).envelope.ok).toBe(true);
    expect((await timed(attacker, "bad.answer", { text: "aaa" })).envelope.ok).toBe(true);
    expect((await timed(other, "notes.search_notes", { keyword: "agent" })).envelope.ok).toBe(true);

    for (const tool of ["bad.match", "bad.answer"]) {
      const rounds = [];
      const benign = [];
      for (let round = 0; round < 3; round++) {
        rounds.push(
          await Promise.all([
            timed(attacker, tool, { text: HOSTILE }),
            timed(other, "notes.search_notes", { keyword: "agent" }),
          ]),
        );
        benign.push(await timed(attacker, tool, { text: "aaa" }));
      }
      for (const [attack, served] of rounds) {
        expect(attack.envelope).toMatchObject({ ok: false });
        expect(attack.envelope.message).toContain("pattern");
        // The argument is the caller's fault; an answer failing its own schema is the server's.
        expect(attack.envelope.error?.code).toBe(tool === "bad.match" ? "ARGUMENT_INVALID" : "UPSTREAM_ERROR");
        expect(served.envelope.ok).toBe(true);
      }
      // The best of three rounds is held to the bound (a backtracking engine never answers any of them): what the
      // hostile text costs over the same call with a benign one (both wait on the upstream server the same way), and
      // the other caller's call, served meanwhile.
      const best = (ms: number[]) => Math.min(...ms);
      expect(best(rounds.map(([attack]) => attack.ms)) - best(benign.map((b) => b.ms))).toBeLessThan(BOUND_MS);
      expect(best(rounds.map(([, served]) => served.ms))).toBeLessThan(BOUND_MS);
    }
  }, 60_000);

  it("fails closed on a pattern RE2 cannot run: the tool answers UNAVAILABLE naming the pattern", async () => {
    const served = serveHttp(["--manifest", await manifestWith(await upstream())], ws.dir);
    children.push(served.child);
    const client = await caller(served);
    for (const tool of ["bad.lookahead", "bad.lookahead_answer"]) {
      const { envelope } = await timed(client, tool, { text: "aaa" });
      expect(envelope).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
      expect(envelope.message).toContain('"^(?=a)a*$"');
      expect(envelope.message).toContain("lookahead");
    }
    expect((await timed(client, "bad.match", { text: "aaa" })).envelope.ok).toBe(true);
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
