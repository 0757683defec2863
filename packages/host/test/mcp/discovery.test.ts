// Discovery "search", in memory: tools/list holds the always-loaded tools and the two discovery tools; the search
// finds tools by what a task needs, only those the caller may call; the call tool is the named tool, through the whole
// pipeline (confirmation, scopes, validation, audit and metrics under its own name); an unknown name answers as an
// unknown tool does, with close names; an upstream server's new tools are found; bad arguments name their field.
// Through the SDK client on an in-memory connection (as stdio serves it) and over HTTP through the web handler.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ElicitRequest } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Envelope } from "@skillport/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UpstreamClient, UpstreamHandle, UpstreamTool } from "../../src/entries/upstream-client.js";
import type { Host } from "../../src/host.js";
import { createHost } from "../../src/host.js";
import { connectInMemory, serveTransport } from "../../src/mcp/connect-in-memory.js";
import { createHostHttpHandler } from "../../src/mcp/serve-http.js";
import { resolveHttpConfig } from "../../src/transports/http/config.js";
import { createMetrics } from "../../src/transports/http/metrics.js";
import { ECHO, manifestOf, silentLogger } from "../helpers.js";

const FULL = "full-token-0123456789abcdef";
const NARROW = "narrow-token-0123456789abcdef";

/** Tools as an upstream server lists them: a few a task could ask for in words. */
const UPSTREAM_TOOLS: UpstreamTool[] = [
  tool("delete_file", "Removes a file from the workspace for good.", { path: "Where the file is." }, true),
  tool("read_file", "Returns the contents of a file in the workspace.", { path: "Where the file is." }),
  tool("create_issue", "Opens a new issue in a repository's tracker.", { title: "The issue's title." }),
  tool("list_pods", "Lists the pods running in a Kubernetes namespace.", { namespace: "The namespace." }),
  tool("send_message", "Posts a message to a chat channel.", { channel: "Where to post.", text: "What to say." }),
];

let dir: string;
let upstream: FakeUpstream;
let host: Host;
const finished: { tool: string; outcome: string }[] = [];

