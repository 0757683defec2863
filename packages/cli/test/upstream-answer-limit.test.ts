// An upstream that answers without end: a hand-written server (the client's huge-answer fixture) answers a 200 MiB
// text over stdio, HTTP JSON and HTTP SSE to a real `skillport serve --stdio`. The host reads no more than
// servers[i].maxResultBytes of it: the call answers UPSTREAM_ERROR naming the limit, the host's peak memory stays
// near its idle size, the connection is reset, and the same server's other tools and a skill's tools keep answering.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { connectStdio, makeWorkspace, NOTES_SKILL } from "./workspace.js";

const FIXTURE = fileURLToPath(new URL("../../client/test/fixtures/huge-answer-server.mjs", import.meta.url));
const DEFAULT_LIMIT = 4 * 1024 * 1024;

type Envelope = { ok: boolean; message: string; data?: unknown; error?: { code: string } };

let ws: Workspace;
const clients: Client[] = [];
const fixtures: ChildProcessWithoutNullStreams[] = [];

beforeEach(async () => {
  ws = await makeWorkspace();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const child of fixtures.splice(0)) child.kill();
  await ws.dispose();
});

/** The fixture over HTTP in its own process: its base URL once it listens. */
async function httpFixture(): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE, "http"], { stdio: ["pipe", "pipe", "pipe"] });
  fixtures.push(child);
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve((JSON.parse(out.split("\n")[0] ?? "") as { port: number }).port);
    });
    child.on("exit", (code) => reject(new Error(`the HTTP fixture exited with ${code}: ${err}`)));
  });
  return `http://127.0.0.1:${port}`;
}

/** `skillport serve --stdio` with the notes skill and one upstream `up`; its pid, to read its memory. */
async function serve(server: Record<string, unknown>) {
  const manifest = await ws.writeManifest(
    {
      name: "answer-limit",
      skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }],
      servers: [{ mcp: "up", ...server }],
    },
    "up.manifest.json",
  );
  const connected = await connectStdio(manifest, ws.dir);
  clients.push(connected.client);
  await connected.ready;
  const pid = connected.transport.pid;
  if (pid === null) throw new Error("the host has no pid");
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const answered = await connected.client.callTool({ name, arguments: args }, { timeout: 120_000 });
    return answered.structuredContent as Envelope;
  };
  return { call, pid, stderr: connected.stderr };
}

/** A process's resident memory now and at its peak, in bytes (Linux). */
async function memory(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}

const textOf = (envelope: Envelope) =>
  ((envelope.data as { content: { text: string }[] }).content[0] as { text: string }).text;

describe.runIf(process.platform === "linux")("an upstream answering 200 MiB", () => {
  const cases: [string, "stdio" | "json" | "sse"][] = [
    ["over stdio", "stdio"],
    ["over HTTP, as one JSON body", "json"],
    ["over HTTP, as one SSE event", "sse"],
  ];
  it.each(cases)(
    "%s: UPSTREAM_ERROR naming the limit, memory bounded, the rest keeps answering",
    async (_, kind) => {
      const host = await serve(
        kind === "stdio" ? { command: process.execPath, args: [FIXTURE] } : { url: `${await httpFixture()}/${kind}` },
      );
      const before = await host.call("up.pid");
      expect(before, host.stderr()).toMatchObject({ ok: true });
      expect(await host.call("notes.search_notes", { keyword: "agent" })).toMatchObject({ ok: true });
      const idle = await memory(host.pid);

      const huge = await host.call("up.huge");
      expect(huge, host.stderr()).toMatchObject({ ok: false, error: { code: "UPSTREAM_ERROR" } });
      expect(huge.message).toContain(`servers[0].maxResultBytes (${DEFAULT_LIMIT} bytes)`);
      const after = await memory(host.pid);
      expect(after.peak).toBeLessThan(2 * idle.rss + DEFAULT_LIMIT);

      // The connection was reset: the same server answers again (a stdio server from a new process).
      const again = await host.call("up.pid");
      expect(again).toMatchObject({ ok: true });
      if (kind === "stdio") expect(textOf(again)).not.toBe(textOf(before));
      expect(textOf(await host.call("up.small", { text: "still here" }))).toBe("small: still here");
      expect(await host.call("notes.search_notes", { keyword: "agent" })).toMatchObject({ ok: true });
    },
    180_000,
  );

  it("answers under the limit pass, and the limit is the entry's own", async () => {
    const host = await serve({ command: process.execPath, args: [FIXTURE], maxResultBytes: 64 * 1024 });
    const under = await host.call("up.huge", { bytes: 32 * 1024 });
    expect(under, host.stderr()).toMatchObject({ ok: true });
    expect(textOf(under)).toHaveLength(32 * 1024);
    const over = await host.call("up.huge", { bytes: 128 * 1024 });
    expect(over).toMatchObject({ ok: false, error: { code: "UPSTREAM_ERROR" } });
    expect(over.message).toContain("servers[0].maxResultBytes (65536 bytes)");
    expect(await host.call("up.small", { text: "hi" })).toMatchObject({ ok: true });
  }, 60_000);
});
