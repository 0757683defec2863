import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../src/host.js";
import { createHost } from "../src/host.js";
import { createLegacySessions } from "../src/mcp/legacy-sessions.js";
import type { HttpServing } from "../src/mcp/serve-http.js";
import { serveHostHttp } from "../src/mcp/serve-http.js";
import { FIXTURES, manifestOf, silentLogger } from "./helpers.js";
import { messagesOf, raw, rpc } from "./http-helpers.js";

const LIBRARY = path.join(FIXTURES, "skill-library");
const ALICE = "alice-token-4f0c2a9e71d3b856";
const BOB = "bob-token-9a7e3c1f05b2d648";
const env = { SESSION_ALICE: ALICE, SESSION_BOB: BOB };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const INITIALIZE = rpc("initialize", {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "session-test", version: "0.0.0" },
});
const answers = (message: string): Record<string, string> =>
  message.startsWith("What") ? { name: "Ada" } : { color: "teal" };

/** A host over the library fixture on loopback HTTP, two token callers; `ask_name` needs the scope `lib:ask`. */
async function serve(sessions: boolean | undefined): Promise<{ host: Host; serving: HttpServing; dir: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-sessions-"));
  const host = await createHost({
    manifest: manifestOf({
      skills: [{ path: LIBRARY, config: { record: path.join(dir, "record.log") }, scopes: { ask_name: ["lib:ask"] } }],
      http: {
        ...(sessions === undefined ? {} : { sessions }),
        auth: {
          tokens: [
            { name: "alice", scopes: ["lib:ask"], token: { env: "SESSION_ALICE" } },
            { name: "bob", scopes: [], token: { env: "SESSION_BOB" } },
          ],
        },
      },
      audit: { file: path.join(dir, "audit.log") },
    }),
    logger: silentLogger(),
  });
  return { host, serving: await serveHostHttp(host, { port: 0, env }), dir };
}

/** A 2025-era SDK client (initialize) over HTTP as `token`, answering questions from `answers`. */
async function connectAs(url: string, token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } });
  const client = new Client(
    { name: "session-test", version: "0.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: answers(request.params.message) };
  });
  await client.connect(transport);
  return { client, transport, asked };
}

