// Property: whatever a client POSTs as a stateless 2025-era tools/call (any name, any arguments, any `_meta`, any
// valid id), the HTTP fast path (host mcp/fast-http.ts) answers it exactly as the SDK's handler does (status,
// headers and body, trace ids and durations aside), and answers exactly the requests its contract calls plain and
// that carry no progress token. Each generated request is POSTed twice to one real `skillport serve --http` on
// loopback: as generated, and with one more `_meta` key the fast path leaves to the SDK, unread. Each request's
// log line says which path answered.
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GeneratedRequest } from "./generated-calls.js";
import { anyJson, comparable, isObject, isPlain, requestArb, SDK_PATH_META, textOf } from "./generated-calls.js";
import type { ServedHttp, Workspace } from "./workspace.js";
import { makeWorkspace, REPO, requestLog, serveHttp } from "./workspace.js";

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

async function post(text: string, extraHeaders: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...extraHeaders },
    body: text,
  });
  const body = await response.text();
  posted++;
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

/** Requests POSTed so far; each gets one "http request" log line once it is answered, in no fixed order. */
let posted = 0;

/** Once every request POSTed so far has its log line: whether the fast path answered each, in the log's order. */
async function answeredFast(): Promise<boolean[]> {
  for (let i = 0; ; i++) {
    const lines = requestLog(served);
    if (lines.length >= posted || i === 500) return lines.map((entry) => entry.fastPath === true);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** How many of the requests POSTed from `from` on (a count of log lines) the fast path answered. */
const fastSince = async (from: number) => (await answeredFast()).slice(from).filter(Boolean).length;

describe("the HTTP fast path against the SDK's handler, on generated tools/call requests (stateless, 2025 era)", () => {
  it("answers every request as the SDK does, and answers exactly the plain ones itself", async () => {
    const from = (await answeredFast()).length;
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
    expect(await fastSince(from)).toBe(plain);
    expect(plain).toBeGreaterThan(10);
  });
});

// The 2026-07-28 era: each request carries the era's envelope in `_meta` (protocol version, client info, client
// capabilities), generated valid and broken, and the era's headers, its Mcp-Name sometimes not the body's name.
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** The capabilities and members the fast path knows, and the kind each member's value must be. */
const KNOWN: Record<string, Record<string, "object" | "boolean">> = {
  elicitation: { form: "object", url: "object" },
  sampling: { context: "object", tools: "object" },
  roots: { listChanged: "boolean" },
};
/** Capabilities as clients declare them: known capabilities with their known members. */
const declaredArb = fc.record(
  {
    elicitation: fc.record({ form: fc.constant({}), url: fc.constant({}) }, { requiredKeys: [] }),
    sampling: fc.record({ context: fc.constant({}), tools: fc.constant({}) }, { requiredKeys: [] }),
    roots: fc.record({ listChanged: fc.boolean() }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);
/** Where one value of a declaration is set to something else: a member, a whole capability. */
const PLACES = [
  ["elicitation", "form"],
  ["elicitation", "url"],
  ["elicitation", "x"],
  ["sampling", "tools"],
  ["roots", "listChanged"],
  ["roots"],
  ["experimental"],
  ["x"],
];
const oddValue = fc.oneof(fc.constant({}), fc.boolean(), fc.constant({ x: 1 }), fc.constant(null), fc.constant("yes"));
/** A declaration with one value set to something else, which may or may not still be one the fast path knows. */
const alteredArb = fc
  .tuple(declaredArb, fc.constantFrom(...PLACES), oddValue)
  .map(([declared, [capability, key], value]) => {
    const altered: Record<string, unknown> = structuredClone(declared);
    if (key === undefined || capability === undefined) altered[capability ?? "x"] = value;
    else altered[capability] = { ...(altered[capability] as object | undefined), [key]: value };
    return altered;
  });
const capabilitiesArb = fc.oneof({ weight: 4, arbitrary: declaredArb }, { weight: 3, arbitrary: alteredArb }, anyJson);
const envelopeArb = fc.record(
  {
    version: fc.oneof({ weight: 6, arbitrary: fc.constant("2026-07-28") }, fc.constantFrom("2025-11-25", "2027-01-01")),
    info: fc.oneof(
      { weight: 4, arbitrary: fc.constant({ name: "property", version: "1" }) },
      fc.constant(undefined),
      fc.record({ name: fc.oneof(fc.string(), fc.integer()), version: fc.string(), x: anyJson }, { requiredKeys: [] }),
    ),
    capabilities: capabilitiesArb,
    /** Another `_meta` key beside the envelope: a progress token or a log level. */
    extra: fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      fc.constantFrom("progressToken", "io.modelcontextprotocol/logLevel"),
    ),
    nameHeader: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, fc.constantFrom("echo.echo", "echo.plain")),
  },
  { requiredKeys: ["version", "info", "capabilities"] },
);

/** A 2026-07-28 envelope the fast path answers: what its contract says, restated from its documentation. */
function isKnownEnvelope(envelope: typeof envelopeArb extends fc.Arbitrary<infer T> ? T : never): boolean {
  const { info, capabilities } = envelope;
  if (envelope.version !== "2026-07-28" || envelope.extra !== undefined) return false;
  if (info !== undefined && !(typeof info.name === "string" && typeof info.version === "string" && !("x" in info))) {
    return false;
  }
  if (!isObject(capabilities)) return false;
  return Object.entries(capabilities).every(([name, value]) => {
    const known = Object.hasOwn(KNOWN, name) ? KNOWN[name] : undefined;
    if (known === undefined || !isObject(value)) return false;
    return Object.entries(value).every(([key, flag]) =>
      (Object.hasOwn(known, key) ? known[key] : undefined) === "boolean"
        ? typeof flag === "boolean"
        : isObject(flag) && Object.keys(flag).length === 0,
    );
  });
}

/** The name as an Mcp-Name header: itself when fetch sends it as it is (visible ASCII, no space at either end). */
const headerOf = (name: unknown) =>
  typeof name === "string" && /^[!-~]([ -~]*[!-~])?$/.test(name) ? name : "echo.other";

describe("the HTTP fast path against the SDK's handler, on generated tools/call requests (2026-07-28 era)", () => {
  it("answers every request as the SDK does, the era's envelope included, and answers exactly the plain ones itself", async () => {
    const from = (await answeredFast()).length;
    let plain = 0;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(requestArb, envelopeArb, async (generated, envelope) => {
        const meta: Record<string, unknown> = {
          [PROTOCOL_VERSION]: envelope.version,
          [CLIENT_CAPABILITIES]: envelope.capabilities,
        };
        if (envelope.info !== undefined) meta[CLIENT_INFO] = envelope.info;
        if (envelope.extra !== undefined) meta[envelope.extra] = envelope.extra === "progressToken" ? "p" : "debug";
        const request: GeneratedRequest = { ...generated, meta };
        const headers = {
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": envelope.nameHeader ?? headerOf(request.name),
        };
        const fast = await post(textOf(request.id, request), headers);
        const sdk = await post(textOf(`sdk-${sent++}`, request, SDK_PATH_META), headers);
        const named = typeof request.name === "string" && headers["mcp-name"] === request.name;
        if (isPlain({ ...request, meta: undefined }) && isKnownEnvelope(envelope) && named) plain++;
        expect(fast).toEqual(sdk);
      }),
      { numRuns: 300 },
    );
    expect(await fastSince(from)).toBe(plain);
    expect(plain).toBeGreaterThan(10);
  });
});
