import { describe, expect, it } from "vitest";
import type { EdgeContext } from "../../../src/transports/http/guard.js";
import type { ParamHeader } from "../../../src/transports/http/guards/param-headers.js";
import { paramHeaderGuard, paramHeadersOf } from "../../../src/transports/http/guards/param-headers.js";
import { post, run } from "../web-helpers.js";

const SCHEMA = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    level: { type: "integer", "x-mcp-header": "Level" },
    dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
    note: { type: "string" },
    target: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
  },
};
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const DECLARED = new Map<string, readonly ParamHeader[]>([["deploy", paramHeadersOf(SCHEMA)]]);
const guard = paramHeaderGuard((tool) => DECLARED.get(tool));

/** A 2026-era tools/call of `deploy` with these arguments and headers, as the guards before this one left it. */
function call(args: Record<string, unknown>, headers: Record<string, string>, era: "2026" | "2025" = "2026") {
  const params = { name: "deploy", arguments: args, ...(era === "2026" ? { _meta: META } : {}) };
  const message = { jsonrpc: "2.0", id: 7, method: "tools/call", params };
  const body = JSON.stringify(message);
  const context: EdgeContext = {
    remoteAddress: undefined,
    body: { bytes: new TextEncoder().encode(body), json: { value: message } },
  };
  return run(guard, post(body, { "mcp-protocol-version": "2026-07-28", ...headers }), context);
}

async function refusal(answer: Response | undefined) {
  expect(answer?.status).toBe(400);
  return (await answer?.json()) as { id: unknown; error: { code: number; message: string } };
}

describe("paramHeadersOf (SEP-2243 x-mcp-header declarations)", () => {
  it("finds every declaration along properties, nested ones with their path", () => {
    expect(paramHeadersOf(SCHEMA)).toEqual([
      { path: ["region"], header: "Region", type: "string" },
      { path: ["level"], header: "Level", type: "integer" },
      { path: ["dry"], header: "Dry-Run", type: "boolean" },
      { path: ["target", "zone"], header: "Zone", type: "string" },
    ]);
  });

  it("ignores declarations the extension does not allow: not a token, not a primitive, under items, repeated", () => {
    expect(
      paramHeadersOf({
        type: "object",
        properties: {
          spaced: { type: "string", "x-mcp-header": "Has Space" },
          list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
          whole: { type: "object", "x-mcp-header": "Whole" },
          a: { type: "string", "x-mcp-header": "Same" },
          b: { type: "string", "x-mcp-header": "same" },
        },
      }),
    ).toEqual([{ path: ["a"], header: "Same", type: "string" }]);
  });
});

describe("paramHeaderGuard (a proxy that routes on Mcp-Param-* must see what the tool runs with)", () => {
  it("passes a call whose headers carry the body's values: plain, Base64 (non-ASCII), numbers and booleans", async () => {
    const headers = {
      "mcp-param-region": `=?base64?${Buffer.from("zürich").toString("base64")}?=`,
      "mcp-param-level": "3",
      "mcp-param-dry-run": "true",
      "mcp-param-zone": "b",
    };
    expect(await call({ region: "zürich", level: 3, dry: true, target: { zone: "b" } }, headers)).toBeUndefined();
  });

  it("refuses a header that says one value while the body runs another: 400, -32020, the request's id", async () => {
    const body = await refusal(await call({ region: "us-east" }, { "mcp-param-region": "eu-west" }));
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32020);
    expect(body.error.message).toMatch(/Mcp-Param-Region.*"eu-west".*"us-east"/);
  });

  it("refuses a value in the body whose header was left out", async () => {
    const body = await refusal(await call({ region: "us-east" }, {}));
    expect(body.error.message).toMatch(/Mcp-Param-Region header is missing/);
  });

  it.each([
    ["padding missing", "=?base64?SGVsbG8?="],
    ["characters outside Base64", "=?base64?SGVs!!!bG8=?="],
    ["bytes that are not UTF-8", `=?base64?${Buffer.from([0xff, 0xfe]).toString("base64")}?=`],
  ])("refuses a Base64 value with %s", async (_case, value) => {
    const body = await refusal(await call({ region: "Hello" }, { "mcp-param-region": value }));
    expect(body.error.code).toBe(-32020);
  });

  it("reads a value without the whole =?base64?…?= wrapper as written", async () => {
    expect(await call({ region: "=?base64?SGVsbG8=" }, { "mcp-param-region": "=?base64?SGVsbG8=" })).toBeUndefined();
    expect(await call({ region: "SGVsbG8=" }, { "mcp-param-region": "SGVsbG8=" })).toBeUndefined();
  });

  it("compares numbers as numbers (42.0 is 42), and refuses another number", async () => {
    expect(await call({ level: 42 }, { "mcp-param-level": "42.0" })).toBeUndefined();
    expect((await call({ level: 42 }, { "mcp-param-level": "43" }))?.status).toBe(400);
  });

  it("expects no header for an integer past 2^53, as the SDK's client sends none, and compares one sent anyway", async () => {
    expect(await call({ level: 2 ** 60 }, {})).toBeUndefined();
    expect(await call({ level: 2 ** 60 }, { "mcp-param-level": String(2 ** 60) })).toBeUndefined();
    expect((await call({ level: 2 ** 60 }, { "mcp-param-level": "7" }))?.status).toBe(400);
    expect((await call({ level: 2 ** 53 - 1 }, {}))?.status).toBe(400);
  });

  it("expects no header for an argument left out or null, and ignores one sent anyway", async () => {
    expect(await call({ note: "x" }, {})).toBeUndefined();
    expect(await call({ region: null }, { "mcp-param-region": "anything" })).toBeUndefined();
  });

  it("leaves 2025-era requests, other methods, unknown tools and tools without declarations to the rest", async () => {
    expect(await call({ region: "us-east" }, { "mcp-param-region": "eu-west" }, "2025")).toBeUndefined();
    const other = paramHeaderGuard(() => undefined);
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } };
    const context: EdgeContext = {
      remoteAddress: undefined,
      body: { bytes: new Uint8Array(0), json: { value: message } },
    };
    expect(await run(other, post(JSON.stringify(message)), context)).toBeUndefined();
  });
});
