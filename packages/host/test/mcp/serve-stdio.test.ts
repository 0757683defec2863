// What `skillport serve --stdio` answers to a client's text that is not one plain message (src/mcp/serve-stdio.ts),
// driven line by line on the pipes it reads and writes, in this process: a JSON-RPC batch, a line that is not JSON,
// a message over stdio.maxMessageBytes. Each is answered, runs nothing, and the server keeps serving. (What only a
// real process shows, a skill's own output kept off stdout, is the CLI's test/stdio-edge.test.ts.)
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LinePipe } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ECHO } from "../helpers.js";
import { hostFrom, pipeStdio } from "../serving.js";
import { MODERN_META } from "./raw-connection.js";

const MiB = 1024 * 1024;

const initialize = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };

let dir: string;
const pipes: LinePipe[] = [];
const closing: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-serve-stdio-"));
});
afterAll(async () => {
  await Promise.all(pipes.map((pipe) => pipe.close()));
  for (const close of closing) await close();
  await rm(dir, { recursive: true, force: true });
});

/** The echo fixture served on pipes, under a manifest named "test-server" (with `extra` fields). */
async function served(extra: Record<string, unknown> = {}): Promise<LinePipe> {
  const host = await hostFrom(dir, {
    name: "test-server",
    version: "1.0.0",
    skills: [{ path: ECHO, mcp: "echo" }],
    ...extra,
  });
  closing.push(() => host.close());
  const pipe = pipeStdio(host);
  pipes.push(pipe);
  return pipe;
}

describe("serve --stdio refuses JSON-RPC batches, as HTTP does", () => {
  it.each([
    ["2025-11-25", false],
    ["2026-07-28", true],
  ])(
    "answers a batch with -32600 and id null in the %s era, runs none of it, and keeps serving",
    async (_era, modern) => {
      const server = await served();
      const meta = modern ? { _meta: MODERN_META } : {};
      if (!modern) {
        server.send(initialize(1));
        await server.next((m) => m.id === 1);
        server.send(initialized);
      }
      const calls = [10, 11].map((id) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "echo.echo", arguments: { text: `batched ${id}` }, ...meta },
      }));
      server.send(calls);
      server.send({ jsonrpc: "2.0", id: 12, method: "tools/list", params: { ...meta } });
      // Lines are answered in order, so the batch's answer comes before the next request's.
      const listed = await server.next((m) => m.id === 12);
      expect(listed.result.tools.length).toBeGreaterThan(0);
      const before = server.lines.slice(
        0,
        server.lines.findIndex((l) => l.includes('"id":12')),
      );
      expect(before.map((l) => JSON.parse(l)).filter((m) => m.id !== 1)).toEqual([
        {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: expect.stringMatching(/batches are not supported.*one message per line/) },
        },
      ]);
      expect(server.lines.some((l) => /"id":1[01][,}]/.test(l))).toBe(false);
    },
  );

  it("answers a line that is not JSON with -32700, and keeps serving", async () => {
    const server = await served();
    server.send("{ this is not json");
    server.send(initialize(1));
    expect((await server.next((m) => m.id === 1)).result.serverInfo.name).toBe("test-server");
    expect(JSON.parse(server.lines[0] ?? "null")).toMatchObject({ id: null, error: { code: -32700 } });
  });
});

describe("serve --stdio and a message over stdio.maxMessageBytes", () => {
  it.each([
    ["id first", (params: object) => ({ jsonrpc: "2.0", id: 5, method: "tools/call", params })],
    [
      "id last, as the SDK client writes it",
      (params: object) => ({ jsonrpc: "2.0", method: "tools/call", params, id: 5 }),
    ],
  ])("answers it with a JSON-RPC error for its id (%s) and keeps serving", async (_case, build) => {
    const server = await served({ stdio: { maxMessageBytes: MiB } });
    server.send(initialize(1));
    await server.next((m) => m.id === 1);
    server.send(initialized);
    server.send({ jsonrpc: "2.0", id: 4, method: "tools/list" });
    const tools = (await server.next((m) => m.id === 4)).result.tools.length;
    server.send(build({ name: "echo.echo", arguments: { text: "x".repeat(2 * MiB) } }));
    server.send({ jsonrpc: "2.0", id: 6, method: "tools/list" });
    const refusal = await server.next((m) => m.id === 5);
    expect(refusal.error).toEqual({
      code: -32600,
      message: expect.stringMatching(/over this server's limit of 1048576 bytes \(stdio\.maxMessageBytes/),
    });
    expect((await server.next((m) => m.id === 6)).result.tools.length).toBe(tools);
  });
});
