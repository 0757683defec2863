import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../src/index.js";
import type { Sandbox } from "./helpers.js";
import { ctxFor, failure, isGone, makeSandbox, waitFor } from "./helpers.js";

let box: Sandbox;
const stray: number[] = [];

beforeEach(async () => {
  box = await makeSandbox();
});

afterEach(async () => {
  for (const pid of stray.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await box.dispose();
});

/** A shell that starts a grandchild sleep, writes its pid to a file, and waits. */
const grandparent = (trapTerm = false) => [
  "-c",
  `${trapTerm ? "trap '' TERM; " : ""}sleep 30 & echo $! > grandchild.pid; wait`,
];

async function grandchildPid(): Promise<number> {
  const file = path.join(box.root, "grandchild.pid");
  await waitFor(async () => (await readFile(file, "utf8").catch(() => "")).trim() !== "");
  const pid = Number((await readFile(file, "utf8")).trim());
  stray.push(pid);
  return pid;
}

describe("exit codes and output", () => {
  it("returns a non-zero exit as data, not as an error", async () => {
    const out = await runCommand(
      { command: "node", args: ["-e", "process.stderr.write('bad'); process.exit(3)"] },
      ctxFor(box.config()),
    );
    expect(out.data).toMatchObject({ exitCode: 3, signal: null, stdout: "", stderr: "bad", stderrTruncated: false });
    expect(out.message).toContain("exited with code 3");
  });

  it("reports a command ended by a signal", async () => {
    const out = await runCommand(
      { command: "node", args: ["-e", "process.kill(process.pid, 'SIGTERM')"] },
      ctxFor(box.config()),
    );
    expect(out.data).toMatchObject({ exitCode: null, signal: "SIGTERM" });
  });

  it("keeps output up to the cap, counts the rest and flags the truncation", async () => {
    const out = await runCommand(
      {
        command: "node",
        args: ["-e", "process.stdout.write('x'.repeat(100000)); process.stderr.write('small')"],
      },
      ctxFor(box.config({ maxOutputBytes: 1000 })),
    );
    expect(out.data).toMatchObject({
      stdoutBytes: 100000,
      stdoutTruncated: true,
      stderr: "small",
      stderrBytes: 5,
      stderrTruncated: false,
    });
    expect(out.data.stdout).toBe("x".repeat(1000));
    expect(out.warnings?.[0]).toContain("stdout was 100000 bytes");
  });

  it("answers NOT_FOUND for an allowlisted command missing from PATH", async () => {
    const error = await failure(
      runCommand(
        { command: "no-such-program-xyz", args: [] },
        ctxFor(box.config({ commands: ["no-such-program-xyz"] })),
      ),
    );
    expect(error).toMatchObject({ code: "NOT_FOUND", field: "/command" });
    expect(error.message).toContain("PATH");
  });

  it("refuses a timeout over the instance's maximum", async () => {
    const error = await failure(
      runCommand({ command: "echo", args: [], timeoutMs: 5000 }, ctxFor(box.config({ maxTimeoutMs: 1000 }))),
    );
    expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/timeoutMs" });
  });
});

describe("timeouts and cancellation kill the whole process group", () => {
  it("on timeout: the command and its grandchild are gone, and the call says TIMEOUT", async () => {
    const call = runCommand({ command: "sh", args: grandparent(), timeoutMs: 1500 }, ctxFor(box.config()));
    const pid = await grandchildPid();
    expect(isGone(pid)).toBe(false);
    const error = await failure(call);
    expect(error).toMatchObject({ code: "TIMEOUT", field: "/timeoutMs", retryable: true });
    expect(error.message).toContain("process group was killed");
    expect(await waitFor(() => isGone(pid))).toBe(true);
  });

  it("on timeout: a grandchild that ignores SIGTERM is SIGKILLed after the grace period", async () => {
    const call = runCommand(
      { command: "sh", args: grandparent(true), timeoutMs: 1500 },
      ctxFor(box.config({ killGraceMs: 300 })),
    );
    const pid = await grandchildPid();
    await failure(call);
    expect(await waitFor(() => isGone(pid))).toBe(true);
  });

  it("on cancel: the call stops with CANCELLED and the grandchild is gone", async () => {
    const controller = new AbortController();
    const call = runCommand(
      { command: "sh", args: grandparent(), timeoutMs: 60_000 },
      ctxFor(box.config(), { signal: controller.signal }),
    );
    const pid = await grandchildPid();
    controller.abort();
    const error = await failure(call);
    expect(error.code).toBe("CANCELLED");
    expect(await waitFor(() => isGone(pid))).toBe(true);
  });

  it("when the command exits, what it left running in its group is killed", async () => {
    const out = await runCommand(
      { command: "sh", args: ["-c", "sleep 30 & echo $! > grandchild.pid; echo started"], timeoutMs: 20_000 },
      ctxFor(box.config()),
    );
    expect(out.data).toMatchObject({ exitCode: 0, stdout: "started\n" });
    const pid = await grandchildPid();
    expect(await waitFor(() => isGone(pid))).toBe(true);
  });

  it("a process that leaves the group cannot hold the call open", async () => {
    const out = await runCommand(
      {
        command: "node",
        args: [
          "-e",
          "const c = require('child_process').spawn('sleep', ['30'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }); require('fs').writeFileSync('grandchild.pid', String(c.pid)); c.unref();",
        ],
        timeoutMs: 20_000,
      },
      ctxFor(box.config()),
    );
    expect(out.data.exitCode).toBe(0);
    await grandchildPid(); // escaped on purpose; afterEach kills it
  });

  it("the control: killing only the command would leave the grandchild running", async () => {
    const child = spawn("sh", grandparent(), { cwd: box.root, stdio: "ignore" });
    const pid = await grandchildPid();
    child.kill("SIGKILL");
    await new Promise((r) => child.once("close", r));
    await new Promise((r) => setTimeout(r, 200));
    expect(isGone(pid)).toBe(false);
  });

  it("refuses to start when already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      runCommand({ command: "echo", args: ["x"] }, ctxFor(box.config(), { signal: controller.signal })),
    ).rejects.toThrow();
  });
});
