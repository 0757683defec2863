// The HTTP fast path (host mcp/fast-http.ts), against a real `skillport serve --http` on loopback: a plain stateless
// 2025-era tools/call or tools/list is answered without the SDK's handler, after every guard of the endpoint. A
// request the fast path takes and the same request with one more `_meta` key (which it leaves to the SDK, unread)
// must get the same answer, byte for byte but for trace ids and durations; every guard refuses both alike; the
// request's log line says which path answered.
import { readFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SDK_PATH_META } from "./generated-calls.js";
import type { ServedHttp, Workspace } from "./workspace.js";
import { MODERN_META, makeWorkspace, REPO, requestLog, serveHttp } from "./workspace.js";

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");
const ROUTED = path.join(REPO, "packages/host/test/fixtures/skill-routed");
const FULL = "full-token-0123456789abcdef";
const NARROW = "narrow-token-0123456789abcdef";
const ORIGIN = "http://app.example";

let ws: Workspace;
let served: ServedHttp;
let url: string;

beforeAll(async () => {
  ws = await makeWorkspace();
  const manifest = await ws.writeManifest(
    {
      name: "fast-http",
      version: "1.0.0",
      audit: { file: "./audit.log" },
      skills: [
        { path: ECHO, mcp: "echo", allow: ["wipe"], scopes: { echo: ["echo:call"], plain: ["echo:call"] } },
        { path: ROUTED, mcp: "routed" },
      ],
      http: {
        maxBodyBytes: 4096,
        allowedOrigins: [ORIGIN],
        rateLimit: { requestsPerMinute: 100000 },
        auth: {
          tokens: [
            { name: "full", scopes: ["echo:call"], token: { env: "T_FULL" } },
            { name: "narrow", scopes: [], token: { env: "T_NARROW" } },
          ],
        },
      },
    },
    "fast-http.manifest.json",
  );
  served = serveHttp(["--manifest", manifest], ws.dir, { T_FULL: FULL, T_NARROW: NARROW, SKILLPORT_LOG_LEVEL: "info" });
  url = await served.url;
});
afterAll(async () => {
  served?.child.kill("SIGKILL");
  await ws?.dispose();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

const BASE_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

async function post(body: unknown, headers: Record<string, string> = {}, to = url): Promise<Answer> {
  const response = await fetch(to, {
    method: "POST",
    headers: { ...BASE_HEADERS, authorization: `Bearer ${FULL}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "date" && name !== "content-length") kept[name] = value;
  });
  return { status: response.status, headers: kept, text };
}

/** A POST through node:http, written in chunks; the status, whatever happens to the rest of the body. */
function rawPost(headers: Record<string, string>, chunks: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: new URL(url).port,
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

/** What differs per call: trace ids and durations (and the id, which the test picks per path). */
function comparable(answer: Answer): Answer {
  const text = answer.text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<trace>")
    .replace(/"durationMs":[0-9.e-]+/g, '"durationMs":0')
    .replace(/"id":"(fast|sdk)-[0-9]+"/g, '"id":"<id>"');
  return { ...answer, text };
}

function withSdkMeta(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const meta = (params?._meta as object | undefined) ?? {};
  return { ...params, _meta: { ...meta, ...SDK_PATH_META } };
}

/** The same request twice: plain (the fast path may take it) and with an unread `_meta` key (the SDK's). */
async function bothPaths(
  method: string,
  params: Record<string, unknown> | undefined,
  headers: Record<string, string> = {},
  n = next(),
): Promise<[Answer, Answer]> {
  const fast = await post({ jsonrpc: "2.0", id: `fast-${n}`, method, ...(params ? { params } : {}) }, headers);
  const sdk = await post({ jsonrpc: "2.0", id: `sdk-${n}`, method, params: withSdkMeta(params) }, headers);
  return [fast, sdk];
}

let counter = 0;
const next = () => ++counter;

/** How many requests the fast path answered so far, by their log lines. */
function fastAnswered(): number {
  return requestLog(served).filter((entry) => entry.fastPath === true).length;
}

/** Waits until the server logged `count` fast answers (the line is written once the answer is sent). */
async function untilFastAnswered(count: number): Promise<void> {
  for (let i = 0; i < 200 && fastAnswered() < count; i++) await new Promise((r) => setTimeout(r, 10));
}

const CALLS: [string, Record<string, unknown>][] = [
  ["a success with structured content", { name: "echo.echo", arguments: { text: "hi", times: 2 } }],
  ["plain data", { name: "echo.plain", arguments: {} }],
  ["no arguments at all", { name: "echo.plain" }],
  ["a tool's own error", { name: "echo.fail", arguments: {} }],
  ["an internal error", { name: "echo.boom", arguments: {} }],
  ["invalid arguments", { name: "echo.echo", arguments: { text: "" } }],
  ["an unknown argument", { name: "echo.echo", arguments: { text: "x", extra: 1 } }],
  ["an unknown tool", { name: "echo.nope", arguments: {} }],
  ["a huge unknown name", { name: "n".repeat(3000), arguments: {} }],
  ["a tool that logs (an event stream)", { name: "routed.chatty", arguments: {} }],
  ["a tool whose argument is also a header", { name: "routed.route", arguments: { region: "eu" } }],
];
const HOSTILE: [string, Record<string, unknown>][] = [
  ["arguments that are an array", { name: "echo.echo", arguments: ["hi"] }],
  ["a name that is a number", { name: 7, arguments: {} }],
  ["a progress token that is an object", { name: "echo.plain", _meta: { progressToken: {} } }],
];

describe("the HTTP fast path answers as the SDK's handler does (stateless, 2025 era)", () => {
  it("gives the same answer on both paths, and answers the plain requests itself", async () => {
    const before = fastAnswered();
    for (const [what, params] of CALLS) {
      const [fast, sdk] = await bothPaths("tools/call", params);
      expect(comparable(fast), what).toEqual(comparable(sdk));
      expect(fast.status, what).toBe(200);
    }
    const [list, listSdk] = await bothPaths("tools/list", undefined);
    expect(comparable(list)).toEqual(comparable(listSdk));
    expect(JSON.parse(list.text).result.tools.length).toBeGreaterThan(5);
    await untilFastAnswered(before + CALLS.length + 1);
    expect(fastAnswered() - before).toBe(CALLS.length + 1);
  });

  it("answers alike under every 2025-era protocol-version header the SDK supports", async () => {
    const before = fastAnswered();
    const versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
    for (const version of versions) {
      const [fast, sdk] = await bothPaths(
        "tools/call",
        { name: "echo.echo", arguments: { text: "v" } },
        { "mcp-protocol-version": version },
      );
      expect(comparable(fast), version).toEqual(comparable(sdk));
    }
    await untilFastAnswered(before + versions.length);
    expect(fastAnswered() - before).toBe(versions.length);
  });

  it("a logging tool's answer is the SDK's event stream, the log lines before the result", async () => {
    const [fast] = await bothPaths("tools/call", { name: "routed.chatty", arguments: {} });
    expect(fast.headers["content-type"]).toBe("text/event-stream");
    const events = fast.text.split("\n\n").filter((e) => e !== "");
    expect(events).toHaveLength(3);
    expect(events[2]).toContain('"said":2');
  });

  it("leaves hostile requests to the SDK, which answers them as before", async () => {
    const before = fastAnswered();
    for (const [what, params] of HOSTILE) {
      const [fast, sdk] = await bothPaths("tools/call", params);
      expect({ ...comparable(fast), text: "" }, what).toEqual({ ...comparable(sdk), text: "" });
      expect(JSON.parse(fast.text).error, what).toBeDefined();
    }
    // Ids the protocol does not allow, a wrong jsonrpc, an extra member, an own "__proto__" key in the arguments.
    for (const id of [1.5, null, { a: 1 }, true]) {
      const answer = await post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo.plain" } });
      expect(answer.text).not.toContain('"result"');
    }
    // A call that logs and answers with content blocks of its own runs on the fast path and is answered by the SDK:
    // its log line is not lost on the way.
    const [shown, shownSdk] = await bothPaths("tools/call", { name: "routed.shown", arguments: {} });
    expect(comparable(shown)).toEqual(comparable(shownSdk));
    expect(shown.text).toContain("about to show");
    expect(shown.text).toContain("a block of its own");
    const wrong = await post({ jsonrpc: "1.0", id: 1, method: "tools/call", params: { name: "echo.plain" } });
    expect(wrong.status).toBe(400);
    const extra = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo.plain" }, x: 1 });
    expect(extra.status).toBe(400);
    const proto = (id: string, meta: string) =>
      `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo.echo","arguments":{"text":"hi","__proto__":{"times":3}}${meta}}}`;
    const a = await post(proto("fast-1", ""));
    const b = await post(proto("sdk-1", `,"_meta":${JSON.stringify(SDK_PATH_META)}`));
    expect(comparable(a)).toEqual(comparable(b));
    // A progress token and an event-stream-only client are the SDK's: their answer is a stream.
    const progress = await post({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "echo.plain", _meta: { progressToken: "p" } },
    });
    expect(progress.headers["content-type"]).toBe("text/event-stream");
    expect(fastAnswered() - before).toBe(0);
  });
});

describe("the HTTP fast path answers as the SDK's handler does (2026-07-28 era)", () => {
  const modernHeaders = (name: unknown) => ({
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": String(name),
    // routed.route mirrors its region into this header (SEP-2243); other tools ignore it.
    "mcp-param-region": "eu",
  });
  const CAPABILITIES: object[] = [
    {},
    { elicitation: { form: {} }, roots: { listChanged: true } },
    { sampling: {}, elicitation: {} },
  ];

  it("gives the same answer on both paths, the era's envelope included, and answers the plain calls itself", async () => {
    const before = fastAnswered();
    let plain = 0;
    for (const capabilities of CAPABILITIES) {
      for (const [what, params] of CALLS) {
        const meta = { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": capabilities };
        const was = fastAnswered();
        const [fast, sdk] = await bothPaths("tools/call", { ...params, _meta: meta }, modernHeaders(params.name));
        expect(comparable(fast), what).toEqual(comparable(sdk));
        await untilFastAnswered(was + 1);
        expect(fastAnswered() - was, what).toBe(1);
        if (fast.status === 200)
          expect(JSON.parse(fast.text).error ?? JSON.parse(fast.text).result.resultType, what).toBeDefined();
        plain++;
      }
    }
    await untilFastAnswered(before + plain);
    expect(fastAnswered() - before).toBe(plain);
  });

  it("hands a call that must ask the client to the SDK with its outcome, run once", async () => {
    const audit = path.join(ws.dir, "audit.log");
    // The audit lines of every call so far: a sentinel call after them, and its line waited for (lines are in order).
    let sentinel = 0;
    const wipes = async () => {
      const id = `sentinel-${++sentinel}`;
      await post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo.echo", arguments: { text: id } } });
      let lines: string[] = [];
      for (let i = 0; i < 200; i++) {
        lines = (await readFile(audit, "utf8")).split("\n");
        if (lines.some((l) => l.includes(id))) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      return lines.filter((l) => l.includes("echo.wipe")).length;
    };
    const meta = { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
    const before = fastAnswered();
    const audited = await wipes();
    const fast = await post(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo.wipe", arguments: { target: "a" }, _meta: meta },
      },
      modernHeaders("echo.wipe"),
    );
    const afterFast = await wipes();
    const sdk = await post(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo.wipe", arguments: { target: "a" }, _meta: { ...meta, ...SDK_PATH_META } },
      },
      modernHeaders("echo.wipe"),
    );
    const afterSdk = await wipes();
    // The same question on both paths (its state is sealed per call), and one audit line each: run once.
    const question = (answer: Answer) => {
      const { result } = JSON.parse(answer.text);
      return { ...result, requestState: typeof result.requestState };
    };
    expect(question(fast)).toEqual(question(sdk));
    expect(JSON.parse(fast.text).result.inputRequests).toBeDefined();
    expect(afterFast - audited).toBe(afterSdk - afterFast);
    expect(afterFast - audited).toBe(1);
    // Only the sentinels were answered by the fast path.
    await untilFastAnswered(before + sentinel);
    expect(fastAnswered() - before).toBe(sentinel);
  });

  it("leaves an envelope it does not know, a progress token and a list to the SDK", async () => {
    const before = fastAnswered();
    const odd: [string, object][] = [
      ["a capability it does not know", { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { x: {} } }],
      ["a log level", { ...MODERN_META, "io.modelcontextprotocol/logLevel": "debug" }],
      [
        "clientInfo with more",
        { ...MODERN_META, "io.modelcontextprotocol/clientInfo": { name: "a", version: "1", x: 1 } },
      ],
      ["no capabilities", { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }],
      ["a progress token", { ...MODERN_META, progressToken: "p" }],
    ];
    for (const [what, meta] of odd) {
      const answer = await post(
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo.plain", arguments: {}, _meta: meta } },
        modernHeaders("echo.plain"),
      );
      expect(answer.status, what).toBeGreaterThan(0);
    }
    // A name header that is not the body's: the SDK's -32020.
    const mismatch = await post(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "echo.plain", arguments: {}, _meta: MODERN_META },
      },
      modernHeaders("echo.echo"),
    );
    expect(mismatch.status).toBe(400);
    const list = await post(
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: MODERN_META } },
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    );
    expect(JSON.parse(list.text).result.tools.length).toBeGreaterThan(5);
    expect(fastAnswered() - before).toBe(0);
  });
});

