import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../src/host.js";
import { createHost } from "../src/host.js";
import { connectInMemory } from "../src/mcp/connect-in-memory.js";
import type { HttpServing } from "../src/mcp/serve-http.js";
import { serveHostHttp } from "../src/mcp/serve-http.js";
import { FIXTURES, manifestOf, silentLogger } from "./helpers.js";

const LIBRARY = path.join(FIXTURES, "skill-library");
const TOKEN = "lib-secret-7f3e1c55aa90";

let host: Host;
let serving: HttpServing;
let dir: string;
let record: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-input-"));
  record = path.join(dir, "record.log");
  process.env.SKILLPORT_LIBRARY_TOKEN = TOKEN;
  host = await createHost({
    manifest: manifestOf({
      skills: [{ path: LIBRARY, config: { record }, credentials: { token: { env: "SKILLPORT_LIBRARY_TOKEN" } } }],
      audit: { file: path.join(dir, "audit.log") },
    }),
    logger: silentLogger(),
  });
  delete process.env.SKILLPORT_LIBRARY_TOKEN;
  serving = await serveHostHttp(host, { port: 0 });
});

afterAll(async () => {
  await serving.close({ graceMs: 0 });
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

const runsOf = async (run: string) =>
  (await readFile(record, "utf8").catch(() => "")).split("\n").filter((line) => line.endsWith(` ${run}`));

/**
 * The 2025 era asks over a connection (the server sends requests to the client): served in memory here, as stdio
 * serves it; the 2026 era asks in its answer (input_required), served over stateless HTTP.
 */
const ERAS = [
  { era: "2025-11-25 (a connection)", options: {}, over: "memory" },
  {
    era: "2026-07-28 (stateless HTTP)",
    options: { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    over: "http",
  },
] as const;

type Era = (typeof ERAS)[number];

async function connect(era: Pick<Era, "options" | "over">, capabilities: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: "input-test", version: "0.0.0" }, { ...era.options, capabilities } as never);
  await client.connect(
    era.over === "memory" ? await connectInMemory(host) : new StreamableHTTPClientTransport(new URL(serving.url)),
  );
  return client;
}

describe.each(ERAS)("ctx.elicit, ctx.sample, ctx.listRoots and ctx.log reach the client, $era", (options) => {
  const { era } = options;
  it("asks the user twice, running the capability again with each answer: the work after the questions runs once", async () => {
    const client = await connect(options, { elicitation: { form: {} } });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      const content: Record<string, string> = request.params.message.startsWith("What")
        ? { name: "Ada" }
        : { color: "teal" };
      return { action: "accept", content };
    });
    try {
      const run = `elicit-${era.slice(0, 4)}`;
      const result = await client.callTool({ name: "library.ask_name", arguments: { run } });
      expect(result.structuredContent).toMatchObject({ ok: true, data: { greeting: "Hello Ada, who likes teal" } });
      expect(asked).toEqual(["What is your name?", "Favourite color?"]);
      // One run per round (two questions, then the answer), and the work after them once.
      expect(await runsOf(run)).toEqual([`run ${run}`, `run ${run}`, `run ${run}`, `done ${run}`]);
    } finally {
      await client.close();
    }
  });

  it("asks again, instead of taking it, when the answer does not match the question's schema", async () => {
    const client = await connect(options, { elicitation: { form: {} } });
    let calls = 0;
    client.setRequestHandler("elicitation/create", async (request) => {
      calls++;
      if (request.params.message.startsWith("What")) {
        return calls === 1
          ? { action: "accept", content: { name: "x".repeat(500) } } // over the question's maxLength
          : { action: "accept", content: { name: "Bo" } };
      }
      return { action: "decline" };
    });
    try {
      const result = await client.callTool({ name: "library.ask_name", arguments: { run: "schema" } });
      expect(result.structuredContent).toMatchObject({ ok: true, data: { greeting: "Hello Bo, who likes nothing" } });
      expect(calls).toBe(3);
    } finally {
      await client.close();
    }
  });

  it("asks the user, the model and the roots in one round", async () => {
    const client = await connect(options, { elicitation: { form: {} }, sampling: {}, roots: {} });
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Cy" } }));
    client.setRequestHandler("sampling/createMessage", async () => ({
      role: "assistant",
      content: { type: "text", text: "hi there" },
      model: "test-model",
    }));
    client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
    try {
      const result = await client.callTool({ name: "library.ask_all", arguments: {} });
      expect(result.structuredContent).toMatchObject({
        ok: true,
        data: {
          name: "Cy",
          reply: "hi there",
          roots: ["file:///work"],
          supports: ["elicitation", "sampling", "roots"],
        },
      });
    } finally {
      await client.close();
    }
  });

  it("lets a prompt ask before it renders", async () => {
    const client = await connect(options, { elicitation: { form: {} } });
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { topic: "owls" } }));
    try {
      const rendered = await client.getPrompt({ name: "library.ask_topic" });
      expect(rendered.messages[0]).toEqual({ role: "user", content: { type: "text", text: "Tell me about owls." } });
    } finally {
      await client.close();
    }
  });
});