describe("2025-11-25 sessions over HTTP (http.sessions: true)", () => {
  let host: Host;
  let serving: HttpServing;
  let dir: string;

  beforeAll(async () => {
    ({ host, serving, dir } = await serve(true));
  });
  afterAll(async () => {
    await serving?.close({ graceMs: 0 });
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("asks the client during a call (elicitation over the session's stream) and answers with its answers", async () => {
    const { client, transport, asked } = await connectAs(serving.url, ALICE);
    try {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const result = await client.callTool({ name: "library.ask_name", arguments: { run: "s1" } });
      expect(result.structuredContent).toMatchObject({ ok: true, data: { greeting: "Hello Ada, who likes teal" } });
      expect(asked).toEqual(["What is your name?", "Favourite color?"]);
    } finally {
      await client.close();
    }
  });

  it("answers another caller that replays a session id as if the session did not exist, and keeps it for its owner", async () => {
    const { client, transport } = await connectAs(serving.url, ALICE);
    try {
      const stolen = {
        ...bearer(BOB),
        "mcp-session-id": String(transport.sessionId),
        "mcp-protocol-version": "2025-11-25",
      };
      const call = await raw(serving.url, {
        headers: stolen,
        body: rpc("tools/call", { name: "library.show_cover", arguments: {} }),
      });
      expect(call.status).toBe(404);
      expect(call.json()).toMatchObject({ error: { code: -32001 } });
      expect((await raw(serving.url, { method: "GET", headers: stolen })).status).toBe(404);
      expect((await raw(serving.url, { method: "DELETE", headers: stolen })).status).toBe(404);
      // The owner's session is untouched by the attempts.
      const mine = await client.callTool({ name: "library.show_cover", arguments: {} });
      expect(mine.structuredContent).toMatchObject({ ok: true });
    } finally {
      await client.close();
    }
  });

  it("checks the session's caller's scopes on every call, as without sessions", async () => {
    const { client } = await connectAs(serving.url, BOB);
    try {
      const result = await client.callTool({ name: "library.ask_name", arguments: { run: "bob" } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    } finally {
      await client.close();
    }
  });

  it("ends a session on its owner's DELETE: its id then answers 404", async () => {
    const { client, transport } = await connectAs(serving.url, ALICE);
    const id = String(transport.sessionId);
    const headers = { ...bearer(ALICE), "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
    await transport.terminateSession(); // DELETE with the session id
    await client.close();
    const after = await raw(serving.url, { headers, body: rpc("tools/list") });
    expect(after.status).toBe(404);
  });

  it("serves a session's GET event stream, and a shutdown does not wait for it", async () => {
    const { host: own, serving: served, dir: ownDir } = await serve(true);
    try {
      const init = await raw(served.url, { headers: bearer(ALICE), body: INITIALIZE });
      const headers = {
        ...bearer(ALICE),
        "mcp-session-id": String(init.headers["mcp-session-id"]),
        "mcp-protocol-version": "2025-11-25",
      };
      await raw(served.url, { headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
      const controller = new AbortController();
      const stream = await fetch(served.url, {
        headers: { ...headers, accept: "text/event-stream" },
        signal: controller.signal,
      });
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toContain("text/event-stream");
      // A drain waits for requests being answered only: the open stream is not one of them.
      expect(served.inFlight).toBe(0);
      expect(await served.close({ graceMs: 60_000 })).toEqual({ drained: true });
      controller.abort();
    } finally {
      await own.close();
      await rm(ownDir, { recursive: true, force: true });
    }
  });

  it("resumes a dropped event stream from the session's own events only (Last-Event-ID)", async () => {
    const open = async (token: string) => {
      const init = await raw(serving.url, { headers: bearer(token), body: INITIALIZE });
      const headers = {
        ...bearer(token),
        "mcp-session-id": String(init.headers["mcp-session-id"]),
        "mcp-protocol-version": "2025-11-25",
      };
      await raw(serving.url, {
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      });
      return headers;
    };
    const alice = await open(ALICE);
    const call = await raw(serving.url, {
      headers: alice,
      body: rpc("tools/call", { name: "library.show_cover", arguments: {} }, 41),
    });
    // The answer's stream opens with an event that only carries its id and the reconnection delay.
    const first = /^id: (\S+)\nretry: (\d+)\ndata: *\n/.exec(call.text);
    expect(first?.[2]).toBe("1000");
    const replay = new AbortController();
    const resumed = await fetch(serving.url, {
      headers: { ...alice, accept: "text/event-stream", "last-event-id": String(first?.[1]) },
      signal: replay.signal,
    });
    expect(resumed.status).toBe(200);
    const replayed = await firstEventWith(resumed, '"id":41');
    replay.abort();
    expect(replayed).toMatchObject({ id: 41, result: { structuredContent: { ok: true } } });

    // Another session (here another caller's) finds none of alice's events.
    const mallory = await open(BOB);
    const stolen = await fetch(serving.url, {
      headers: { ...mallory, accept: "text/event-stream", "last-event-id": String(first?.[1]) },
    });
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).not.toContain("structuredContent");
  });

  it("answers GET or DELETE without a session id with 400", async () => {
    for (const method of ["GET", "DELETE"]) {
      const answer = await raw(serving.url, { method, headers: bearer(ALICE) });
      expect(answer.status, method).toBe(400);
    }
  });
});

/** Reads an event stream until an event's data contains `marker`, and returns that event's message. */
async function firstEventWith(response: Response, marker: string): Promise<unknown> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended without ${marker}:\n${text}`);
    text += new TextDecoder().decode(value);
    const line = text.split("\n").find((l) => l.startsWith("data: ") && l.includes(marker));
    if (line !== undefined) return JSON.parse(line.slice(6));
  }
}

describe("without sessions (the default)", () => {
  let host: Host;
  let serving: HttpServing;
  let dir: string;

  beforeAll(async () => {
    ({ host, serving, dir } = await serve(undefined));
  });
  afterAll(async () => {
    await serving?.close({ graceMs: 0 });
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps no session: initialize answers without Mcp-Session-Id, and GET or DELETE answer 405", async () => {
    const init = await raw(serving.url, {
      headers: bearer(ALICE),
      body: INITIALIZE,
    });
    expect(init.status).toBe(200);
    expect(init.headers["mcp-session-id"]).toBeUndefined();
    expect(messagesOf(init.text)[0]).toMatchObject({ result: { protocolVersion: "2025-11-25" } });
    for (const method of ["GET", "DELETE"]) {
      expect((await raw(serving.url, { method, headers: bearer(ALICE) })).status, method).toBe(405);
    }
  });
});

describe("createLegacySessions", () => {
  it("opens at most maxSessions sessions; one more answers 503 with Retry-After", async () => {
    const host = await createHost({ manifest: manifestOf({ skills: [{ path: LIBRARY }] }), logger: silentLogger() });
    const { createServerFactory } = await import("../src/mcp/server.js");
    const sessions = createLegacySessions({
      factory: createServerFactory(host),
      logger: silentLogger(),
      maxSessions: 1,
    });
    const initialize = () =>
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: INITIALIZE,
      });
    const caller = { id: "anonymous", authInfo: { token: "", clientId: "anonymous", scopes: [] } };
    const body = (request: Request) => request.clone().json();
    try {
      const first = initialize();
      expect((await sessions.handle(first, caller, await body(first)))?.status).toBe(200);
      expect(sessions.size).toBe(1);
      const second = initialize();
      const refused = await sessions.handle(second, caller, await body(second));
      expect(refused?.status).toBe(503);
      expect(refused?.headers.get("retry-after")).toBe("5");
    } finally {
      await sessions.close();
      await host.close();
    }
  });
});
