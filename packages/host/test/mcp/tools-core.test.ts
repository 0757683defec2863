// The one tools core, in memory: on a connection served as stdio serves it, and behind the web handler's guards (what
// node:http serves too). A request the core answers itself and the same request with one more `_meta` key (which it
// leaves to the SDK's server, whose tools handlers call the same core) must be answered alike, notifications
// included; the core's counts (a connection) and the request's context (HTTP) say which one answered.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseJSONRPCMessage } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../src/host.js";
import { createHost } from "../../src/host.js";
import { createHostHttpHandler } from "../../src/mcp/serve-http.js";
import type { CallObserver } from "../../src/mcp/tools-core.js";
import { resolveHttpConfig } from "../../src/transports/http/config.js";
import type { EdgeContext } from "../../src/transports/http/guard.js";
import type { HttpHandler } from "../../src/transports/http/handler.js";
import { createMetrics } from "../../src/transports/http/metrics.js";
import { ECHO, FIXTURES, manifestOf, silentLogger } from "../helpers.js";
import type { RawConnection } from "./raw-connection.js";
import { comparable, MODERN_META, openRaw, SDK_PATH_META } from "./raw-connection.js";

const LIBRARY = path.join(FIXTURES, "skill-library");
const ROUTED = path.join(FIXTURES, "skill-routed");
const TOKEN = "core-token-0123456789abcdef";
const NARROW = "narrow-token-0123456789abcdef";
const ORIGIN = "http://app.example";

let dir: string;
let host: Host;

