import { spawn } from "node:child_process";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { CLI, makeWorkspace, REPO } from "./workspace.js";

// A client's requests piped into `skillport serve --stdio`, then the end of input (printf … | skillport serve
// --stdio): every request in flight is finished and answered, each within its tool's timeout, and then the server
// exits 0. The last answer is the one a script waits for.

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "printf", version: "0" } },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };
const call = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
});

/**
 * The messages written all at once, stdin ended (or, `afterInitialize`, the first one, then the rest once it is
 * answered, as a client that waits for the handshake); what came back, the audit outcomes, the exit code and the time.
 */
function piped(manifest: string, cwd: string, messages: unknown[], afterInitialize = false) {
  return new Promise<{ answers: Record<string, unknown>[]; outcomes: string[]; code: number | null; ms: number }>(
    (resolve, reject) => {
      const started = Date.now();
      const child = spawn(process.execPath, [CLI, "serve", "--stdio", "--manifest", manifest], {
        cwd,
        env: { ...process.env, SKILLPORT_LOG_LEVEL: "info" },
      });
      let stdout = "";
      let stderr = "";
      const lines = (list: unknown[]) => list.map((m) => `${JSON.stringify(m)}\n`).join("");
      let rest = afterInitialize ? messages.slice(1) : undefined;
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
        if (rest !== undefined && stdout.includes("\n")) {
          child.stdin.end(lines(rest));
          rest = undefined;
        }
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      child.on("error", reject);
      child.on("close", (code) =>
        resolve({
          answers: stdout
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l)),
          outcomes: stderr
            .split("\n")
            .filter((l) => l.includes('"kind":"audit"'))
            .map((l) => (JSON.parse(l) as { outcome: string }).outcome),
          code,
          ms: Date.now() - started,
        }),
      );
      if (afterInitialize) child.stdin.write(lines(messages.slice(0, 1)));
      else child.stdin.end(lines(messages));
    },
  );
}

let ws: Workspace;
beforeEach(async () => {
  ws = await makeWorkspace();
});
afterEach(async () => {
  await ws.dispose();
});

describe("the end of stdin", () => {
  it.each([
    ["piped all at once", false],
    ["sent once the handshake is answered (the tools core answers the plain call)", true],
  ])("lets the calls in flight finish and writes their answers, then exits 0: %s", async (_case, afterInitialize) => {
    const manifest = await ws.writeManifest({ skills: [{ path: ECHO }] }, "echo.manifest.json");
    const { answers, outcomes, code } = await piped(
      manifest,
      ws.dir,
      [
        INITIALIZE,
        INITIALIZED,
        LIST,
        call(3, "echo.sleep", { ms: 300 }),
        // An unread _meta key hands the call to the SDK's server rather than the tools core's own answer.
        call(4, "echo.sleep", { ms: 300 }, { "example.com/route": "sdk" }),
      ],
      afterInitialize,
    );
    expect(code).toBe(0);
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4]);
    for (const id of [3, 4]) {
      expect(answers.find((a) => a.id === id)).toMatchObject({ result: { structuredContent: { ok: true } } });
    }
    expect(outcomes).toEqual(["OK", "OK"]);
  });

  it("waits for a call no longer than its timeout: it is answered TIMEOUT, then the server exits", async () => {
    const manifest = await ws.writeManifest({ skills: [{ path: ECHO, timeoutMs: 1000 }] }, "bounded.manifest.json");
    const { answers, code, ms } = await piped(manifest, ws.dir, [INITIALIZE, INITIALIZED, call(2, "echo.wait", {})]);
    expect(code).toBe(0);
    expect(answers.find((a) => a.id === 2)).toMatchObject({
      result: { isError: true, structuredContent: { ok: false, error: { code: "TIMEOUT" } } },
    });
    expect(ms).toBeLessThan(20_000);
  });
});
