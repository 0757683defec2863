import { spawn } from "node:child_process";
import path from "node:path";
import type { Readable } from "node:stream";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { CLI, connectStdio, makeWorkspace, NOTES_SKILL, REPO } from "./workspace.js";

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");

type Envelope = { ok: boolean; message: string; error?: { code: string; field?: string } };

// Attacks on the argument checks, replayed against a real `skillport serve --stdio` process: one that held the
// server's only thread would hold a test's own too, so they stay out of the test's process.
describe("argument limits under attack, over stdio", () => {
  let ws: Workspace;
  let client: Client;
  let manifestFile: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    manifestFile = await ws.writeManifest(
      {
        skills: [
          { path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } },
          { path: ECHO, mcp: "echo", tools: { include: ["find"] } },
        ],
      },
      "limits.manifest.json",
    );
    const connected = await connectStdio(manifestFile, ws.dir);
    client = connected.client;
    await connected.ready;
  });

  afterAll(async () => {
    await client?.close();
    await ws?.dispose();
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })).structuredContent as Envelope;

  it("answers a 1 MiB title that a super-linear pattern would choke on with ARGUMENT_INVALID, and keeps answering", async () => {
    // Before: maxLength failed, but with every error collected the title pattern still ran over the megabyte
    // (quadratic on a line ending in a control character), holding the only thread for minutes.
    const title = `${"a".repeat(1024 * 1024)}\u0000`;
    const answered: string[] = [];
    const attack = call("notes.create_study_task", { title, source_note: "AI-Agent/mcp-basics.md" }).then((e) => {
      answered.push("attack");
      return e;
    });
    // Sent right behind it: stdin is read in order, so the attack is read first.
    const next = call("notes.search_notes", { keyword: "agent", limit: 1 }).then((e) => {
      answered.push("next");
      return e;
    });
    const [refused, served] = await Promise.all([attack, next]);
    expect(refused).toMatchObject({ ok: false, error: { code: "ARGUMENT_INVALID", field: "/title" } });
    expect(refused.message).toContain("at most 120");
    expect(served.ok).toBe(true);
    expect(answered).toEqual(["attack", "next"]);
  });

  it("refuses arguments nested 100,000 deep to a tool with a legacy shape, instead of overflowing the stack", async () => {
    // Written by hand: the SDK client (like JSON.stringify) would overflow its own stack on such a value.
    const depth = 100_000;
    const args = `${'{"query":'.repeat(depth)}"bottom"${"}".repeat(depth)}`;
    const server = spawn(process.execPath, [CLI, "serve", "--stdio", "--manifest", manifestFile], {
      cwd: ws.dir,
      env: { ...process.env, SKILLPORT_LOG_LEVEL: "silent" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    try {
      const answers = readAnswers(server.stdout);
      server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE })}\n`);
      await answers.next(1);
      server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
      server.stdin.write(
        `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo.find","arguments":${args}}}\n`,
      );
      const refused = (await answers.next(2)) as { result?: { structuredContent: Envelope } };
      expect(refused.result?.structuredContent).toMatchObject({ ok: false, error: { code: "ARGUMENT_INVALID" } });
      expect(refused.result?.structuredContent.message).toContain("nest deeper than 64 levels");
    } finally {
      server.kill();
    }
    expect((await call("echo.find", { keyword: "still here" })).ok).toBe(true);
  });
});

const INITIALIZE = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "raw-stdio", version: "0.0.0" },
};

/** JSON-RPC answers read off a stdio server's stdout, by id. */
function readAnswers(stdout: Readable) {
  const seen = new Map<number, unknown>();
  const waiting = new Map<number, (message: unknown) => void>();
  let buffer = "";
  stdout.setEncoding("utf8");
  stdout.on("data", (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
      const message = JSON.parse(buffer.slice(0, end)) as { id?: number };
      buffer = buffer.slice(end + 1);
      if (typeof message.id !== "number") continue;
      seen.set(message.id, message);
      waiting.get(message.id)?.(message);
    }
  });
  return {
    next: (id: number) =>
      new Promise<unknown>((resolve) => {
        if (seen.has(id)) resolve(seen.get(id));
        else waiting.set(id, resolve);
      }),
  };
}