/** The composition: the echo skill (its wipe tool dangerous and allowed) and one upstream server, under "search". */
const manifest = (extra: object = {}) => ({
  name: "discovery",
  version: "1.0.0",
  discovery: "search",
  skills: [
    {
      path: ECHO,
      mcp: "echo",
      allow: ["wipe"],
      scopes: { wipe: ["echo:wipe"] },
      tools: { override: { echo: { alwaysLoad: true, searchHint: "repeat parrot" } } },
    },
  ],
  servers: [{ mcp: "up", command: "fake", allow: ["delete_file"] }],
  audit: { file: path.join(dir, "audit.log") },
  ...extra,
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-discovery-"));
  upstream = fakeUpstream(UPSTREAM_TOOLS);
  host = await createHost({ manifest: manifestOf(manifest()), logger: silentLogger(), client: upstream.client });
});
afterAll(async () => {
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

/** An SDK client on an in-memory connection, answering confirmation questions with `answer` when given. */
async function connect(
  answer?: (request: ElicitRequest) => { action: "accept" | "decline"; content?: Record<string, boolean> },
) {
  const client = new Client(
    { name: "discovery-test", version: "0" },
    answer === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  if (answer !== undefined) client.setRequestHandler("elicitation/create", async (request) => answer(request));
  const [clientSide, serverSide] = (await import("@modelcontextprotocol/server")).InMemoryTransport.createLinkedPair();
  await serveTransport(host, serverSide, {
    observer: { started: () => undefined, finished: (tool, _skill, outcome) => void finished.push({ tool, outcome }) },
  });
  await client.connect(clientSide);
  return client;
}

const envelopeOf = (result: { structuredContent?: unknown }) => result.structuredContent as Envelope;
const foundNames = (result: { structuredContent?: unknown }) =>
  (envelopeOf(result) as { data: { tools: { name: string }[] } }).data.tools.map((t) => t.name);
/** An envelope without what differs per call. */
const comparable = (envelope: Envelope) => ({
  ...envelope,
  meta: { ...envelope.meta, traceId: "", durationMs: 0 },
  ...("error" in envelope ? { error: { ...envelope.error, traceId: "" } } : {}),
});

describe('discovery "search" through the SDK client', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(() => client.close());

  it("lists the always-loaded tools and the two discovery tools, marked to be loaded up front", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["echo.echo", "search_tools", "call_tool"]);
    for (const listed of tools) expect(listed._meta?.["anthropic/alwaysLoad"]).toBe(true);
    expect(tools[0]?._meta?.["anthropic/searchHint"]).toBe("repeat parrot");
    expect(tools[1]?.description).toContain("echo, up");
  });

  it("finds a tool by what the task needs, best first, with its full definition", async () => {
    const result = await client.callTool({ name: "search_tools", arguments: { query: "delete a file" } });
    expect(result.isError).toBeFalsy();
    expect(foundNames(result)[0]).toBe("up.delete_file");
    const [first] = (envelopeOf(result) as { data: { tools: Record<string, unknown>[] } }).data.tools;
    expect(Object.keys(first ?? {})).toEqual(["name", "title", "description", "inputSchema"]);
    expect(first?.inputSchema).toMatchObject({ type: "object", properties: { path: { type: "string" } } });
    for (const [query, expected] of [
      ["print a file's contents", "up.read_file"],
      ["open a bug report", "up.create_issue"],
      ["which pods are running", "up.list_pods"],
      ["post to the team channel", "up.send_message"],
      ["parrot some text back", "echo.echo"],
    ] as const) {
      const found = await client.callTool({ name: "search_tools", arguments: { query, limit: 3 } });
      expect(foundNames(found)[0], query).toBe(expected);
      expect(foundNames(found).length, query).toBeLessThanOrEqual(3);
    }
  });

  it("runs the named tool through call_tool as a direct call runs it, audited and observed under its own name", async () => {
    const direct = await client.callTool({ name: "echo.echo", arguments: { text: "hi", times: 2 } });
    const through = await client.callTool({
      name: "call_tool",
      arguments: { name: "echo.echo", arguments: { text: "hi", times: 2 } },
    });
    expect(comparable(envelopeOf(through))).toEqual(comparable(envelopeOf(direct)));
    expect(envelopeOf(through).meta.tool).toBe("echo.echo");
    expect(finished.slice(-2)).toEqual([
      { tool: "echo.echo", outcome: "ok" },
      { tool: "echo.echo", outcome: "ok" },
    ]);
  });

  it("writes the audit line of a call through call_tool under the tool's own name, and none for a search", async () => {
    const file = path.join(dir, "audited.log");
    const audited = await createHost({
      manifest: manifestOf({ ...manifest(), servers: [], audit: { file } }),
      logger: silentLogger(),
    });
    const other = new Client({ name: "audited", version: "0" });
    await other.connect(await connectInMemory(audited));
    await other.callTool({ name: "search_tools", arguments: { query: "echo" } });
    await other.callTool({ name: "call_tool", arguments: { name: "echo.echo", arguments: { text: "hi" } } });
    await other.close();
    await audited.close();
    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((line) => line.tool)).toEqual(["echo.echo"]);
  });

  it("validates the named tool's arguments against its own schema, as a direct call does", async () => {
    const direct = await client.callTool({ name: "echo.echo", arguments: { text: "" } });
    const through = await client.callTool({
      name: "call_tool",
      arguments: { name: "echo.echo", arguments: { text: "" } },
    });
    expect(through.isError).toBe(true);
    expect(comparable(envelopeOf(through))).toEqual(comparable(envelopeOf(direct)));
    expect(envelopeOf(through)).toMatchObject({ error: { code: "ARGUMENT_INVALID", field: "/text" } });
  });

  it("refuses a dangerous tool the client cannot be asked about, through call_tool as directly", async () => {
    const direct = await client.callTool({ name: "echo.wipe", arguments: { target: "a" } });
    const through = await client.callTool({
      name: "call_tool",
      arguments: { name: "echo.wipe", arguments: { target: "a" } },
    });
    expect(through.isError).toBe(true);
    expect(comparable(envelopeOf(through))).toEqual(comparable(envelopeOf(direct)));
    expect(envelopeOf(through)).toMatchObject({ error: { code: "CONFIRMATION_REQUIRED" } });
  });

  it("answers an unknown name as an unknown tool, with the close names", async () => {
    const direct = await client.callTool({ name: "up.delete_fil", arguments: {} }).catch((e: Error) => e);
    const through = await client
      .callTool({ name: "call_tool", arguments: { name: "up.delete_fil", arguments: {} } })
      .catch((e: Error) => e);
    expect(through).toBeInstanceOf(Error);
    expect((through as Error).message).toBe((direct as Error).message);
    expect((through as Error).message).toContain('unknown tool "up.delete_fil"; did you mean "up.delete_file"?');
    expect((through as Error).message).toContain("search_tools finds the tools this server has");
  });

  it("answers bad arguments of the discovery tools with the field at fault", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["search_tools", {}, "/query"],
      ["search_tools", { query: 7 }, "/query"],
      ["search_tools", { query: "   " }, "/query"],
      ["search_tools", { query: "x".repeat(1001) }, "/query"],
      ["search_tools", { query: "file", limit: 0 }, "/limit"],
      ["search_tools", { query: "file", limit: 2.5 }, "/limit"],
      ["search_tools", { query: "file", extra: true }, "/extra"],
      ["call_tool", {}, "/name"],
      ["call_tool", { name: "" }, "/name"],
      ["call_tool", { name: "search_tools", arguments: { query: "x" } }, "/name"],
      ["call_tool", { name: "echo.echo", arguments: ["hi"] }, "/arguments"],
      ["call_tool", { name: "echo.echo", args: {} }, "/args"],
    ];
    for (const [name, args, field] of cases) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(envelopeOf(result), JSON.stringify(args)).toMatchObject({
        ok: false,
        error: { code: "ARGUMENT_INVALID", field },
      });
      expect((result.content as { text: string }[])[0]?.text).toContain(`ARGUMENT_INVALID (at ${field})`);
    }
  });

  it("finds an upstream server's new tools once it changed them, and no longer the ones it dropped", async () => {
    const before = await client.callTool({ name: "search_tools", arguments: { query: "archive an old invoice" } });
    expect(foundNames(before)).not.toContain("up.archive_invoice");
    upstream.change([...UPSTREAM_TOOLS.slice(1), tool("archive_invoice", "Moves an invoice to the archive.", {})]);
    const after = await client.callTool({ name: "search_tools", arguments: { query: "archive an old invoice" } });
    expect(foundNames(after)[0]).toBe("up.archive_invoice");
    const gone = await client.callTool({ name: "search_tools", arguments: { query: "delete a file", limit: 50 } });
    expect(foundNames(gone)).not.toContain("up.delete_file");
    upstream.change(UPSTREAM_TOOLS);
    const back = await client.callTool({ name: "search_tools", arguments: { query: "delete a file" } });
    expect(foundNames(back)[0]).toBe("up.delete_file");
  });
});