/** The composition, with `http` as its http object. */
const manifest = (http?: object) => ({
  name: "tools-core",
  version: "1.0.0",
  skills: [
    { path: ECHO, mcp: "echo", allow: ["wipe"], scopes: { "*": ["echo:call"] }, concurrency: 8, queue: 8 },
    { path: LIBRARY, mcp: "library", scopes: { "*": ["echo:call"] } },
    { path: ROUTED, mcp: "routed", scopes: { "*": ["echo:call"] } },
  ],
  audit: { file: path.join(dir, "audit.log") },
  ...(http === undefined ? {} : { http }),
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-core-"));
  host = await createHost({ manifest: manifestOf(manifest()), logger: silentLogger() });
});
afterAll(async () => {
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Calls of every kind of answer, and malformed ones the core leaves to the SDK (`plain: false`). */
const CALLS: { what: string; params: Record<string, unknown>; plain: boolean; passedOn?: boolean }[] = [
  {
    what: "a success with structured content",
    params: { name: "echo.echo", arguments: { text: "hi", times: 2 } },
    plain: true,
  },
  { what: "plain data", params: { name: "echo.plain", arguments: {} }, plain: true },
  { what: "no arguments at all", params: { name: "echo.plain" }, plain: true },
  { what: "a tool's own error", params: { name: "echo.fail", arguments: {} }, plain: true },
  { what: "an internal error", params: { name: "echo.boom", arguments: {} }, plain: true },
  { what: "invalid arguments", params: { name: "echo.echo", arguments: { text: "" } }, plain: true },
  { what: "an unknown argument", params: { name: "echo.echo", arguments: { text: "x", extra: 1 } }, plain: true },
  { what: "a legacy argument shape", params: { name: "echo.find", arguments: { query: "old" } }, plain: true },
  { what: "an unknown tool", params: { name: "echo.nope", arguments: {} }, plain: true },
  { what: "a huge unknown name", params: { name: "n".repeat(100_000), arguments: {} }, plain: true },
  { what: "log lines while it runs", params: { name: "library.log_steps", arguments: {} }, plain: true },
  { what: "content blocks of its own", params: { name: "library.show_cover", arguments: {} }, plain: true },
  { what: "content that is not MCP content", params: { name: "library.bad_content", arguments: {} }, plain: true },
  { what: "log lines and a content block", params: { name: "routed.shown", arguments: {} }, plain: true },
  {
    what: "a dangerous call from a client that cannot be asked",
    params: { name: "echo.wipe", arguments: { target: "t" } },
    plain: true,
  },
  {
    what: "a question the client cannot answer",
    params: { name: "library.ask_name", arguments: {} },
    plain: true,
    passedOn: true,
  },
  { what: "arguments that are an array", params: { name: "echo.echo", arguments: ["hi"] }, plain: false },
  { what: "arguments that are a string", params: { name: "echo.echo", arguments: "hi" }, plain: false },
  { what: "a name that is a number", params: { name: 7, arguments: {} }, plain: false },
  {
    what: "a progress token that is an object",
    params: { name: "echo.plain", _meta: { progressToken: {} } },
    plain: false,
  },
];

function isJsonRpc(message: object): boolean {
  try {
    parseJSONRPCMessage(message);
    return true;
  } catch {
    return false;
  }
}

/** The messages a request brought, each without what differs per call, and its answer. */
async function exchange(connection: RawConnection, id: string, params: object) {
  connection.received.length = 0;
  const answer = await connection.request(id, { method: "tools/call", params });
  const messages = connection.received.map(comparable);
  return { answer, messages };
}

describe("the tools core on a 2025-era connection (as stdio serves it)", () => {
  let connection: RawConnection;
  const finished: { tool: string; outcome: string }[] = [];
  const waiters = new Set<() => void>();
  const observer: CallObserver = {
    started: () => undefined,
    finished: (tool, _skill, outcome) => {
      finished.push({ tool, outcome });
      for (const wake of waiters) wake();
    },
  };
  /** Resolves once `count` calls have ended with `outcome`. */
  const ended = (outcome: string, count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (finished.filter((f) => f.outcome === outcome).length < count) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });

  beforeAll(async () => {
    connection = await openRaw(host, { observer });
  });
  afterAll(() => connection.close());

  it("answers every kind of call as the SDK does, notifications included, and takes the plain ones itself", async () => {
    const before = connection.counts.calls;
    let id = 0;
    let plainSoFar = 0;
    for (const { what, params, plain } of CALLS) {
      if (plain) plainSoFar++;
      if (!isJsonRpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params })) {
        // Not a JSON-RPC message at all: the SDK's server drops it unanswered in memory (stdio's line reader
        // answers it invalid first), and the core must not take it either.
        connection.send({ jsonrpc: "2.0", id: `c-${++id}`, method: "tools/call", params });
        expect(connection.counts.calls - before, what).toBe(plainSoFar);
        continue;
      }
      const core = await exchange(connection, `c-${++id}`, params);
      const meta = (params._meta as object | undefined) ?? {};
      const sdk = await exchange(connection, `s-${id}`, { ...params, _meta: { ...meta, ...SDK_PATH_META } });
      expect(core.messages, what).toEqual(sdk.messages);
      expect(connection.counts.calls - before, what).toBe(plainSoFar);
      if (plain) expect(core.answer.result ?? core.answer.error, what).toBeDefined();
    }
    const list = await connection.request("l-core", { method: "tools/list" });
    const listSdk = await connection.request("l-sdk", { method: "tools/list", params: { _meta: SDK_PATH_META } });
    expect(comparable(list)).toEqual(comparable(listSdk));
    expect(list.result.tools.length).toBeGreaterThan(10);
    expect(connection.counts.lists).toBe(1);
  });

  it("passes a question the client cannot answer on to the SDK, which refuses it; the call runs once", async () => {
    const before = { ...connection.counts };
    const ran = finished.length;
    const { answer } = await exchange(connection, "ask", { name: "library.ask_name", arguments: {} });
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0].text).toContain("did not declare the required capability");
    expect(connection.counts.calls - before.calls).toBe(1);
    expect(connection.counts.passedOn - before.passedOn).toBe(1);
    expect(finished.length - ran).toBe(1);
  });

  it("sends every progress notification before the result, on both paths", async () => {
    for (const [id, meta] of [
      ["p-core", { progressToken: "core" }],
      ["p-sdk", { progressToken: "sdk", ...SDK_PATH_META }],
    ] as const) {
      connection.received.length = 0;
      const answer = await connection.request(id, {
        method: "tools/call",
        params: { name: "echo.count", arguments: {}, _meta: meta },
      });
      expect(answer.result.structuredContent.data).toEqual({ counted: 10000 });
      const messages = connection.received;
      const at = messages.indexOf(answer);
      const progress = messages.filter((m) => m.method === "notifications/progress");
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.every((m) => m.params.progressToken === meta.progressToken)).toBe(true);
      expect(progress.every((m) => messages.indexOf(m) < at)).toBe(true);
    }
  });

  it("aborts a cancelled call and answers nothing for it, on both paths", async () => {
    const calls = connection.counts.calls;
    for (const [id, meta] of [
      ["w-core", { progressToken: "w1" }],
      ["w-sdk", { progressToken: "w2", ...SDK_PATH_META }],
    ] as const) {
      const cancelled = finished.filter((f) => f.outcome === "CANCELLED").length;
      connection.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "echo.wait", arguments: {}, _meta: meta },
      });
      // The tool reports progress once it runs: it is running now.
      await connection.next(
        (m) => m.method === "notifications/progress" && m.params.progressToken === meta.progressToken,
      );
      connection.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "user" } });
      await ended("CANCELLED", cancelled + 1);
      // Answers leave in order: the one after it is here, and nothing came for the cancelled call.
      const after = await connection.request(`after-${id}`, { method: "tools/call", params: { name: "echo.plain" } });
      expect(after.result).toBeDefined();
      expect(connection.received.some((m) => m.id === id)).toBe(false);
    }
    expect(connection.counts.calls - calls).toBe(3);
  });

  it("cancels each of several calls in flight by its id, whichever order they end in", async () => {
    const before = finished.filter((f) => f.outcome === "CANCELLED").length;
    const ids = ["m-a", "m-b", "m-c"];
    for (const id of ids) {
      connection.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "echo.wait", arguments: {}, _meta: { progressToken: id } },
      });
      await connection.next((m) => m.method === "notifications/progress" && m.params.progressToken === id);
    }
    // The middle one first, then the first, then the last: each cancel stops its own call and no other.
    for (const [n, id] of ["m-b", "m-a", "m-c"].entries()) {
      connection.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "user" } });
      await ended("CANCELLED", before + n + 1);
      // A cancel of an id no longer in flight (or never sent) changes nothing.
      connection.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
      connection.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "m-none" } });
      const after = await connection.request(`after-${id}`, { method: "tools/call", params: { name: "echo.plain" } });
      expect(after.result).toBeDefined();
      expect(finished.filter((f) => f.outcome === "CANCELLED").length).toBe(before + n + 1);
    }
    expect(connection.received.some((m) => ids.includes(m.id))).toBe(false);
  });
});

