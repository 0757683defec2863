// Property: whatever a client POSTs as a stateless 2025-era tools/call (any name, any arguments, any `_meta`, any
// valid id), the HTTP fast path (host mcp/fast-http.ts) answers it exactly as the SDK's handler does (status,
// headers and body, trace ids and durations aside), and answers exactly the requests its contract calls plain and
// that carry no progress token. Each generated request is POSTed twice to one real `skillport serve --http` on
// loopback: as generated, and with one more `_meta` key the fast path leaves to the SDK, unread. Each request's
// log line says which path answered.
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { comparable, isPlain, requestArb, SDK_PATH_META, textOf } from "./generated-calls.js";
import type { ServedHttp, Workspace } from "./workspace.js";
import { makeWorkspace, REPO, serveHttp } from "./workspace.js";

const ECHO = path.join(REPO, "packages/host/test/fixtures/skill-echo");

let ws: Workspace;
let served: ServedHttp;
let url: string;

beforeAll(async () => {
  ws = await makeWorkspace();
  const manifest = await ws.writeManifest(
    {
      name: "fast-http-property",
      version: "1.0.0",
      skills: [{ path: ECHO, mcp: "echo" }],
      http: { rateLimit: { requestsPerMinute: 1000000 } },
    },
    "property.manifest.json",
  );
  served = serveHttp(["--manifest", manifest], ws.dir, { SKILLPORT_LOG_LEVEL: "info" });
  url = await served.url;
});
afterAll(async () => {
  served?.child.kill("SIGKILL");
  await ws?.dispose();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

async function post(text: string): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: text,
  });
  const body = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "date" && name !== "content-length") headers[name] = value;
  });
  return { status: response.status, headers, body: comparableBody(body, headers["content-type"]) };
}

/** A JSON body, or an event stream's lines with each event's data, each without what differs per call. */
function comparableBody(body: string, type: string | undefined): unknown {
  if (type?.startsWith("text/event-stream")) {
    return body.split("\n").map((line) => (line.startsWith("data: ") ? comparable(JSON.parse(line.slice(6))) : line));
  }
  try {
    return comparable(JSON.parse(body));
  } catch {
    return body;
  }
}

/** How many "http request" log lines the fast path answered so far. */
function fastAnswered(): number {
  return served
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith('{"level"'))
    .map((line) => JSON.parse(line) as { msg?: string; fastPath?: boolean })
    .filter((entry) => entry.msg === "http request" && entry.fastPath === true).length;
}

describe("the HTTP fast path against the SDK's handler, on generated tools/call requests (stateless, 2025 era)", () => {
  it("answers every request as the SDK does, and answers exactly the plain ones itself", async () => {
    const before = fastAnswered();
    let plain = 0;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(requestArb, async (request) => {
        const fast = await post(textOf(request.id, request));
        const sdk = await post(textOf(`sdk-${sent++}`, request, SDK_PATH_META));
        // Plain as over stdio, without a progress token (the SDK streams progress while the call runs).
        if (isPlain(request) && request.meta?.progressToken === undefined) plain++;
        expect(fast).toEqual(sdk);
      }),
      { numRuns: 150 },
    );
    // The log line is written once the answer is sent: wait for the last ones.
    for (let i = 0; i < 200 && fastAnswered() - before < plain; i++) await new Promise((r) => setTimeout(r, 10));
    expect(fastAnswered() - before).toBe(plain);
    expect(plain).toBeGreaterThan(10);
  });
});