describe("a dangerous tool through call_tool, for a client that can be asked", () => {
  it("asks the same question as a direct call, runs on yes and is refused on no", async () => {
    const asked: string[] = [];
    let yes = true;
    const client = await connect((request) => {
      asked.push((request.params as { message: string }).message);
      return yes ? { action: "accept", content: { confirm: true } } : { action: "decline" };
    });
    try {
      const direct = await client.callTool({ name: "echo.wipe", arguments: { target: "one" } });
      const through = await client.callTool({
        name: "call_tool",
        arguments: { name: "echo.wipe", arguments: { target: "one" } },
      });
      expect(asked).toHaveLength(2);
      expect(asked[1]).toBe(asked[0]);
      expect(envelopeOf(through)).toMatchObject({ ok: true, data: { wiped: "one" } });
      expect(envelopeOf(direct)).toMatchObject({ ok: true, data: { wiped: "one" } });
      yes = false;
      const refused = await client.callTool({
        name: "call_tool",
        arguments: { name: "echo.wipe", arguments: { target: "two" } },
      });
      expect(asked).toHaveLength(3);
      expect(refused.isError).toBe(true);
      expect(envelopeOf(refused).ok).toBe(false);
    } finally {
      await client.close();
    }
  });

  it("is refused without `allow`, before anyone is asked", async () => {
    const strict = await createHost({
      manifest: manifestOf({ ...manifest(), skills: [{ path: ECHO, mcp: "echo" }], servers: [] }),
      logger: silentLogger(),
    });
    const client = new Client({ name: "strict", version: "0" }, { capabilities: { elicitation: { form: {} } } });
    let asked = 0;
    client.setRequestHandler("elicitation/create", async () => {
      asked++;
      return { action: "accept", content: { confirm: true } };
    });
    await client.connect(await connectInMemory(strict));
    try {
      const direct = await client.callTool({ name: "echo.wipe", arguments: { target: "x" } });
      const through = await client.callTool({
        name: "call_tool",
        arguments: { name: "echo.wipe", arguments: { target: "x" } },
      });
      expect(asked).toBe(0);
      expect(through.isError).toBe(true);
      expect(comparable(envelopeOf(through))).toEqual(comparable(envelopeOf(direct)));
      expect(envelopeOf(through).message).toContain("allow");
    } finally {
      await client.close();
      await strict.close();
    }
  });
});

