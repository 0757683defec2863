// Property: the official SDK client and the server agree on SEP-2243 `Mcp-Param-*` headers (2026-07-28). For any
// integer (past 2^53 too) and any string a tool mirrors into a header (ASCII, spaces at either end, tabs, control
// characters, any Unicode, text that looks like the encoding's own `=?base64?…?=` wrapper), the client's encoding
// is accepted by the host served over HTTP on a loopback port (as `skillport serve --http` serves it) and the tool
// runs with the values as sent; a header that says another value is refused.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../src/host.js";
import { FIXTURES } from "../helpers.js";
import { MODERN_META } from "../mcp/raw-connection.js";
import type { LoopbackHttp } from "../serving.js";
import { ERAS, hostFrom, serveLoopback } from "../serving.js";

const ROUTED = path.join(FIXTURES, "skill-routed");

let dir: string;
let host: Host;
let served: LoopbackHttp;
let client: Client;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-param-headers-"));
  host = await hostFrom(dir, {
    name: "param-headers-property",
    version: "1.0.0",
    skills: [{ path: ROUTED, mcp: "routed" }],
    http: { rateLimit: { requestsPerMinute: 1000000 } },
  });
  served = await serveLoopback(host);
  client = await served.connect(ERAS[1].options);
  // The client learns which arguments a tool mirrors into headers from the tool list.
  await client.listTools();
});
afterAll(async () => {
  await client?.close();
  await served?.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Values a header cannot carry as they are, and some it can: the client chooses plain or Base64 for each. */
const regionArb = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.stringMatching(/^[ \t]{0,2}[a-z0-9-]{0,8}[ \t]{0,2}$/),
  fc.constantFrom("", "=?base64?ZXU=?=", "=?base64??=", "eu?=", "=?base64?", "é", "\u0000", "\r\n", "a\tb"),
);

/** Integers, past 2^53 too (for which the client sends no header: it could not be written exactly). */
const shardArb = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(2 ** 53, 2 ** 60, -(2 ** 64), 1e21));

/** Text without a lone surrogate (which UTF-8, and so a header's Base64, cannot carry). */
const wellFormed = (text: string) => !/\p{Cs}/u.test(text);

describe("Mcp-Param headers between the official client and the server, on generated values (2026-07-28)", () => {
  it("accepts the client's encoding of any value, and the tool runs with the value as sent", async () => {
    await fc.assert(
      fc.asyncProperty(regionArb, fc.option(shardArb, { nil: undefined }), async (region, shard) => {
        // JSON carries a lone surrogate escaped; the header's Base64 of UTF-8 cannot.
        fc.pre(wellFormed(region));
        const args = shard === undefined ? { region } : { region, shard };
        const result = await client.callTool({ name: "routed.route", arguments: args });
        expect(result.isError, JSON.stringify(result)).not.toBe(true);
        expect((result.structuredContent as { data?: unknown }).data).toEqual(args);
      }),
      { numRuns: 150 },
    );
  });

  it("refuses a header that says another value than the body, however the two are written", async () => {
    const url = served.url;
    await fc.assert(
      fc.asyncProperty(regionArb, regionArb, fc.boolean(), async (sent, said, base64) => {
        fc.pre(wellFormed(sent) && wellFormed(said) && sent !== said);
        const header = base64 ? `=?base64?${Buffer.from(said).toString("base64")}?=` : said;
        // A plain header value must be one fetch can send (the Base64 form always is), and not one that reads as the
        // encoding's wrapper: that says what it decodes to.
        const wrapped = said.startsWith("=?base64?") && said.endsWith("?=");
        fc.pre(base64 || (/^[!-~]([ \t!-~]*[!-~])?$/.test(said) && !wrapped));
        const response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "routed.route",
            "mcp-param-region": header,
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "routed.route", arguments: { region: sent }, _meta: MODERN_META },
          }),
        });
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32020);
      }),
      { numRuns: 150 },
    );
  });
});
