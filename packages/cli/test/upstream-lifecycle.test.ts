// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests write environment variables as ${NAME}, literally
// An upstream server's life under a Skillport host: a fixture server (a real process) that records its starts,
// calls, cancellations and exit, mounted through the manifest of a host built as `skillport serve` builds it, served
// in this process and driven by the SDK client. `skillport lock`, `check` and `list` run as commands.
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { linesOf, untilLines } from "@skillport/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { StdioInProcess } from "./in-process.js";
import { httpInProcess, stdioInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, NOTES_SKILL, runCli } from "./workspace.js";

// The client's fixture server: one small upstream for both packages' tests.
const FIXTURE = fileURLToPath(new URL("../../client/test/fixtures/fixture-server.mjs", import.meta.url));

type Envelope = { ok: boolean; message: string; data?: unknown; error?: { code: string; retryable?: boolean } };

let ws: Workspace;
let log: string;
const served: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  ws = await makeWorkspace();
  log = path.join(ws.dir, "fixture.log");
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(served.splice(0).map((s) => s.close()));
  await ws.dispose();
});

/** A manifest mounting the fixture as `up`, its log in the workspace. */
function manifestWith(server: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return ws.writeManifest(
    {
      name: "lifecycle",
      skills: [],
      servers: [
        {
          mcp: "up",
          command: process.execPath,
          args: [FIXTURE],
          ...server,
          env: { FIXTURE_LOG: log, ...(server.env as object) },
        },
      ],
      ...extra,
    },
    "up.manifest.json",
  );
}

const starts = async () => (await linesOf(log)).filter((l) => l.startsWith("start "));
/** Until the fixture's record holds `line` (`times` times). */
const recorded = (line: string, times = 1) =>
  untilLines(log, (lines) => lines.filter((l) => l === line).length >= times);

async function serve(manifest: string, env: Record<string, string | undefined> = {}, logLevel?: string) {
  const connected: StdioInProcess = await stdioInProcess(manifest, { env, ...(logLevel ? { logLevel } : {}) });
  served.push(connected);
  const call = async (name: string, args: Record<string, unknown> = {}, options: { signal?: AbortSignal } = {}) =>
    (await connected.client.callTool({ name, arguments: args }, options)).structuredContent as Envelope;
  return { client: connected.client, call, connected };
}

const pidOf = (envelope: Envelope) =>
  Number(((envelope.data as { content: { text: string }[] }).content[0] as { text: string }).text);

