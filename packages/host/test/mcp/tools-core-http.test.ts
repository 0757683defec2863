// The tools core over node:http, on a loopback socket: what only a socket shows. The core answers a plain request
// read straight from the Node request (no web Request) after every guard, written in one go with its length; a
// request the core leaves to the SDK becomes a web Request with the body the guards read. Each request's log line
// says whether the core answered it. (Parity on every kind of request is tools-core.test.ts and the property tests,
// through the web handler, which runs the same guards and endpoint.)
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../src/host.js";
import { createHost } from "../../src/host.js";
import type { HttpServing } from "../../src/mcp/serve-http.js";
import { serveHostHttp } from "../../src/mcp/serve-http.js";
import { ECHO, FIXTURES, manifestOf } from "../helpers.js";
import { MODERN_META, SDK_PATH_META } from "./raw-connection.js";

const ROUTED = path.join(FIXTURES, "skill-routed");
const FULL = "full-token-0123456789abcdef";
const ORIGIN = "http://app.example";

/** Every log line of the server, and waiters for the "http request" lines. */
const logged: Record<string, unknown>[] = [];
const waiters = new Set<() => void>();
const requestLines = () => logged.filter((line) => line.msg === "http request");
/** Resolves once the server logged `count` request lines (one is written once its answer is sent). */
const untilRequests = (count: number) =>
  new Promise<void>((resolve) => {
    const check = () => {
      if (requestLines().length < count) return;
      waiters.delete(check);
      resolve();
    };
    waiters.add(check);
    check();
  });

