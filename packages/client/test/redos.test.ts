// A hostile server's output schema ("^(a+)+$", no maxLength; fixtures/redos-server.mjs) cannot freeze a client: its
// structuredContent is checked with RE2, through connect over stdio and Streamable HTTP, and through McpHub.
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CallToolOutcome, McpHandle } from "@skillport/client";
import { McpHub } from "@skillport/client";
import { connect } from "@skillport/client/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FIXTURE = fileURLToPath(new URL("./fixtures/redos-server.mjs", import.meta.url));
/** 41 characters: about 2^40 steps for a backtracking "^(a+)+$" (hours), none of note for RE2. */
const HOSTILE = `${"a".repeat(40)}!`;

let http: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  const child = spawn(process.execPath, [FIXTURE, "--http"], { stdio: ["ignore", "ignore", "pipe"] });
  http = child;
  url = await new Promise<string>((resolve, reject) => {
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      const line = stderr.split("\n").find((l) => l.includes('"listening"'));
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on("exit", (code) => reject(new Error(`the fixture exited with ${code}:\n${stderr}`)));
  });
});
afterAll(() => {
  http?.kill("SIGKILL");
});

/**
 * The hostile output, refused as not matching the schema. A client checking it with a backtracking engine would not
 * answer in hours, nor run anything else meanwhile; no clock is read, so a loaded test machine cannot fail it.
 */
async function refusesHostile(call: () => Promise<CallToolOutcome>): Promise<void> {
  const outcome = await call();
  expect(outcome).toMatchObject({ ok: false, error: { code: "PROTOCOL_ERROR" } });
  if (!outcome.ok) expect(outcome.error.message).toContain('must match pattern "^(a+)+$"');
}

describe.each([
  ["stdio", (): McpHandle => connect({ transport: "stdio", command: process.execPath, args: [FIXTURE] })],
  ["Streamable HTTP", (): McpHandle => connect({ transport: "http", url })],
])("a hostile output schema over %s", (_transport, open) => {
  it("is checked in linear time: connect refuses the hostile answer, and a pattern RE2 cannot run", async () => {
    const handle = open();
    try {
      expect(await handle.callTool("answer", { text: "aaa" }, { timeoutMs: 5_000 })).toMatchObject({ ok: true });
      await refusesHostile(() => handle.callTool("answer", { text: HOSTILE }, { timeoutMs: 5_000 }));
      const refused = await handle.callTool("lookahead_answer", { text: "aaa" }, { timeoutMs: 5_000 });
      expect(refused).toMatchObject({ ok: false, error: { code: "PROTOCOL_ERROR" } });
      if (!refused.ok) expect(refused.error.message).toContain('"^(?=a)a*$" cannot be run in linear time (RE2)');
    } finally {
      await handle.stop();
    }
  }, 60_000);

  it("through McpHub refuses the hostile answer and answers the next call", async () => {
    const hub = new McpHub(new Map([["bad", open()]]), { onWarning: () => undefined });
    try {
      expect((await hub.start()).ok).toBe(true);
      expect(await hub.callTool("bad.answer", { text: "aaa" }, { timeoutMs: 5_000 })).toMatchObject({ ok: true });
      await refusesHostile(() => hub.callTool("bad.answer", { text: HOSTILE }, { timeoutMs: 5_000 }));
      expect(await hub.callTool("bad.answer", { text: "aaa" }, { timeoutMs: 5_000 })).toMatchObject({ ok: true });
    } finally {
      await hub.stop();
    }
  }, 60_000);
});