describe("ctx.log as MCP logging notifications (2025-11-25: at the level the client set)", () => {
  it("sends the capability's lines at or above the level, each redacted", async () => {
    const client = await connect({ options: {}, over: "memory" }, {});
    const received: { level: string; data: unknown }[] = [];
    client.setNotificationHandler("notifications/message", (notification) => {
      received.push({ level: notification.params.level, data: notification.params.data });
    });
    try {
      await client.setLoggingLevel("warning");
      const result = await client.callTool({ name: "library.log_steps", arguments: {} });
      expect(result.structuredContent).toMatchObject({ ok: true });
      expect(received.map((m) => m.level)).toEqual(["warning", "error"]);
      expect(received[0]?.data).toEqual({ message: "step two", n: 2 });
      expect(JSON.stringify(received)).not.toContain(TOKEN);
      expect(received[1]?.data).toBe("step three [REDACTED]");
    } finally {
      await client.close();
    }
  });
});

describe("round state (2026-07-28, as a client sends it)", () => {
  async function rpc(
    body: unknown,
  ): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
    const response = await fetch(serving.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "library.ask_name",
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
    return JSON.parse(json);
  }
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  };
  const call = (extra: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "library.ask_name", arguments: { run: "raw" }, _meta: meta, ...extra },
  });

  it("refuses tampered, replayed and retargeted state with invalid params; a first call's own answers count for its questions only", async () => {
    const first = await rpc(call({}));
    expect(first.result).toMatchObject({ resultType: "input_required" });
    const state = first.result?.requestState as string;
    const answer = { "elicit-1": { action: "accept", content: { name: "Eve" } } };

    const tampered = await rpc(call({ inputResponses: answer, requestState: `${state}-TAMPERED` }));
    expect(tampered.error?.code).toBe(-32602);
    expect(tampered.error?.message).toContain("integrity");

    const retargeted = await rpc({
      ...call({ inputResponses: answer, requestState: state }),
      params: {
        name: "library.ask_name",
        arguments: { run: "other" },
        _meta: meta,
        inputResponses: answer,
        requestState: state,
      },
    });
    expect(retargeted.error?.message).toContain("another call");

    const second = await rpc(call({ inputResponses: answer, requestState: state }));
    expect(second.result).toMatchObject({ resultType: "input_required" });
    const replayed = await rpc(call({ inputResponses: answer, requestState: state }));
    expect(replayed.error?.message).toContain("already used");

    // A first call may carry the answer to the question it will ask (MRTR's ephemeral flow): it is taken, and the
    // next question is asked. An answer for a key the run does not ask, or in the wrong shape, is not.
    const ahead = await rpc(call({ inputResponses: answer }));
    expect(ahead.result).toMatchObject({ resultType: "input_required", inputRequests: { "elicit-2": {} } });
    expect(Object.keys(ahead.result?.inputRequests ?? {})).toEqual(["elicit-2"]);
    const stray = { other: { action: "accept", content: { name: "Eve" } } };
    const wrongShape = { "elicit-1": { action: "accept", content: { name: 42 } } };
    for (const inputResponses of [stray, wrongShape]) {
      const ignored = await rpc(call({ inputResponses }));
      expect(Object.keys(ignored.result?.inputRequests ?? {})).toEqual(["elicit-1"]);
    }
  });
});
