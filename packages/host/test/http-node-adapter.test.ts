// The node:http side of the web handler, over a real socket: request targets and methods a web Request cannot
// carry as sent, a body read only when the guards get to it, and clients that leave mid-request.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { connect as netConnect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "./http-helpers.js";
import { capturingLogger, raw, rpc, startServer } from "./http-helpers.js";

const TOKEN = "adapter-token-0123456789abcdef";
const whoami = rpc("tools/call", { name: "probe.whoami", arguments: {} });

/** Writes `text` on a fresh connection and resolves with everything the server sent until it closed. */
function exchange(url: string, text: string): Promise<string> {
  const socket = netConnect(Number(new URL(url).port), "127.0.0.1");
  socket.setEncoding("utf8");
  let received = "";
  socket.on("data", (d: string) => {
    received += d;
  });
  socket.write(text);
  return new Promise((resolve, reject) => {
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
  });
}

const statusLines = (text: string) => text.match(/^HTTP\/1\.1 \d{3}/gm) ?? [];

describe("request targets the URL parser would rewrite", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  it.each(["/a/../mcp", "/./mcp", "//evil.example/mcp", "http://evil.example/mcp", "/mcp/."])(
    "answers POST %s with 404: it is not the path of the endpoint, whatever it normalises to",
    async (target) => {
      const body = whoami;
      const answer = await exchange(
        server.url,
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(statusLines(answer)).toEqual(["HTTP/1.1 404"]);
      expect(answer).toContain('{"error":"not_found"}');
    },
  );

  it("answers GET of a rewritten path with 404 naming the path as sent", async () => {
    const answer = await exchange(
      server.url,
      "GET /x/../healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    expect(statusLines(answer)).toEqual(["HTTP/1.1 404"]);
    expect(answer).toContain("nothing at /x/../healthz; the MCP endpoint is /mcp");
  });
});

describe("TRACE, which a web Request cannot carry", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  it("is refused by name on the endpoint after the Host check, with 405 on the routes and 404 elsewhere", async () => {
    const mcp = await raw(server.url, { method: "TRACE" });
    expect(mcp.status).toBe(405);
    expect(mcp.json().error.message).toContain("TRACE is not allowed on /mcp");
    expect((await raw(server.url, { method: "TRACE", headers: { host: "evil.example" } })).status).toBe(403);
    const healthz = await raw(server.url, { method: "TRACE", path: "/healthz" });
    expect(healthz.status).toBe(405);
    expect(healthz.headers.allow).toBe("GET, HEAD");
    expect((await raw(server.url, { method: "TRACE", path: "/nowhere" })).status).toBe(404);
  });
});

describe("the body is read only when the guards get to it", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(
      { http: { maxBodyBytes: 1024, auth: { tokens: [{ name: "ci", token: { env: "ADAPTER_TOKEN" } }] } } },
      { env: { ADAPTER_TOKEN: TOKEN } },
    );
  });
  afterAll(() => server?.stop());

  it("answers 401 as soon as the headers are in: it does not wait for a body it would not read", async () => {
    const socket = netConnect(Number(new URL(server.url).port), "127.0.0.1");
    socket.setEncoding("utf8");
    let received = "";
    const headers = new Promise<void>((resolve) =>
      socket.on("data", (d: string) => {
        received += d;
        if (received.includes("\r\n\r\n")) resolve();
      }),
    );
    try {
      // A body declared and none of it sent: an answer can only come from a server that reads no body first.
      socket.write(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
      );
      await headers;
      expect(statusLines(received)).toEqual(["HTTP/1.1 401"]);
    } finally {
      socket.destroy();
    }
  });

  it("stops reading a chunked body past http.maxBodyBytes, answers 413 and closes the connection", async () => {
    const chunk = "x".repeat(512);
    const chunks = Array.from({ length: 8 }, () => `${(512).toString(16)}\r\n${chunk}\r\n`).join("");
    const answer = await exchange(
      server.url,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}`,
    );
    expect(statusLines(answer)).toEqual(["HTTP/1.1 413"]);
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(answer).toContain("larger than 1024 bytes (http.maxBodyBytes)");
  });
});

describe("a client that leaves in the middle of its upload", () => {
  it("is no error: nothing is logged above info, and the request is no longer in flight", async () => {
    const { logger, lines, next } = capturingLogger();
    const server = await startServer({}, { logger });
    try {
      const socket = netConnect(Number(new URL(server.url).port), "127.0.0.1");
      socket.on("error", () => undefined);
      // Node announces each request its HTTP server starts on a diagnostics channel: the client leaves once it has.
      const started = new Promise<void>((resolve) => {
        const onStart = () => {
          unsubscribe("http.server.request.start", onStart);
          resolve();
        };
        subscribe("http.server.request.start", onStart);
      });
      socket.write(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n" +
          '{"jsonrpc":"2.0","id":1,',
      );
      await started;
      expect(server.serving.inFlight).toBe(1);
      socket.destroy();
      // The request's line is logged once it is no longer counted in flight.
      const done = await next((line) => line.msg === "http request");
      expect(done).toMatchObject({ disconnected: true });
      expect(server.serving.inFlight).toBe(0);
      expect(lines().filter((line) => line.level > 30)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
