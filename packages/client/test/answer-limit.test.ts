// maxResultBytes against a server that answers without end (the huge-answer fixture, in its own process): over
// stdio, HTTP JSON and HTTP SSE, through `connect` and through McpHub, each server with its own limit.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CallToolOutcome, McpHandle } from "@skillport/client";
import { McpHub } from "@skillport/client";
import type { ServerSpec } from "@skillport/client/node";
import { connect } from "@skillport/client/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const HUGE = fileURLToPath(new URL("./fixtures/huge-answer-server.mjs", import.meta.url));
const KIB = 1024;

let httpServer: ChildProcessWithoutNullStreams;
let base: string;
const handles: McpHandle[] = [];

beforeAll(async () => {
  httpServer = spawn(process.execPath, [HUGE, "http"]);
  let out = "";
  const port = await new Promise<number>((resolve, reject) => {
    httpServer.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve((JSON.parse(out.split("\n")[0] ?? "") as { port: number }).port);
    });
    httpServer.on("exit", (code) => reject(new Error(`the HTTP fixture exited with ${code}`)));
  });
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop()));
  httpServer.kill();
});

const specs: [string, (extra: { maxResultBytes?: number }) => ServerSpec][] = [
  ["stdio", (extra) => ({ transport: "stdio", command: process.execPath, args: [HUGE], ...extra })],
  ["HTTP JSON", (extra) => ({ transport: "http", url: `${base}/json`, ...extra })],
  ["HTTP SSE", (extra) => ({ transport: "http", url: `${base}/sse`, ...extra })],
];

function open(spec: ServerSpec): McpHandle {
  const handle = connect(spec);
  handles.push(handle);
  return handle;
}

const textOf = (outcome: CallToolOutcome) => (outcome.result?.content[0] as { text?: string } | undefined)?.text;

describe.each(specs)("maxResultBytes over %s", (transport, specOf) => {
  it("passes an answer under the limit; one over it answers RESULT_TOO_LARGE and resets the connection", async () => {
    const handle = open(specOf({ maxResultBytes: 64 * KIB }));
    const first = await handle.callTool("pid");
    expect(first.ok, JSON.stringify(first)).toBe(true);

    const under = await handle.callTool("huge", { bytes: 60 * KIB });
    expect(under.ok).toBe(true);
    expect(textOf(under)).toHaveLength(60 * KIB);

    const over = await handle.callTool("huge", { bytes: 1024 * KIB });
    expect(over).toMatchObject({ ok: false, error: { code: "RESULT_TOO_LARGE" } });
    expect(over.ok ? "" : over.error.message).toContain(
      'calling "huge": an answer exceeded maxResultBytes (65536 bytes)',
    );
    expect(handle.state.value).toBe("idle");

    // The next call opens a new connection (for stdio, a new process).
    const again = await handle.callTool("pid");
    expect(again.ok).toBe(true);
    if (transport === "stdio") expect(textOf(again)).not.toBe(textOf(first));
    expect(textOf(await handle.callTool("small", { text: "hi" }))).toBe("small: hi");
  }, 60_000);

  it("defaults to 4 MiB", async () => {
    const handle = open(specOf({}));
    expect((await handle.callTool("huge", { bytes: 4000 * KIB })).ok).toBe(true);
    const over = await handle.callTool("huge", { bytes: 200 * 1024 * KIB });
    expect(over).toMatchObject({ ok: false, error: { code: "RESULT_TOO_LARGE" } });
    expect(over.ok ? "" : over.error.message).toContain("maxResultBytes (4194304 bytes)");
  }, 60_000);
});

describe("maxResultBytes in McpHub", () => {
  it("is each server's own: one server's reset touches no other, and it answers again on the next call", async () => {
    const strict = open({ transport: "stdio", command: process.execPath, args: [HUGE], maxResultBytes: 16 * KIB });
    const roomy = open({ transport: "http", url: `${base}/json`, maxResultBytes: 1024 * KIB });
    const hub = new McpHub({ strict, roomy }, { onWarning: () => undefined });
    expect((await hub.start()).ok).toBe(true);

    const over = await hub.callTool("strict.huge", { bytes: 32 * KIB });
    expect(over).toMatchObject({ ok: false, error: { code: "RESULT_TOO_LARGE" } });
    expect(over.ok ? "" : over.error.message).toContain("maxResultBytes (16384 bytes)");
    const fits = await hub.callTool("roomy.huge", { bytes: 32 * KIB });
    expect(textOf(fits)).toHaveLength(32 * KIB);
    expect(roomy.state.value).toBe("ready");

    expect(textOf(await hub.callTool("strict.small", { text: "back" }))).toBe("small: back");
    expect(hub.listTools().map((t) => t.name)).toEqual(expect.arrayContaining(["strict.huge", "roomy.huge"]));
    await hub.stop();
  }, 60_000);

  it("a spec whose maxResultBytes is not a positive integer is a programming error", () => {
    expect(() => connect({ transport: "http", url: `${base}/json`, maxResultBytes: 0 })).toThrow(TypeError);
    expect(() => connect({ transport: "stdio", command: "node", maxResultBytes: 1.5 })).toThrow(/positive integer/);
  });
});
