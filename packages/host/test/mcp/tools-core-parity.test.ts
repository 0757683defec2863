// Property: whatever a client sends as tools/call (any name, any arguments, any `_meta`, any valid id), the tools
// core's own branch answers it exactly as the SDK's server does, and takes exactly the requests its contract calls
// plain. Each generated request is sent twice on one connection: as generated, and with one more `_meta` key the
// core leaves to the SDK, unread (whose tools handlers call the same core). In memory: a connection served as stdio
// serves it, and the web handler over HTTP (both eras), which is what node:http serves too.
import { parseJSONRPCMessage } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../src/host.js";
import { createHost } from "../../src/host.js";
import { createHostHttpHandler } from "../../src/mcp/serve-http.js";
import { resolveHttpConfig } from "../../src/transports/http/config.js";
import type { EdgeContext } from "../../src/transports/http/guard.js";
import type { HttpHandler } from "../../src/transports/http/handler.js";
import { createMetrics } from "../../src/transports/http/metrics.js";
import { ECHO, manifestOf, silentLogger } from "../helpers.js";
import type { GeneratedRequest } from "./generated-calls.js";
import { anyJson, isObject, isPlain, requestArb, textOf } from "./generated-calls.js";
import type { RawConnection } from "./raw-connection.js";
import { comparable, openRaw, SDK_PATH_META } from "./raw-connection.js";

let host: Host;
let handle: HttpHandler;
let closeHttp: () => Promise<void>;

beforeAll(async () => {
  host = await createHost({
    manifest: manifestOf({
      name: "core-parity",
      version: "1.0.0",
      skills: [{ path: ECHO, mcp: "echo" }],
      http: { rateLimit: { requestsPerMinute: 1_000_000 } },
    }),
    logger: silentLogger(),
  });
  const config = await resolveHttpConfig(host.manifest);
  const served = createHostHttpHandler(host, config, {
    metrics: createMetrics({ processMetrics: false }),
    state: { draining: false, resource: undefined },
  });
  handle = served.handle;
  closeHttp = served.close;
});
afterAll(async () => {
  await closeHttp?.();
  await host?.close();
});

describe("the tools core's branch against the SDK's server, on generated tools/call requests (a 2025-era connection)", () => {
  let connection: RawConnection;
  beforeAll(async () => {
    connection = await openRaw(host);
  });
  afterAll(() => connection.close());

  it("answers every request as the SDK does, and takes exactly the plain ones", async () => {
    let plain = 0;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(requestArb, async (request) => {
        const text = textOf(request.id, request);
        if (!isJsonRpc(text)) {
          // Not a JSON-RPC message at all (a progress token past 2^53): the SDK's server drops it unanswered here
          // (stdio's line reader answers it invalid first), and the core must not take it either.
          const before = connection.counts.calls;
          connection.send(text);
          expect(connection.counts.calls).toBe(before);
          expect(isPlain(request)).toBe(false);
          return;
        }
        const core = await connection.request(request.id, text);
        const sdkId = `sdk-${sent++}`;
        const sdk = await connection.request(sdkId, textOf(sdkId, request, SDK_PATH_META));
        connection.received.length = 0;
        if (isPlain(request)) plain++;
        expect(comparable(core)).toEqual(comparable(sdk));
      }),
      { numRuns: 300 },
    );
    expect(connection.counts.calls).toBe(plain);
    expect(plain).toBeGreaterThan(20);
  });
});

function isJsonRpc(text: string): boolean {
  try {
    parseJSONRPCMessage(JSON.parse(text));
    return true;
  } catch {
    return false;
  }
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** The tools core answered it itself. */
  core: boolean;
}

async function post(text: string, extraHeaders: Record<string, string> = {}): Promise<Answer> {
  const context: EdgeContext = { remoteAddress: "127.0.0.1" };
  const response = await handle(
    new Request("http://localhost:3333/mcp", {
      method: "POST",
      headers: {
        host: "localhost:3333",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...extraHeaders,
      },
      body: text,
    }),
    context,
  );
  const body = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "date" && name !== "content-length") headers[name] = value;
  });
  return {
    status: response.status,
    headers,
    body: comparableBody(body, headers["content-type"]),
    core: context.toolsCore === true,
  };
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

describe("the tools core's branch against the SDK's handler, on generated tools/call requests (HTTP, stateless 2025 era)", () => {
  it("answers every request as the SDK does, and answers exactly the plain ones itself", async () => {
    let plain = 0;
    let answered = 0;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(requestArb, async (request) => {
        const core = await post(textOf(request.id, request));
        const sdk = await post(textOf(`sdk-${sent++}`, request, SDK_PATH_META));
        // Plain as on a connection, without a progress token (the SDK streams progress while the call runs).
        if (isPlain(request) && request.meta?.progressToken === undefined) plain++;
        if (core.core) answered++;
        expect(sdk.core).toBe(false);
        expect({ ...core, core: false }).toEqual(sdk);
      }),
      { numRuns: 200 },
    );
    expect(answered).toBe(plain);
    expect(plain).toBeGreaterThan(10);
  });
});

