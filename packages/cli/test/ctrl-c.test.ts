import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { untilLines } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, REPO, serveHttp } from "./workspace.js";

const PROBE_SKILL = path.join(REPO, "packages/host/test/fixtures/skill-probe");

describe("pnpm start, as a newcomer runs it", () => {
  let config: string;

  beforeAll(async () => {
    // A machine where turbo never ran: it would print its telemetry notice here.
    config = await mkdtemp(path.join(os.tmpdir(), "skillport-start-config-"));
  });
  afterAll(() => rm(config, { recursive: true, force: true }));

  // It builds first: on a machine where the build is not cached yet, that takes minutes.
  it("says what it builds, prints no telemetry notice, and one Ctrl+C stops it with exit 0", {
    timeout: 600_000,
  }, async () => {
    const child = spawn("pnpm", ["start", "--port", "0"], {
      cwd: REPO,
      // Its own process group, as a terminal's foreground job: Ctrl+C signals every process in it.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, XDG_CONFIG_HOME: config, SKILLPORT_LOG_LEVEL: "info", NO_COLOR: "1" },
    });
    let output = "";
    let listening: () => void = () => undefined;
    const listened = new Promise<void>((resolve) => {
      listening = resolve;
    });
    const add = (d: Buffer) => {
      output += d.toString();
      if (output.includes('"msg":"listening"')) listening();
    };
    child.stdout.on("data", add);
    child.stderr.on("data", add);
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    try {
      await listened;
      process.kill(-(child.pid as number), "SIGINT");
      expect(await exit, output).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null) process.kill(-(child.pid as number), "SIGKILL");
    }
    expect(output).toMatch(/^\S+:build: cache (hit|miss)/m);
    expect(output).toContain("Skillport is serving");
    expect(output).not.toContain("anonymous telemetry"); // turbo's notice
    expect(output).not.toContain("ELIFECYCLE");
    expect(output).not.toContain("again");
    expect(output).toContain('"msg":"stopped"');
  });
});

describe("skillport serve --http and stop signals", () => {
  let ws: Workspace;
  let manifest: string;
  let record: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    record = path.join(ws.dir, "record.log");
    manifest = await ws.writeManifest({ skills: [{ path: PROBE_SKILL, config: { record } }] }, "probe.manifest.json");
  });
  afterAll(() => ws?.dispose());

  /** Resolves once the probe has recorded `line`. */
  const recorded = (line: string) => untilLines(record, (lines) => lines.includes(line));

  it("takes one Ctrl+C delivered twice (by the terminal, then by a wrapper forwarding it) as one", async () => {
    const served = serveHttp(["--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "info" });
    const client = await connect(await served.url);
    const slow = client.callTool({ name: "probe.sleep", arguments: { id: "twice", ms: 3_000 } });
    await recorded("started twice");
    // pnpm, npm and npx forward the signal the terminal already sent their child: it arrives as the server stops.
    served.child.stderr?.on("data", (d: Buffer) => {
      if (d.toString().includes("finishing in-flight calls")) served.child.kill("SIGINT");
    });
    served.child.kill("SIGINT");
    expect(await served.exit, served.stderr()).toBe(0);
    expect(served.stderr()).not.toContain("again");
    expect((await slow).structuredContent).toMatchObject({ ok: true });
    await client.close();
  });

  it("stops at once, exit 1, on a second Ctrl+C while in-flight calls finish", async () => {
    const served = serveHttp(["--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "info" });
    const client = await connect(await served.url);
    const slow = client.callTool({ name: "probe.sleep", arguments: { id: "slow", ms: 60_000 } }).catch(() => undefined);
    await recorded("started slow");
    served.child.kill("SIGINT");
    await served.stderrUntil((text) => text.includes("finishing in-flight calls"));
    // Well after the first, as a person presses again: a second signal within 500 ms of the first is the same press
    // delivered twice (the test above), so this wait is the subject, on the server's own clock.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    served.child.kill("SIGINT");
    expect(await served.exit).toBe(1);
    expect(served.stderr()).toContain("SIGINT again: stopping now");
    await slow;
    await client.close().catch(() => undefined);
  });
});

// --- internal ---

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "ctrl-c", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