describe("every guard runs before the HTTP fast path", () => {
  const plainCall = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo.plain", arguments: {} } };
  const sdkCall = { ...plainCall, params: withSdkMeta(plainCall.params) };

  /** The same refusal for the plain request and the SDK's. */
  async function refusedAlike(headers: Record<string, string>, to = url): Promise<Answer> {
    const fast = await post(plainCall, headers, to);
    const sdk = await post(sdkCall, headers, to);
    expect(fast).toEqual(sdk);
    return fast;
  }

  it("no token or a wrong token: 401 with the challenge, as before", async () => {
    const before = fastAnswered();
    const none = await refusedAlike({ authorization: "" });
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer/);
    const wrong = await refusedAlike({ authorization: "Bearer wrong-token-0123456789abcdef" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("invalid_token");
    expect(fastAnswered() - before).toBe(0);
  });

  it("a token without the tool's scope: the same refusal on both paths", async () => {
    const [fast, sdk] = await bothPaths(
      "tools/call",
      { name: "echo.echo", arguments: { text: "hi" } },
      { authorization: `Bearer ${NARROW}` },
    );
    expect(comparable(fast)).toEqual(comparable(sdk));
    expect(fast.text).toContain("PERMISSION_DENIED");
    expect(fast.text).not.toContain('"echoed"');
  });

  it("a page from an origin not listed: 403; a listed one gets CORS on the fast answer too", async () => {
    const bad = await refusedAlike({ origin: "http://evil.example" });
    expect(bad.status).toBe(403);
    const [fast, sdk] = await bothPaths("tools/call", { name: "echo.plain", arguments: {} }, { origin: ORIGIN });
    expect(comparable(fast)).toEqual(comparable(sdk));
    expect(fast.headers["access-control-allow-origin"]).toBe(ORIGIN);
  });

  it("a Host that is not allowed: refused before anything runs", async () => {
    for (const host of ["evil.example", "evil.com@localhost"]) {
      const status = await rawPost({ host }, [JSON.stringify(plainCall)]);
      expect([400, 403]).toContain(status);
    }
  });

  it("a body over http.maxBodyBytes: 413, declared or not", async () => {
    const big = {
      ...plainCall,
      params: { name: "echo.echo", arguments: { text: "x".repeat(5000) } },
    };
    const answer = await post(big);
    expect(answer.status).toBe(413);
    // Sent in chunks without a length: counted as it is read.
    const chunked = await rawPost({ "transfer-encoding": "chunked" }, [
      " ".repeat(3000),
      " ".repeat(3000),
      JSON.stringify(plainCall),
    ]);
    expect(chunked).toBe(413);
  });

  it("a content type or Accept the SDK refuses, and protocol-version headers it refuses: the SDK's answers", async () => {
    expect((await refusedAlike({ "content-type": "text/plain" })).status).toBe(415);
    expect((await refusedAlike({ accept: "application/json" })).status).toBe(406);
    const unsupported = await refusedAlike({ "mcp-protocol-version": "1999-01-01" });
    expect(unsupported.status).toBe(400);
    // A modern header on a request without the 2026 envelope: the SDK's -32602, never the fast path's answer.
    const before = fastAnswered();
    const modern = await post(plainCall, { "mcp-protocol-version": "2026-07-28" });
    expect(modern.status).toBe(400);
    expect(JSON.parse(modern.text).error.code).toBe(-32602);
    expect(fastAnswered()).toBe(before);
  });

  it("a 2026-07-28 call whose Mcp-Param header does not match its argument: 400 -32020", async () => {
    const call = (region: string) => ({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "routed.route", arguments: { region }, _meta: MODERN_META },
    });
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "routed.route" };
    const mismatch = await post(call("eu"), { ...headers, "mcp-param-region": "us" });
    expect(mismatch.status).toBe(400);
    expect(JSON.parse(mismatch.text).error.code).toBe(-32020);
    const missing = await post(call("eu"), headers);
    expect(JSON.parse(missing.text).error.code).toBe(-32020);
    const matching = await post(call("eu"), { ...headers, "mcp-param-region": "eu" });
    expect(matching.status).toBe(200);
    expect(matching.text).toContain('"region":"eu"');
  });
});

describe("the rate limit counts fast answers", () => {
  let limited: ServedHttp;
  let limitedUrl: string;
  beforeAll(async () => {
    const manifest = await ws.writeManifest(
      {
        name: "fast-http-limited",
        version: "1.0.0",
        skills: [{ path: ECHO, mcp: "echo" }],
        http: {
          rateLimit: { requestsPerMinute: 3 },
          auth: { tokens: [{ name: "full", scopes: [], token: { env: "T_FULL" } }] },
        },
      },
      "limited.manifest.json",
    );
    limited = serveHttp(["--manifest", manifest], ws.dir, { T_FULL: FULL });
    limitedUrl = await limited.url;
  });
  afterAll(() => {
    limited?.child.kill("SIGKILL");
  });

  it("answers 429 with Retry-After once the caller's bucket is empty", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await post(
        { jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo.plain", arguments: {} } },
        {},
        limitedUrl,
      );
      statuses.push(answer.status);
      if (answer.status === 429) expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toContain(429);
  });
});