describe("the tools core on a connection whose client can be asked (it declared elicitation)", () => {
  it("runs its calls; a dangerous call's question is passed on to the SDK, which asks it once; the call runs once, after the answer", async () => {
    const connection = await openRaw(host, { capabilities: { elicitation: { form: {} } } });
    try {
      const plain = await connection.request("a-1", { method: "tools/call", params: { name: "echo.plain" } });
      expect(plain.result.isError).toBeUndefined();
      const answered = connection.request("a-2", {
        method: "tools/call",
        params: { name: "echo.wipe", arguments: { target: "asked" } },
      });
      const question = await connection.next((m) => m.method === "elicitation/create");
      expect(question.params.message).toContain("Wipe asked");
      connection.send({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { confirm: true } } });
      const wiped = await answered;
      expect(wiped.result.structuredContent.data.wiped).toBe("asked");
      expect(connection.received.filter((m) => m.method === "elicitation/create")).toHaveLength(1);
      expect(connection.counts).toEqual({ calls: 2, lists: 0, passedOn: 1 });
    } finally {
      await connection.close();
    }
  });
});

describe("the tools core behind the web handler's guards (both eras)", () => {
  let handle: HttpHandler;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const http = {
      allowedOrigins: [ORIGIN],
      maxBodyBytes: 200_000,
      rateLimit: { requestsPerMinute: 600, burst: 400 },
      auth: {
        tokens: [
          { name: "full", scopes: ["echo:call"], token: { env: "T_FULL" } },
          { name: "narrow", scopes: [], token: { env: "T_NARROW" } },
        ],
      },
    };
    const scoped = await createHost({ manifest: manifestOf(manifest(http)), logger: silentLogger() });
    const config = await resolveHttpConfig(scoped.manifest, { env: { T_FULL: TOKEN, T_NARROW: NARROW } });
    const served = createHostHttpHandler(scoped, config, {
      metrics: createMetrics({ processMetrics: false }),
      state: { draining: false, resource: undefined },
    });
    handle = served.handle;
    close = async () => {
      await served.close();
      await scoped.close();
    };
  });
  afterAll(() => close?.());

  interface Answer {
    status: number;
    headers: Record<string, string>;
    text: string;
    core: boolean;
  }
  const post = async (body: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const context: EdgeContext = { remoteAddress: "127.0.0.1" };
    const response = await handle(
      new Request("http://localhost:3333/mcp", {
        method: "POST",
        headers: {
          host: "localhost:3333",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
      context,
    );
    const kept: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== "date" && name !== "content-length") kept[name] = value;
    });
    return { status: response.status, headers: kept, text: await response.text(), core: context.toolsCore === true };
  };
  /** What an answer says, without what differs per call: a JSON body or each event's data, parsed. */
  const comparableAnswer = ({ status, headers, text }: Answer) => ({
    status,
    headers,
    body: headers["content-type"]?.startsWith("text/event-stream")
      ? text.split("\n").map((line) => (line.startsWith("data: ") ? comparable(JSON.parse(line.slice(6))) : line))
      : comparable(JSON.parse(text)),
  });
  let sent = 0;
  const bothPaths = async (params: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const meta = (params._meta as object | undefined) ?? {};
    const n = ++sent;
    const core = await post({ jsonrpc: "2.0", id: `core-${n}`, method: "tools/call", params }, headers);
    const sdk = await post(
      {
        jsonrpc: "2.0",
        id: `sdk-${n}`,
        method: "tools/call",
        params: { ...params, _meta: { ...meta, ...SDK_PATH_META } },
      },
      headers,
    );
    expect(sdk.core).toBe(false);
    return [core, sdk] as const;
  };
  const modernHeaders = (name: unknown) => ({
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": String(name),
  });

  it("answers every kind of call as the SDK does (stateless 2025 era), and the plain ones itself", async () => {
    for (const { what, params, plain, passedOn } of CALLS) {
      const [core, sdk] = await bothPaths(params);
      expect(comparableAnswer(core), what).toEqual(comparableAnswer(sdk));
      expect(core.core, what).toBe(plain && passedOn !== true);
    }
    // The log lines go before the result, in the SDK's event stream.
    const [logged] = await bothPaths({ name: "library.log_steps", arguments: {} });
    expect(logged.headers["content-type"]).toBe("text/event-stream");
    const events = logged.text.split("\n\n").filter((e) => e !== "");
    expect(events).toHaveLength(4);
    expect(events[3]).toContain('"result"');
  });

  it("answers every kind of call as the SDK does (2026-07-28 era), the era's envelope included", async () => {
    for (const { what, params, plain, passedOn } of CALLS) {
      const meta = { ...MODERN_META, ...((params._meta as object | undefined) ?? {}) };
      const [core, sdk] = await bothPaths({ ...params, _meta: meta }, modernHeaders(params.name));
      expect(comparableAnswer(core), what).toEqual(comparableAnswer(sdk));
      expect(core.core, what).toBe(plain && passedOn !== true);
      if (core.core)
        expect(JSON.parse(core.text).result?.resultType ?? JSON.parse(core.text).error, what).toBeDefined();
    }
  });

  it("leaves to the SDK what only it serves: a question to ask, a progress token, the era's list", async () => {
    const capable = { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
    const asked = await post(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo.wipe", arguments: { target: "x" }, _meta: capable },
      },
      modernHeaders("echo.wipe"),
    );
    expect(asked.core).toBe(false);
    expect(JSON.parse(asked.text).result.resultType).toBe("input_required");
    const progress = await post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo.plain", _meta: { progressToken: "p" } },
    });
    expect(progress.core).toBe(false);
    expect(progress.headers["content-type"]).toBe("text/event-stream");
    const modernList = await post(
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: MODERN_META } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    );
    expect(modernList.core).toBe(false);
    expect(JSON.parse(modernList.text).result.tools.length).toBeGreaterThan(10);
    const list = await post({ jsonrpc: "2.0", id: 4, method: "tools/list" });
    expect(list.core).toBe(true);
    expect(JSON.parse(list.text).result.tools).toEqual(JSON.parse(modernList.text).result.tools);
  });

  it("answers only once every guard passed: the token, the scopes, the origin, the rate limit", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo.plain", arguments: {} } };
    const anonymous = await post(call, { authorization: "" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.core).toBe(false);
    const [narrow, narrowSdk] = await bothPaths(
      { name: "echo.plain", arguments: {} },
      { authorization: `Bearer ${NARROW}` },
    );
    expect(comparableAnswer(narrow)).toEqual(comparableAnswer(narrowSdk));
    expect(JSON.parse(narrow.text).result.structuredContent.error.code).toBe("PERMISSION_DENIED");
    const foreign = await post(call, { origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    const listed = await post(call, { origin: ORIGIN });
    expect(listed.core).toBe(true);
    expect(listed.headers["access-control-allow-origin"]).toBe(ORIGIN);
    // The rate limit counts what the core answers like anything else: the bucket runs dry.
    let last: Answer | undefined;
    for (let i = 0; i < 500 && last?.status !== 429; i++) last = await post(call);
    expect(last?.status).toBe(429);
    expect(last?.headers["retry-after"]).toBeDefined();
  });
});
