// An upstream server that lowers a tool's risk at run time: a hostile fixture server (a real process) lists
// `wipe` as destructive, is reviewed (locked, listed, allowed), then lists it again without destructiveHint
// (notifications/tools/list_changed, or a restart). What the operator reviewed is what runs: the call still needs
// confirmation (with a lock it answers UNAVAILABLE until relocked), and `skillport check` reports the lowered risk.
// The host is built as `skillport serve` builds it and served in this process; lock, list and check run as commands.
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { linesOf } from "@skillport/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stdioInProcess } from "./in-process.js";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, runCli } from "./workspace.js";

const FIXTURE = fileURLToPath(new URL("../../client/test/fixtures/risk-flipping-server.mjs", import.meta.url));

type Envelope = { ok: boolean; message: string; error?: { code: string } };

let ws: Workspace;
let flipLog: string;
let flipState: string;
const served: { close(): Promise<void> }[] = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  ws = await makeWorkspace();
  flipLog = path.join(ws.dir, "flip.log");
  flipState = path.join(ws.dir, "flipped");
});
afterEach(async () => {
  await Promise.all(served.splice(0).map((s) => s.close()));
  await Promise.all(
    children.splice(0).map((child) => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      return exited;
    }),
  );
  await ws.dispose();
});

/** The fixture served over Streamable HTTP in its own process; resolves with its URL. */
async function httpUpstream(): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE, "--http"], {
    env: { ...process.env, FLIP_LOG: flipLog, FLIP_STATE: flipState },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout.once("data", (d: Buffer) => resolve((JSON.parse(d.toString()) as { url: string }).url));
    child.once("exit", (code) => reject(new Error(`the fixture exited with ${code}:\n${stderr}`)));
  });
}

/** A manifest mounting the fixture as `up` (over stdio, or at `url`), `wipe` allowed. */
async function manifestWith(url: string | undefined, tools: unknown = { include: ["wipe", "flip"] }) {
  const reach =
    url === undefined
      ? { command: process.execPath, args: [FIXTURE], env: { FLIP_LOG: flipLog, FLIP_STATE: flipState } }
      : { url };
  return ws.writeManifest(
    { name: "pin", skills: [], servers: [{ mcp: "up", ...reach, allow: ["wipe"], ...(tools ? { tools } : {}) }] },
    "up.manifest.json",
  );
}

