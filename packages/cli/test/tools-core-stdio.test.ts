// The tools core (host src/mcp/tools-core.ts) over stdio, against a real `skillport serve --stdio` process driven
// line by line: what only the line transport shows. A request the core answers itself and the same request with one
// more `_meta` key (which it leaves to the SDK's server, unread) must be answered alike; the server's debug line at
// close counts what the core answered, so the test knows which one did. (Every kind of call, progress and cancels
// are tested in memory, in the host's test/mcp.)
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message, RawServer, Workspace } from "./workspace.js";
import { initialize, initialized, MODERN_META, makeWorkspace, REPO, serveRaw } from "./workspace.js";

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");

interface CoreCounts {
  calls: number;
  lists: number;
  passedOn: number;
}

/** A `_meta` key no one reads: the core leaves a request carrying it to the SDK's server, unread. */
const SDK_PATH_META = { "example.com/route": "sdk" };

/** An answer without what differs per call: its id, trace ids and durations. */
function comparable(message: Message): Message {
  const normalised = JSON.stringify(message)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<trace>")
    .replace(/"durationMs":[0-9.e-]+/g, '"durationMs":0');
  const { id: _id, ...rest } = JSON.parse(normalised);
  return rest;
}

let ws: Workspace;
let manifest: string;

beforeAll(async () => {
  ws = await makeWorkspace();
  manifest = await ws.writeManifest(
    {
      name: "fast-path",
      version: "1.0.0",
      audit: { file: "./audit.log" },
      skills: [{ path: ECHO, mcp: "echo", concurrency: 4, queue: 8 }],
    },
    "fast.manifest.json",
  );
});
afterAll(() => ws.dispose());

/** A served process with the 2025 era's handshake done. */
async function open2025(): Promise<{
  server: RawServer;
  request: (id: number | string, body: object) => Promise<Message>;
}> {
  const server = serveRaw(manifest, ws.dir, { SKILLPORT_LOG_LEVEL: "debug" });
  server.send(initialize(0));
  await server.next((m) => m.id === 0);
  server.send(initialized);
  const request = (id: number | string, body: object) => {
    server.send({ jsonrpc: "2.0", id, ...body });
    return server.next((m) => m.id === id && m.method === undefined);
  };
  return { server, request };
}

/** What the close line says each path answered. */
async function countsAtClose(server: RawServer): Promise<CoreCounts> {
  await server.close();
  for (const line of server.stderr().split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { msg?: string; fastPath?: CoreCounts };
    if (entry.msg === "stdio connection closed" && entry.fastPath !== undefined) return entry.fastPath;
  }
  throw new Error(`no close line; stderr:\n${server.stderr()}`);
}

const CALLS: [string, object][] = [
  ["a success with structured content", { name: "echo.echo", arguments: { text: "hi", times: 2 } }],
  ["plain data", { name: "echo.plain", arguments: {} }],
  ["no arguments at all", { name: "echo.plain" }],
  ["a tool's own error", { name: "echo.fail", arguments: {} }],
  ["an internal error", { name: "echo.boom", arguments: {} }],
  ["invalid arguments", { name: "echo.echo", arguments: { text: "" } }],
  ["an unknown argument", { name: "echo.echo", arguments: { text: "x", extra: 1 } }],
  ["a legacy argument shape", { name: "echo.find", arguments: { query: "old" } }],
  ["an unknown tool", { name: "echo.nope", arguments: {} }],
  ["a huge unknown name", { name: "n".repeat(100_000), arguments: {} }],
  ["arguments that are an array", { name: "echo.echo", arguments: ["hi"] }],
  ["arguments that are a string", { name: "echo.echo", arguments: "hi" }],
  ["a name that is a number", { name: 7, arguments: {} }],
  ["a progress token that is an object", { name: "echo.plain", _meta: { progressToken: {} } }],
];