describe("an upstream server's life", () => {
  it("with a lock, tools/list answers without starting it; the first call starts it", async () => {
    const manifest = await manifestWith();
    const locked = await runCli(["lock", "--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(locked.stderr).toBe("");
    expect(locked.code).toBe(0);
    expect(locked.stdout).toContain("1 upstream server");
    expect(await starts()).toHaveLength(1); // locking lists it once
    const lock = JSON.parse(await readFile(path.join(ws.dir, "up.lock.json"), "utf8"));
    expect(lock.servers[0]).toMatchObject({ entry: 0, mcp: "up" });

    const { client, call } = await serve(manifest);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["up.echo", "up.sleep", "up.pid"]));
    expect(await starts()).toHaveLength(1);
    expect(await call("up.echo", { text: "hi" })).toMatchObject({ ok: true });
    expect(await starts()).toHaveLength(2);
  }, 60_000);

  it("killed mid-call answers UNAVAILABLE (retryable), then the next call starts it again", async () => {
    const { call } = await serve(await manifestWith());
    const pid = pidOf(await call("up.pid"));
    const sleeping = call("up.sleep", { ms: 60_000 });
    await recorded(`sleeping ${pid}`);
    process.kill(pid, "SIGKILL");
    expect(await sleeping).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", retryable: true } });
    const again = await call("up.pid");
    expect(again.ok).toBe(true);
    expect(pidOf(again)).not.toBe(pid);
    expect(await starts()).toHaveLength(2);
  }, 60_000);

  it("a server failing at every start is not spawned again during its backoff, and comes back after it", async () => {
    const flag = path.join(ws.dir, "broken");
    const slow = await manifestWith({ env: { FIXTURE_FAIL_IF: flag }, restart: { initialDelayMs: 600_000 } });
    const locked = await runCli(["lock", "--manifest", slow], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(locked.code).toBe(0);
    await writeFile(flag, "");
    const { call } = await serve(slow);
    // The first failure is retried at once; from the second, calls answer without starting anything.
    for (let i = 0; i < 12; i++) {
      expect(await call("up.echo", { text: "hi" })).toMatchObject({
        ok: false,
        error: { code: "UNAVAILABLE", retryable: true },
      });
    }
    expect(await starts()).toHaveLength(3); // the lock's, then two failed starts
    const waiting = await call("up.echo", { text: "hi" });
    expect(waiting.message).toMatch(/failed 2 times in a row .*started again on the first call after \d+ s/);

    // With a short delay it comes back on its own once it can start again.
    const quick = await manifestWith({
      env: { FIXTURE_FAIL_IF: flag },
      restart: { initialDelayMs: 200, maxDelayMs: 400 },
    });
    await rm(flag);
    const relocked = await runCli(["lock", "--manifest", quick], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(relocked.code).toBe(0);
    await writeFile(flag, "");
    // The backoff's clock is the subject: the host's Date is moved past the longest delay instead of waiting it out.
    vi.useFakeTimers({ toFake: ["Date"] });
    const again = await serve(quick);
    expect((await again.call("up.echo", { text: "hi" })).ok).toBe(false);
    const delayed = await again.call("up.echo", { text: "hi" });
    expect(delayed).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    await rm(flag);
    // Still within its delay: not started again, even though it could start now.
    expect((await again.call("up.echo", { text: "hi" })).ok).toBe(false);
    vi.setSystemTime(Date.now() + 400);
    const answered = await again.call("up.echo", { text: "back" });
    expect(answered.ok, answered.message).toBe(true);
    expect(JSON.stringify(answered.data)).toContain("echo: back");
  }, 60_000);

  it("forwards the client's cancel and the host's timeout to the server", async () => {
    const { client, call } = await serve(await manifestWith({ timeoutMs: 1500 }));
    const pid = pidOf(await call("up.pid"));
    const controller = new AbortController();
    const cancelled = client.callTool({ name: "up.sleep", arguments: { ms: 60_000 } }, { signal: controller.signal });
    await recorded(`sleeping ${pid}`);
    controller.abort();
    await expect(cancelled).rejects.toThrow();
    await recorded(`cancelled ${pid}`);

    const timedOut = await call("up.sleep", { ms: 60_000 });
    expect(timedOut).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    await recorded(`cancelled ${pid}`, 2);
  }, 60_000);

  it("an idle server is stopped after idleStopMs, and the next call starts it again", async () => {
    const { call } = await serve(await manifestWith({ idleStopMs: 1000 }));
    const pid = pidOf(await call("up.pid"));
    await recorded(`exit ${pid}`);
    const again = await call("up.pid");
    expect(pidOf(again)).not.toBe(pid);
  }, 60_000);

  it("is never stopped for idleness while a call to it runs", async () => {
    const { call } = await serve(await manifestWith({ idleStopMs: 1000 }));
    const pid = pidOf(await call("up.pid"));
    const slept = await call("up.sleep", { ms: 2500 });
    expect(slept).toMatchObject({ ok: true });
    expect(pidOf(await call("up.pid"))).toBe(pid);
  }, 60_000);
});

describe("a variable a server entry names that is not set", () => {
  it("starts nothing: check names the variable and its place, and a locked tool answers CREDENTIALS_MISSING", async () => {
    const manifest = await manifestWith({ env: { API_TOKEN: "${UPSTREAM_TOKEN}" } });
    const checked = await runCli(["check", "--manifest", manifest], ws.dir, { UPSTREAM_TOKEN: undefined });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain("servers[0].env.API_TOKEN");
    expect(checked.stdout).toContain("UPSTREAM_TOKEN");
    expect(await starts()).toHaveLength(0);

    const locked = await runCli(["lock", "--manifest", manifest], ws.dir, {
      UPSTREAM_TOKEN: "a-token-long-enough",
      SKILLPORT_LOG_LEVEL: "silent",
    });
    expect(locked.code).toBe(0);
    expect(await starts()).toHaveLength(1);
    const { call } = await serve(manifest, { UPSTREAM_TOKEN: "" });
    const refused = await call("up.echo", { text: "hi" });
    expect(refused).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING" } });
    expect(refused.message).toContain("UPSTREAM_TOKEN");
    expect(await starts()).toHaveLength(1);
  }, 60_000);
});

describe("a server whose variable is not set, asked through every command", () => {
  it("gives one answer: with a lock, list lists its tools, call and serve answer CREDENTIALS_MISSING; without, call says why", async () => {
    const manifest = await manifestWith({ env: { API_TOKEN: "${UPSTREAM_TOKEN}" } });
    const unset = { UPSTREAM_TOKEN: undefined, SKILLPORT_LOG_LEVEL: "silent" };
    const unlocked = await runCli(["call", "up.echo", '{"text":"hi"}', "--manifest", manifest], ws.dir, unset);
    expect(unlocked.code).toBe(1);
    expect(unlocked.stderr).toContain('unknown tool "up.echo"');
    expect(unlocked.stderr).toContain('servers[0] ("up") is not served: not started: servers[0].env.API_TOKEN needs');
    expect(unlocked.stderr).toContain("UPSTREAM_TOKEN");

    const locked = await runCli(["lock", "--manifest", manifest], ws.dir, {
      ...unset,
      UPSTREAM_TOKEN: "a-token-long-enough",
    });
    expect(locked.code, locked.stderr).toBe(0);
    const listed = await runCli(["list", "--manifest", manifest], ws.dir, unset);
    expect(listed.stdout).toContain("up.echo");
    const called = await runCli(["call", "up.echo", '{"text":"hi"}', "--manifest", manifest], ws.dir, unset);
    expect(called.code).toBe(1);
    expect(JSON.parse(called.stdout)).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING" } });
    const { call } = await serve(manifest, { UPSTREAM_TOKEN: "" });
    expect(await call("up.echo", { text: "hi" })).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING" } });
    expect(await starts()).toHaveLength(1);
  }, 60_000);
});

describe("names an upstream server shares with a skill", () => {
  it("stop the host at start, naming both", async () => {
    const manifest = await ws.writeManifest(
      {
        skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }],
        servers: [
          {
            mcp: "notes",
            command: process.execPath,
            args: [FIXTURE],
            env: { FIXTURE_LOG: log, FIXTURE_TOOLS: "search_notes" },
          },
        ],
      },
      "clash.manifest.json",
    );
    const listed = await runCli(["list", "--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(listed.code).not.toBe(0);
    expect(listed.stderr).toContain('tool "notes.search_notes" is defined by both');
    expect(listed.stderr).toContain("servers[0]");
    expect(listed.stderr).toContain("skills[0]");
  }, 60_000);
});

describe("an upstream server whose tools change at run time", () => {
  it("is announced to the client (list_changed) and served; a name that collides keeps its first owner, with a warning", async () => {
    const manifest = await ws.writeManifest(
      {
        skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }],
        servers: [{ mcp: "notes", command: process.execPath, args: [FIXTURE], env: { FIXTURE_LOG: log } }],
      },
      "changes.manifest.json",
    );
    const { client, call, connected } = await serve(manifest, {}, "warn");
    const announcements: (() => void)[] = [];
    const announced = () => new Promise<void>((resolve) => announcements.push(resolve));
    client.setNotificationHandler("notifications/tools/list_changed", () => announcements.shift()?.());
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    expect(await names()).not.toContain("notes.fresh");

    const first = announced();
    expect(await call("notes.add_tool", { name: "fresh" })).toMatchObject({ ok: true });
    await first;
    expect(await names()).toContain("notes.fresh");
    expect(JSON.stringify((await call("notes.fresh", { text: "new" })).data)).toContain("fresh: new");

    // The server now offers search_notes too, which the notes skill already serves as notes.search_notes.
    const second = announced();
    expect(await call("notes.add_tool", { name: "search_notes" })).toMatchObject({ ok: true });
    await second;
    await connected.stderrUntil((text) => text.includes('tool \\"notes.search_notes\\" of servers[0]'));
    expect(connected.stderr()).toContain("skills[0]");
    // The skill keeps the name: the call reaches it, with its own schema.
    const searched = await call("notes.search_notes", { keyword: "agent" });
    expect(searched.ok).toBe(true);
    expect(JSON.stringify(searched.data)).not.toContain("search_notes: ");
    expect((await names()).filter((n) => n === "notes.search_notes")).toHaveLength(1);
  }, 60_000);

  it("is announced to a 2025-era HTTP session on its event stream", async () => {
    const token = "session-token-0a1b2c3d4e5f";
    const manifest = await manifestWith(
      {},
      { http: { sessions: true, auth: { tokens: [{ name: "client", token: { env: "SESSION_TOKEN" } }] } } },
    );
    const http = await httpInProcess(manifest, { env: { SESSION_TOKEN: token } });
    served.push(http);
    const client = new Client({ name: "session-test", version: "0.0.0" });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      const announced = new Promise<void>((resolve) =>
        client.setNotificationHandler("notifications/tools/list_changed", () => resolve()),
      );
      await client.connect(transport);
      expect(transport.sessionId).toBeDefined();
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      const added = await client.callTool({ name: "up.add_tool", arguments: { name: "fresh" } });
      expect((added.structuredContent as Envelope).ok).toBe(true);
      await announced;
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("up.fresh");
    } finally {
      await client.close();
    }
  }, 60_000);
});
