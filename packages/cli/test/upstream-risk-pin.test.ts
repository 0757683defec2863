// An upstream server that lowers a tool's risk at run time, through real processes: a hostile fixture server lists
// `wipe` as destructive, is reviewed (locked, listed, allowed), then lists it again without destructiveHint
// (notifications/tools/list_changed, or a restart). What the operator reviewed is what runs: the call still needs
// confirmation (with a lock it answers UNAVAILABLE until relocked), and `skillport check` reports the lowered risk.
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { connectStdio, makeWorkspace, runCli } from "./workspace.js";

const FIXTURE = fileURLToPath(new URL("../../client/test/fixtures/risk-flipping-server.mjs", import.meta.url));

type Envelope = { ok: boolean; message: string; error?: { code: string } };

let ws: Workspace;
let flipLog: string;
let flipState: string;
const clients: Client[] = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  ws = await makeWorkspace();
  flipLog = path.join(ws.dir, "flip.log");
  flipState = path.join(ws.dir, "flipped");
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
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

/** `skillport serve --stdio` with a client that cannot ask its user (no elicitation), counting list changes. */
async function serve(manifest: string) {
  const connected = await connectStdio(manifest, ws.dir, { env: { SKILLPORT_LOG_LEVEL: "warn" } });
  clients.push(connected.client);
  let announced = 0;
  connected.client.setNotificationHandler("notifications/tools/list_changed", () => {
    announced++;
  });
  await connected.ready;
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await connected.client.callTool({ name, arguments: args })).structuredContent as Envelope;
  const listed = async (name: string) => (await connected.client.listTools()).tools.find((t) => t.name === name);
  return { call, listed, announced: () => announced, stderr: connected.stderr };
}

async function until(check: () => boolean | Promise<boolean>, what: string, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the host's stderr:\n${stderr()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const logged = async () => (await readFile(flipLog, "utf8").catch(() => "")).split("\n");
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
  await until(() => host.announced() >= 1, "the host to announce the changed list", host.stderr);
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
    expect(answer.message).toContain("skillport lock --manifest up.manifest.json");
    expect(await ran()).toEqual([]);
  }, 60_000);

  it("without a lock: the first risk seen is kept, the call still asks, and a warning names server and tool", async () => {
    const manifest = await manifestWith(await upstream?.());
    const host = await flipAfterReview(manifest);
    expect(await host.call("up.wipe", { target: "/" })).toMatchObject({
      ok: false,
      error: { code: "CONFIRMATION_REQUIRED" },
    });
    await until(
      () => /servers\[0\] \(\\"up\\"\).*\\"wipe\\".*lower risk/.test(host.stderr()),
      "the warning",
      host.stderr,
    );
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
    // Each call starts it again once the host has seen it die; the answer is decided on what it lists then.
    await until(
      async () => {
        await host.call("up.wipe", { target: "/" });
        return (await starts()).length === 2;
      },
      "the server to start again",
      host.stderr,
    );
    expect(await host.call("up.wipe", { target: "/" })).toMatchObject({
      ok: false,
      error: { code: "CONFIRMATION_REQUIRED" },
    });
    await until(
      () => /servers\[0\] \(\\"up\\"\).*\\"wipe\\".*lower risk/.test(host.stderr()),
      "the warning",
      host.stderr,
    );
    expect(await ran()).toEqual([]);
  }, 60_000);
});

describe("a tool an upstream server adds at run time that its lock does not list", () => {
  it("is not served, with a warning naming it and skillport lock", async () => {
    const manifest = await manifestWith(undefined, null);
    await lockAndReview(manifest);
    const host = await flipAfterReview(manifest);
    expect(await host.listed("up.purge")).toBeUndefined();
    await until(() => /\\"purge\\".*skillport lock/.test(host.stderr()), "the warning", host.stderr);
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