describe("the tools core answers tools/call as the SDK's server does (2025 era, stdio)", () => {
  it("gives the same answer on both paths, and answers the plain requests itself", async () => {
    const { server, request } = await open2025();
    try {
      let id = 1;
      for (const [what, params] of CALLS) {
        const fast = await request(id++, { method: "tools/call", params });
        const meta = (params as { _meta?: object })._meta ?? {};
        const sdk = await request(id++, {
          method: "tools/call",
          params: { ...params, _meta: { ...meta, ...SDK_PATH_META } },
        });
        expect(comparable(fast), what).toEqual(comparable(sdk));
      }
      const list = await request("list-fast", { method: "tools/list" });
      const listSdk = await request("list-sdk", { method: "tools/list", params: { _meta: SDK_PATH_META } });
      expect(comparable(list)).toEqual(comparable(listSdk));
      expect(list.result.tools.length).toBeGreaterThan(5);
    } finally {
      // 10 of the calls above are plain (the last four are malformed, and the SDK answers them), one list is.
      expect(await countsAtClose(server)).toEqual({ calls: 10, lists: 1, passedOn: 0 });
    }
  });

  it("leaves hostile messages to the SDK's server, which answers them as before, and keeps serving", async () => {
    const { server, request } = await open2025();
    try {
      // Ids the protocol does not allow: never run, at most refused as invalid requests; the server keeps serving.
      for (const id of [1.5, null, { a: 1 }, [1], true]) {
        server.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo.plain", arguments: {} } });
      }
      // An own "__proto__" key in the arguments, as JSON can carry it: answered as the SDK path answers it.
      const proto = (id: number, meta: string) =>
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo.echo","arguments":{"text":"hi","__proto__":{"times":3}}${meta}}}`;
      server.send(proto(100, ""));
      server.send(proto(101, `,"_meta":${JSON.stringify(SDK_PATH_META)}`));
      const [a, b] = await Promise.all([server.next((m) => m.id === 100), server.next((m) => m.id === 101)]);
      expect(comparable(a)).toEqual(comparable(b));
      // params that are not an object, a wrong jsonrpc, an extra member: the SDK's answers.
      const notObject = await request(102, { method: "tools/call", params: ["echo.plain"] });
      expect(notObject.error).toBeDefined();
      server.send({ jsonrpc: "1.0", id: 103, method: "tools/call", params: { name: "echo.plain" } });
      server.send({ jsonrpc: "2.0", id: 104, method: "tools/call", params: { name: "echo.plain" }, extra: true });
      const [wrongVersion, extraMember] = await Promise.all([
        server.next((m) => m.id === 103),
        server.next((m) => m.id === 104),
      ]);
      expect(wrongVersion.error.code).toBe(-32600);
      expect(extraMember.error.code).toBe(-32600);
      const still = await request(105, {
        method: "tools/call",
        params: { name: "echo.echo", arguments: { text: "ok" } },
      });
      expect(still.result.structuredContent.data).toEqual({ echoed: "ok" });
      const odd = server.lines
        .map((line) => JSON.parse(line) as Message)
        .filter((m) => m.id === null || typeof m.id === "object" || m.id === 1.5 || m.id === true);
      expect(odd.every((m) => m.result === undefined && m.error.code === -32600)).toBe(true);
    } finally {
      const counts = await countsAtClose(server);
      expect(counts.calls).toBe(1); // only the last call was plain
    }
  });
});

describe("the 2026-07-28 era stays with the SDK's server", () => {
  it("answers tools/call with the era's envelope, and the core's branch takes none of it", async () => {
    const server = serveRaw(manifest, ws.dir, { SKILLPORT_LOG_LEVEL: "debug" });
    try {
      server.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo.echo", arguments: { text: "new" }, _meta: MODERN_META },
      });
      const answer = await server.next((m) => m.id === 1);
      expect(answer.result.resultType).toBe("complete");
      expect(answer.result.structuredContent.data).toEqual({ echoed: "new" });
      // Without the envelope, the era's rule holds: the SDK refuses it.
      server.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "echo.echo", arguments: { text: "x" } },
      });
      const bare = await server.next((m) => m.id === 2);
      expect(bare.error.code).toBe(-32602);
    } finally {
      expect(await countsAtClose(server)).toEqual({ calls: 0, lists: 0, passedOn: 0 });
    }
  });
});