/** `skillport lock`, then `skillport list` showing `wipe` as the operator reviews it: dangerous. */
async function lockAndReview(manifest: string) {
  const locked = await runCli(["lock", "--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
  expect(locked.stderr).toBe("");
  expect(locked.code).toBe(0);
  const listed = await runCli(["list", "--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
  expect(listed.code).toBe(0);
  expect(listed.stdout).toMatch(/up\.wipe\s+dangerous/);
}

/** The host `skillport serve --stdio` serves, with a client that cannot ask its user (no elicitation). */
async function serve(manifest: string) {
  const connected = await stdioInProcess(manifest, { logLevel: "warn" });
  served.push(connected);
  const changed = new Promise<void>((resolve) =>
    connected.client.setNotificationHandler("notifications/tools/list_changed", () => resolve()),
  );
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await connected.client.callTool({ name, arguments: args })).structuredContent as Envelope;
  const listed = async (name: string) => (await connected.client.listTools()).tools.find((t) => t.name === name);
  /** Resolves once the host has logged a line `pattern` matches. */
  const warned = (pattern: RegExp) => connected.stderrUntil((text) => pattern.test(text));
  return { call, listed, changed, warned };
}

const logged = () => linesOf(flipLog);
const starts = async () => (await logged()).filter((l) => l.startsWith("start "));
const ran = async () => (await logged()).filter((l) => /^(wiped|purged)/.test(l));

/** Reviews `wipe`, checks it asks, then has the server flip it; answers the served host once the change is seen. */
async function flipAfterReview(manifest: string) {
  const host = await serve(manifest);
  expect(await host.call("up.wipe", { target: "/" })).toMatchObject({
    ok: false,
    error: { code: "CONFIRMATION_REQUIRED" },
  });
  expect(await host.call("up.flip")).toMatchObject({ ok: true });
  await host.changed;
  // The listing keeps what was reviewed.
  expect((await host.listed("up.wipe"))?.annotations).toMatchObject({ destructiveHint: true });
  return host;
}

describe.each([
  ["stdio", undefined],
  ["Streamable HTTP", httpUpstream],
] as const)("an upstream server over %s that lists a destructive tool again without destructiveHint", (_, upstream) => {
  it("with a lock: the changed tool answers UNAVAILABLE naming skillport lock, and never runs", async () => {
    const manifest = await manifestWith(await upstream?.());
    await lockAndReview(manifest);
    const host = await flipAfterReview(manifest);
    const answer = await host.call("up.wipe", { target: "/" });
    expect(answer).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    // The command as typed from the current folder: the test's, here, not the workspace.
    expect(answer.message).toMatch(/skillport lock --manifest \S*up\.manifest\.json/);
    expect(await ran()).toEqual([]);
  }, 60_000);

  it("without a lock: the first risk seen is kept, the call still asks, and a warning names server and tool", async () => {
    const manifest = await manifestWith(await upstream?.());
    const host = await flipAfterReview(manifest);
    expect(await host.call("up.wipe", { target: "/" })).toMatchObject({
      ok: false,
      error: { code: "CONFIRMATION_REQUIRED" },
    });
    await host.warned(/servers\[0\] \(\\"up\\"\).*\\"wipe\\".*lower risk/);
    expect(await ran()).toEqual([]);
  }, 60_000);
});

describe("an upstream server that comes back from a restart with a lower risk", () => {
  it("without a lock: the call still asks", async () => {
    const host = await serve(await manifestWith(undefined));
    expect(await host.call("up.wipe", { target: "/" })).toMatchObject({ error: { code: "CONFIRMATION_REQUIRED" } });
    const [pid] = await starts();
    // It starts flipped from now on; killed, the next call starts it again.
    await writeFile(flipState, "flipped\n");
    process.kill(Number(pid?.slice("start ".length)), "SIGKILL");
    // Each call starts it again once the host has seen it die (calls before that answer UNAVAILABLE); the answer is
    // decided on what it lists then.
    for (let call = 0; call < 100 && (await starts()).length < 2; call++) await host.call("up.wipe", { target: "/" });
    expect(await starts()).toHaveLength(2);
    expect(await host.call("up.wipe", { target: "/" })).toMatchObject({
      ok: false,
      error: { code: "CONFIRMATION_REQUIRED" },
    });
    await host.warned(/servers\[0\] \(\\"up\\"\).*\\"wipe\\".*lower risk/);
    expect(await ran()).toEqual([]);
  }, 60_000);
});

describe("a tool an upstream server adds at run time that its lock does not list", () => {
  it("is not served, with a warning naming it and skillport lock", async () => {
    const manifest = await manifestWith(undefined, null);
    await lockAndReview(manifest);
    const host = await flipAfterReview(manifest);
    expect(await host.listed("up.purge")).toBeUndefined();
    await host.warned(/\\"purge\\".*skillport lock/);
    expect(await ran()).toEqual([]);
  }, 60_000);
});

describe("skillport check on an upstream server whose live risk is below its lock's", () => {
  it("reports the lowered risk as an error", async () => {
    const manifest = await manifestWith(undefined);
    await lockAndReview(manifest);
    await writeFile(flipState, "flipped\n");
    const checked = await runCli(["check", "--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(/✖\s+upstream-risk\s+servers\[0\] \("up"\), tool wipe\s+.*dangerous.*write/);
    expect(checked.stdout).toMatch(/minor\s+wipe\s+risk lowered from dangerous to write/);
  }, 60_000);
});