let dir: string;
let host: Host;
let serving: HttpServing;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-core-http-"));
  const logger = pino(
    { level: "info" },
    {
      write(line: string) {
        logged.push(JSON.parse(line) as Record<string, unknown>);
        for (const wake of waiters) wake();
      },
    },
  );
  host = await createHost({
    manifest: manifestOf({
      name: "core-http",
      version: "1.0.0",
      audit: { file: path.join(dir, "audit.log") },
      skills: [
        { path: ECHO, mcp: "echo" },
        { path: ROUTED, mcp: "routed" },
      ],
      http: {
        maxBodyBytes: 4096,
        allowedOrigins: [ORIGIN],
        rateLimit: { requestsPerMinute: 100_000 },
        auth: { tokens: [{ name: "full", scopes: [], token: { env: "T_FULL" } }] },
      },
    }),
    logger,
  });
  serving = await serveHostHttp(host, { port: 0, env: { T_FULL: FULL } });
});
afterAll(async () => {
  await serving?.close({ graceMs: 0 });
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

const BASE_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(serving.url, {
    method: "POST",
    headers: { ...BASE_HEADERS, authorization: `Bearer ${FULL}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "date") kept[name] = value;
  });
  return { status: response.status, headers: kept, text };
}

/** A POST through node:http, written in chunks; the status, whatever happens to the rest of the body. */
function rawPost(headers: Record<string, string>, chunks: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: serving.port,
        path: "/mcp",
        method: "POST",
        headers: { ...BASE_HEADERS, authorization: `Bearer ${FULL}`, ...headers },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    // The server may answer and close before the whole body is written: that is the point.
    req.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error),
    );
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** What differs per call: trace ids, durations, the id the test picks per path, and the length of that. */
function comparable(answer: Answer): Answer {
  const text = answer.text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<trace>")
    .replace(/"durationMs":[0-9.e-]+/g, '"durationMs":0')
    .replace(/"id":"(core|sdk)-[0-9]+"/g, '"id":"<id>"');
  const { "content-length": _length, ...headers } = answer.headers;
  return { ...answer, headers, text: JSON.stringify(JSON.parse(text)) };
}

let counter = 0;

/** The same call twice: plain (the core may answer it) and with an unread `_meta` key (the SDK's). */
async function bothPaths(params: Record<string, unknown>, headers: Record<string, string> = {}) {
  const n = ++counter;
  const meta = (params._meta as object | undefined) ?? {};
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
  return [core, sdk] as const;
}

/** Of the requests logged from `from` on, which the core answered. */
const coreAnswered = async (from: number, sent: number) => {
  await untilRequests(from + sent);
  return requestLines()
    .slice(from)
    .map((line) => line.fastPath === true);
};

describe("the tools core over node:http", () => {
  it("answers a plain call itself, in one write with its length, as the SDK would (both eras)", async () => {
    const from = requestLines().length;
    const [core, sdk] = await bothPaths({ name: "echo.echo", arguments: { text: "hi" } });
    expect(comparable(core)).toEqual(comparable(sdk));
    expect(Number(core.headers["content-length"])).toBe(Buffer.byteLength(core.text));
    const modern = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo.echo" };
    const [newCore, newSdk] = await bothPaths(
      { name: "echo.echo", arguments: { text: "new" }, _meta: MODERN_META },
      modern,
    );
    expect(comparable(newCore)).toEqual(comparable(newSdk));
    expect(JSON.parse(newCore.text).result.resultType).toBe("complete");
    expect(await coreAnswered(from, 4)).toEqual([true, false, true, false]);
  });

  it("answers under every 2025-era protocol-version header the SDK supports", async () => {
    const from = requestLines().length;
    const versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
    for (const version of versions) {
      const [core, sdk] = await bothPaths(
        { name: "echo.echo", arguments: { text: "v" } },
        { "mcp-protocol-version": version },
      );
      expect(comparable(core), version).toEqual(comparable(sdk));
    }
    expect((await coreAnswered(from, 2 * versions.length)).filter(Boolean)).toHaveLength(versions.length);
  });

  it("streams a logging call's lines before its result, as the SDK's event stream does", async () => {
    const [core, sdk] = await bothPaths({ name: "routed.chatty", arguments: {} });
    expect(core.headers["content-type"]).toBe("text/event-stream");
    expect(core.headers["content-length"]).toBeUndefined();
    const events = (answer: Answer) =>
      answer.text
        .split("\n\n")
        .filter((e) => e !== "")
        .map((e) => comparable({ ...answer, text: e.replace(/^event: message\ndata: /, "") }).text);
    expect(events(core)).toEqual(events(sdk));
    expect(events(core)).toHaveLength(3);
  });

  it("runs every guard first: no token, a listed origin's CORS, a Host not allowed, a body too long however sent", async () => {
    const from = requestLines().length;
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo.plain", arguments: {} } };
    const none = await post(call, { authorization: "" });
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer/);
    const listed = await post(call, { origin: ORIGIN });
    expect(listed.headers["access-control-allow-origin"]).toBe(ORIGIN);
    for (const hostHeader of ["evil.example", "evil.com@localhost"]) {
      expect([400, 403]).toContain(await rawPost({ host: hostHeader }, [JSON.stringify(call)]));
    }
    const big = { ...call, params: { name: "echo.echo", arguments: { text: "x".repeat(5000) } } };
    expect((await post(big)).status).toBe(413);
    // Sent in chunks without a length: counted as it is read.
    const chunked = await rawPost({ "transfer-encoding": "chunked" }, [
      " ".repeat(3000),
      " ".repeat(3000),
      JSON.stringify(call),
    ]);
    expect(chunked).toBe(413);
    expect(await coreAnswered(from, 6)).toEqual([false, true, false, false, false, false]);
  });

  it("leaves to the SDK what it serves: a progress token (streamed), a body that is not JSON", async () => {
    const from = requestLines().length;
    const progress = await post({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "echo.count", arguments: {}, _meta: { progressToken: "p" } },
    });
    expect(progress.headers["content-type"]).toBe("text/event-stream");
    expect(progress.text).toContain("notifications/progress");
    const notJson = await post("{not json");
    expect(JSON.parse(notJson.text).error.code).toBe(-32700);
    expect(await coreAnswered(from, 2)).toEqual([false, false]);
  });
});
