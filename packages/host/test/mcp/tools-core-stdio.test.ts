// The tools core (src/mcp/tools-core.ts) behind stdio's line transport, driven line by line on the pipes
// `skillport serve --stdio` reads and writes: what only the line transport shows (a client's text, ids the protocol
// forbids, an own "__proto__" key). A request the core answers itself and the same request with one more `_meta` key
// (which it leaves to the SDK's server, unread) must be answered alike; the host's debug line at close counts what
// the core answered, so the test knows which one did. (Every kind of call, progress and cancels: tools-core.test.ts.)
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LinePipe, Message } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ECHO } from "../helpers.js";
import { capturingLogger } from "../http-helpers.js";
import { hostFrom, pipeStdio } from "../serving.js";
import { comparable, MODERN_META, SDK_PATH_META } from "./raw-connection.js";

interface CoreCounts {
  calls: number;
  lists: number;
  passedOn: number;
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-core-stdio-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A host served on pipes, the 2025 era's handshake done when `handshake`, and what its close line counts. */
async function served(handshake = true) {
  const logs = capturingLogger();
  const host = await hostFrom(
    dir,
    {
      name: "fast-path",
      version: "1.0.0",
      audit: { file: "./audit.log" },
      skills: [{ path: ECHO, mcp: "echo", concurrency: 4, queue: 8 }],
    },
    { logger: logs.logger },
  );
  const pipe: LinePipe = pipeStdio(host);
  if (handshake) {
    await pipe.request(0, {
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    pipe.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  /** Closes the connection and the host; what the close line says each path answered. */
  const countsAtClose = async (): Promise<CoreCounts> => {
    await pipe.close();
    await host.close();
    const closed = logs.lines().find((l) => l.msg === "stdio connection closed") as { fastPath?: CoreCounts };
    if (closed?.fastPath === undefined) throw new Error("no close line");
    return closed.fastPath;
  };
  return { pipe, countsAtClose };
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
    const { pipe, countsAtClose } = await served();
    try {
      let id = 1;
      for (const [what, params] of CALLS) {
        const fast = await pipe.request(id++, { method: "tools/call", params });
        const meta = (params as { _meta?: object })._meta ?? {};
        const sdk = await pipe.request(id++, {
          method: "tools/call",
          params: { ...params, _meta: { ...meta, ...SDK_PATH_META } },
        });
        expect(comparable(fast), what).toEqual(comparable(sdk));
      }
      const list = await pipe.request("list-fast", { method: "tools/list" });
      const listSdk = await pipe.request("list-sdk", { method: "tools/list", params: { _meta: SDK_PATH_META } });
      expect(comparable(list)).toEqual(comparable(listSdk));
      expect(list.result.tools.length).toBeGreaterThan(5);
    } finally {
      // 10 of the calls above are plain (the last four are malformed, and the SDK answers them), one list is.
      expect(await countsAtClose()).toEqual({ calls: 10, lists: 1, passedOn: 0 });
    }
  });

  it("leaves hostile messages to the SDK's server, which answers them as before, and keeps serving", async () => {
    const { pipe, countsAtClose } = await served();
    try {
      // Ids the protocol does not allow: never run, at most refused as invalid requests; the server keeps serving.
      for (const id of [1.5, null, { a: 1 }, [1], true]) {
        pipe.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo.plain", arguments: {} } });
      }
      // An own "__proto__" key in the arguments, as JSON can carry it: answered as the SDK path answers it.
      const proto = (id: number, meta: string) =>
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo.echo","arguments":{"text":"hi","__proto__":{"times":3}}${meta}}}`;
      pipe.send(proto(100, ""));
      pipe.send(proto(101, `,"_meta":${JSON.stringify(SDK_PATH_META)}`));
      const [a, b] = await Promise.all([pipe.next((m) => m.id === 100), pipe.next((m) => m.id === 101)]);
      expect(comparable(a)).toEqual(comparable(b));
      // params that are not an object, a wrong jsonrpc, an extra member: the SDK's answers.
      const notObject = await pipe.request(102, { method: "tools/call", params: ["echo.plain"] });
      expect(notObject.error).toBeDefined();
      pipe.send({ jsonrpc: "1.0", id: 103, method: "tools/call", params: { name: "echo.plain" } });
      pipe.send({ jsonrpc: "2.0", id: 104, method: "tools/call", params: { name: "echo.plain" }, extra: true });
      const [wrongVersion, extraMember] = await Promise.all([
        pipe.next((m) => m.id === 103),
        pipe.next((m) => m.id === 104),
      ]);
      expect(wrongVersion.error.code).toBe(-32600);
      expect(extraMember.error.code).toBe(-32600);
      const still = await pipe.request(105, {
        method: "tools/call",
        params: { name: "echo.echo", arguments: { text: "ok" } },
      });
      expect(still.result.structuredContent.data).toEqual({ echoed: "ok" });
      const odd = pipe.lines
        .map((line) => JSON.parse(line) as Message)
        .filter((m) => m.id === null || typeof m.id === "object" || m.id === 1.5 || m.id === true);
      expect(odd.every((m) => m.result === undefined && m.error.code === -32600)).toBe(true);
    } finally {
      const counts = await countsAtClose();
      expect(counts.calls).toBe(1); // only the last call was plain
    }
  });
});

describe("the 2026-07-28 era stays with the SDK's server", () => {
  it("answers tools/call with the era's envelope, and the core's branch takes none of it", async () => {
    const { pipe, countsAtClose } = await served(false);
    try {
      const answer = await pipe.request(1, {
        method: "tools/call",
        params: { name: "echo.echo", arguments: { text: "new" }, _meta: MODERN_META },
      });
      expect(answer.result.resultType).toBe("complete");
      expect(answer.result.structuredContent.data).toEqual({ echoed: "new" });
      // Without the envelope, the era's rule holds: the SDK refuses it.
      const bare = await pipe.request(2, {
        method: "tools/call",
        params: { name: "echo.echo", arguments: { text: "x" } },
      });
      expect(bare.error.code).toBe(-32602);
    } finally {
      expect(await countsAtClose()).toEqual({ calls: 0, lists: 0, passedOn: 0 });
    }
  });
});