describe("discovery over HTTP, per caller", () => {
  let scoped: Host;
  let handle: (request: Request) => Promise<Response>;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const http = {
      auth: {
        tokens: [
          { name: "full", scopes: ["echo:wipe"], token: { env: "T_FULL" } },
          { name: "narrow", scopes: [], token: { env: "T_NARROW" } },
        ],
      },
    };
    scoped = await createHost({
      manifest: manifestOf(manifest({ http })),
      logger: silentLogger(),
      client: upstream.client,
    });
    const config = await resolveHttpConfig(scoped.manifest, { env: { T_FULL: FULL, T_NARROW: NARROW } });
    const served = createHostHttpHandler(scoped, config, {
      metrics: createMetrics({ processMetrics: false }),
      state: { draining: false, resource: undefined },
    });
    handle = (request) => served.handle(request, { remoteAddress: "127.0.0.1" });
    close = async () => {
      await served.close();
      await scoped.close();
    };
  });
  afterAll(() => close?.());

  /** An SDK client over Streamable HTTP (in memory, through the web handler), with a bearer token. */
  async function httpClient(token: string) {
    const client = new Client({ name: "http", version: "0" });
    const transport = new StreamableHTTPClientTransport(new URL("http://localhost:3333/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (url, init) => {
        const headers = new Headers(init?.headers);
        headers.set("host", "localhost:3333");
        return handle(new Request(url, { ...init, headers }));
      },
    });
    await client.connect(transport);
    return client;
  }

  it("never shows a caller a tool it lacks the scope of, nor lets it call one through call_tool", async () => {
    const full = await httpClient(FULL);
    const narrow = await httpClient(NARROW);
    try {
      const query = { query: "wipe a dangerous target", limit: 50 };
      expect(foundNames(await full.callTool({ name: "search_tools", arguments: query }))).toContain("echo.wipe");
      const seen = foundNames(await narrow.callTool({ name: "search_tools", arguments: query }));
      expect(seen).not.toContain("echo.wipe");
      const other = await narrow.callTool({ name: "search_tools", arguments: { query: "echo some text" } });
      expect(foundNames(other)).toContain("echo.echo");
      const direct = await narrow.callTool({ name: "echo.wipe", arguments: { target: "x" } });
      const through = await narrow.callTool({
        name: "call_tool",
        arguments: { name: "echo.wipe", arguments: { target: "x" } },
      });
      expect(envelopeOf(through)).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      expect(comparable(envelopeOf(through))).toEqual(comparable(envelopeOf(direct)));
      // Nor is it named among the close names of a wrong one.
      const wrong = await narrow
        .callTool({ name: "call_tool", arguments: { name: "echo.wipee", arguments: {} } })
        .catch((e: Error) => e);
      expect((wrong as Error).message).toContain('unknown tool "echo.wipee"');
      expect((wrong as Error).message).not.toContain('echo.wipe"?');
      const listed = (await narrow.listTools()).tools.map((t) => t.name);
      expect(listed).toEqual(["echo.echo", "search_tools", "call_tool"]);
    } finally {
      await full.close();
      await narrow.close();
    }
  });
});