// The 2026-07-28 era: each request carries the era's envelope in `_meta` (protocol version, client info, client
// capabilities), generated valid and broken, and the era's headers, its Mcp-Name sometimes not the body's name.
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** The capabilities and members the core knows, and the kind each member's value must be. */
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
/** A declaration with one value set to something else, which may or may not still be one the core knows. */
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

/** A 2026-07-28 envelope the core answers: what its contract says, restated from its documentation. */
function isAnsweredEnvelope(envelope: typeof envelopeArb extends fc.Arbitrary<infer T> ? T : never): boolean {
  const { info, capabilities } = envelope;
  if (envelope.version !== "2026-07-28" || envelope.extra !== undefined) return false;
  if (info !== undefined && !(typeof info.name === "string" && typeof info.version === "string" && !("x" in info))) {
    return false;
  }
  if (!isObject(capabilities)) return false;
  const known = Object.entries(capabilities).every(([name, value]) => {
    const members = Object.hasOwn(KNOWN, name) ? KNOWN[name] : undefined;
    if (members === undefined || !isObject(value)) return false;
    return Object.entries(value).every(([key, flag]) =>
      (Object.hasOwn(members, key) ? members[key] : undefined) === "boolean"
        ? typeof flag === "boolean"
        : isObject(flag) && Object.keys(flag).length === 0,
    );
  });
  return known;
}

/** The name as an Mcp-Name header: itself when it is one (visible ASCII, no space at either end). */
const headerOf = (name: unknown) =>
  typeof name === "string" && /^[!-~]([ -~]*[!-~])?$/.test(name) ? name : "echo.other";

describe("the tools core's branch against the SDK's handler, on generated tools/call requests (HTTP, 2026-07-28 era)", () => {
  it("answers every request as the SDK does, the era's envelope included, and answers exactly the plain ones itself", async () => {
    let plain = 0;
    let answered = 0;
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
        const core = await post(textOf(request.id, request), headers);
        const sdk = await post(textOf(`sdk-${sent++}`, request, SDK_PATH_META), headers);
        const named = typeof request.name === "string" && headers["mcp-name"] === request.name;
        if (isPlain({ ...request, meta: undefined }) && isAnsweredEnvelope(envelope) && named) plain++;
        if (core.core) answered++;
        expect(sdk.core).toBe(false);
        expect({ ...core, core: false }).toEqual(sdk);
      }),
      { numRuns: 300 },
    );
    expect(answered).toBe(plain);
    expect(plain).toBeGreaterThan(10);
  });
});

// Both eras at once: the core reads the era from the headers (a protocol-version header, Mcp-Method) and its own
// plain check of the body, never from the SDK's era rule; here the headers are generated too, each across what the
// SDK routes (absent, every version it supports, a later one, garbage), and the body with or without an envelope.
const versionHeaderArb = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-07-28", "2027-01-01", "", "latest"),
);
const methodHeaderArb = fc.oneof(fc.constant(undefined), fc.constantFrom("tools/call", "tools/list"));

describe("the tools core's branch against the SDK's handler, on generated tools/call requests and headers (HTTP, either era)", () => {
  it("answers every request as the SDK does, and answers itself exactly the plain ones in the era the headers name", async () => {
    let plain = 0;
    let answered = 0;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        requestArb,
        fc.boolean(),
        versionHeaderArb,
        methodHeaderArb,
        async (generated, enveloped, version, method) => {
          const meta: Record<string, unknown> = { [PROTOCOL_VERSION]: "2026-07-28", [CLIENT_CAPABILITIES]: {} };
          const request: GeneratedRequest = enveloped ? { ...generated, meta } : generated;
          const headers: Record<string, string> = { "mcp-name": headerOf(request.name) };
          if (version !== undefined) headers["mcp-protocol-version"] = version;
          if (method !== undefined) headers["mcp-method"] = method;
          const core = await post(textOf(request.id, request), headers);
          const sdk = await post(textOf(`sdk-${sent++}`, request, SDK_PATH_META), headers);
          const legacyHeaders = version === undefined || (version.startsWith("20") && version < "2026-07-28");
          const modernHeaders =
            version === "2026-07-28" && method === "tools/call" && headers["mcp-name"] === request.name;
          const expected = enveloped
            ? modernHeaders && isPlain({ ...request, meta: undefined })
            : legacyHeaders && isPlain(request) && request.meta?.progressToken === undefined;
          if (expected) plain++;
          if (core.core) answered++;
          expect(core.core).toBe(expected);
          expect(sdk.core).toBe(false);
          // What the core leaves is the SDK's answer either way; with the one more `_meta` key the SDK's copy carries,
          // an envelope's "missing" list can differ, so only its status is compared.
          if (expected) expect({ ...core, core: false }).toEqual(sdk);
          else expect(core.status).toBe(sdk.status);
        },
      ),
      { numRuns: 300 },
    );
    expect(answered).toBe(plain);
    expect(plain).toBeGreaterThan(10);
  });
});
