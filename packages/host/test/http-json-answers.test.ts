import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "./http-helpers.js";
import { messagesOf, raw, rpc, startServer } from "./http-helpers.js";

// `curl … | jq`: a client that accepts JSON and asked for one answer gets one JSON body, not an event stream.
describe("one answer over HTTP is plain JSON (2025 era, as curl sends it)", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  it("answers tools/list as application/json", async () => {
    const answer = await raw(server.url, { body: rpc("tools/list") });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^application\/json\b/);
    const message = answer.json();
    expect(message).toMatchObject({ jsonrpc: "2.0", id: 1 });
    expect(message.result.tools.map((t: { name: string }) => t.name)).toContain("probe.echo");
  });

  it("answers a tools/call without a progress token as application/json, the envelope in structuredContent", async () => {
    const answer = await raw(server.url, {
      body: rpc("tools/call", { name: "probe.sleep", arguments: { id: "json", ms: 0 } }, 7),
    });
    expect(answer.headers["content-type"]).toMatch(/^application\/json\b/);
    expect(answer.json()).toMatchObject({ id: 7, result: { structuredContent: { ok: true, data: { slept: 0 } } } });
  });

  it("answers a protocol error (an unknown tool) as application/json with the request's id", async () => {
    const answer = await raw(server.url, { body: rpc("tools/call", { name: "probe.nope", arguments: {} }, 9) });
    expect(answer.headers["content-type"]).toMatch(/^application\/json\b/);
    expect(answer.json()).toMatchObject({ id: 9, error: { code: -32602 } });
  });

  it("keeps the event stream for a call with a progress token: the progress arrives before the result", async () => {
    const answer = await raw(server.url, {
      body: rpc("tools/call", { name: "probe.sleep", arguments: { id: "sse", ms: 0 }, _meta: { progressToken: "p1" } }),
    });
    expect(answer.headers["content-type"]).toMatch(/^text\/event-stream\b/);
    const messages = messagesOf(answer.text);
    expect(messages.map((m) => m.method ?? "result")).toEqual(["notifications/progress", "result"]);
    expect(messages[0].params).toMatchObject({ progressToken: "p1", progress: 1, total: 2 });
    expect(messages[1].result.structuredContent).toMatchObject({ ok: true });
  });
});