describe('discovery "all" (the default)', () => {
  it("lists every tool, with the manifest's hints for clients that search themselves, and serves no discovery tool", async () => {
    const all = await createHost({
      manifest: manifestOf({
        skills: [
          {
            path: ECHO,
            mcp: "echo",
            tools: { override: { echo: { searchHint: "repeat parrot" }, plain: { alwaysLoad: true } } },
          },
          { path: ECHO, mcp: "loud", alwaysLoad: true, tools: { override: { echo: { alwaysLoad: false } } } },
        ],
      }),
      logger: silentLogger(),
    });
    const client = new Client({ name: "all", version: "0" });
    await client.connect(await connectInMemory(all));
    try {
      const { tools } = await client.listTools();
      const meta = Object.fromEntries(tools.map((t) => [t.name, t._meta]));
      expect(meta["echo.echo"]).toEqual({ "anthropic/searchHint": "repeat parrot" });
      expect(meta["echo.plain"]).toEqual({ "anthropic/alwaysLoad": true });
      expect(meta["echo.wipe"]).toBeUndefined();
      expect(meta["loud.plain"]).toEqual({ "anthropic/alwaysLoad": true });
      expect(meta["loud.echo"]).toBeUndefined();
      expect(tools.some((t) => t.name === "search_tools" || t.name === "call_tool")).toBe(false);
      const unknown = await client.callTool({ name: "search_tools", arguments: { query: "x" } }).catch((e: Error) => e);
      expect((unknown as Error).message).toContain("tools/list names the tools this server has");
    } finally {
      await client.close();
      await all.close();
    }
  });
});

describe("discovery's names in the manifest", () => {
  it("takes other names for the two tools, and stops a host whose tool takes one of them", async () => {
    const named = await createHost({
      manifest: manifestOf({
        discovery: { mode: "search", searchTool: "find_tools", callTool: "use_tool", results: 2 },
        skills: [{ path: ECHO, mcp: "echo" }],
      }),
      logger: silentLogger(),
    });
    const client = new Client({ name: "named", version: "0" });
    await client.connect(await connectInMemory(named));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["find_tools", "use_tool"]);
      const found = await client.callTool({ name: "find_tools", arguments: { query: "echo text" } });
      expect(foundNames(found)).toHaveLength(2);
      const used = await client.callTool({ name: "use_tool", arguments: { name: "echo.plain" } });
      expect(envelopeOf(used).ok).toBe(true);
    } finally {
      await client.close();
      await named.close();
    }
    await expect(
      createHost({
        manifest: manifestOf({
          discovery: { mode: "search", callTool: "plain" },
          skills: [{ path: ECHO, mcp: "echo", prefix: false }],
        }),
        logger: silentLogger(),
      }),
    ).rejects.toThrow(/tool "plain" of skills\[0\].*discovery\.callTool/s);
    expect(() =>
      manifestOf({ discovery: { mode: "search", searchTool: "same", callTool: "same" }, skills: [] }),
    ).toThrow(/searchTool and callTool are both "same"/);
  });
});

// --- internal ---

function tool(name: string, description: string, args: Record<string, string>, destructive = false): UpstreamTool {
  return {
    name,
    description,
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(
        Object.entries(args).map(([key, text]) => [key, { type: "string", description: text }]),
      ),
    },
    annotations: destructive ? { destructiveHint: true, readOnlyHint: false } : { readOnlyHint: true },
  };
}

interface FakeUpstream {
  client: UpstreamClient;
  /** The server lists other tools now, and says so (notifications/tools/list_changed, as the client reports it). */
  change(tools: UpstreamTool[]): void;
}

/** An upstream server in this process: the part of a client handle the host uses, over a list that can change. */
function fakeUpstream(initial: UpstreamTool[]): FakeUpstream {
  let tools = initial;
  const listeners = new Set<Parameters<UpstreamHandle["state"]["subscribe"]>[0]>();
  const handle: UpstreamHandle = {
    start: async () => ({ ok: true, tools }),
    stop: async () => undefined,
    callTool: async (name) => ({ ok: true, result: { content: [{ type: "text", text: `${name} ran` }] } }),
    state: {
      get value() {
        return "ready";
      },
      get tools() {
        return tools;
      },
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
  return {
    client: async () => ({ connect: () => handle, linearRegExp: (pattern, flags) => new RegExp(pattern, flags) }),
    change(next) {
      tools = next;
      for (const listener of listeners) listener({ value: "ready", tools, change: "tools" });
    },
  };
}
