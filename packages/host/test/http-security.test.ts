import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { connect as netConnect } from "node:net";
import os from "node:os";
import path from "node:path";
import type { JWK } from "jose";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratch } from "./helpers.js";
import type { TestServer } from "./http-helpers.js";
import { connect, ERAS, messagesOf, raw, rpc, startServer } from "./http-helpers.js";

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

const READER = "reader-token-0123456789abcdef";
const WRITER = "writer-token-0123456789abcdef";
const env = { SKILLPORT_TEST_READER: READER };

const whoami = rpc("tools/call", { name: "probe.whoami", arguments: {} });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
// biome-ignore lint/suspicious/noExplicitAny: the envelope of whichever tool was called
const envelopeOf = (text: string): any => messagesOf(text)[0].result.structuredContent;

describe("Host and Origin checks (DNS-rebinding protection)", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  it("answers 403 with a JSON error for a Host that is not allowed", async () => {
    const answer = await raw(server.url, { headers: { host: "evil.example:3333" }, body: whoami });
    expect(answer.status).toBe(403);
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: expect.stringMatching(/evil\.example.*http\.allowedHosts/) },
    });
  });

  it("answers 403 for an Origin that is not allowed, and 'null'", async () => {
    for (const origin of ["http://evil.example", "null"]) {
      const answer = await raw(server.url, { headers: { origin }, body: whoami });
      expect(answer.status, origin).toBe(403);
      expect(answer.json().error.message).toContain("http.allowedOrigins");
    }
  });

  it("answers 403 for a loopback Origin that is not listed: any local page could call otherwise", async () => {
    const answer = await raw(server.url, { headers: { origin: "http://localhost:5173" }, body: whoami });
    expect(answer.status).toBe(403);
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("answers the names in http.allowedHosts besides loopback, and no others", async () => {
    const custom = await startServer({ http: { allowedHosts: ["skills.example.com"] } });
    try {
      expect((await raw(custom.url, { headers: { host: "skills.example.com" }, body: whoami })).status).toBe(200);
      expect((await raw(custom.url, { body: whoami })).status).toBe(200); // 127.0.0.1 is always answered
      expect((await raw(custom.url, { headers: { host: "other.example.com" }, body: whoami })).status).toBe(403);
    } finally {
      await custom.stop();
    }
  });
});

describe("static bearer tokens", () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-tokens-"));
    await writeFile(path.join(dir, "writer.token"), `${WRITER}\n`);
    server = await startServer(
      {
        http: {
          auth: {
            tokens: [
              { name: "reader", token: { env: "SKILLPORT_TEST_READER" } },
              { name: "writer", scopes: ["things:write"], token: { file: path.join(dir, "writer.token") } },
            ],
          },
        },
        scopes: { write_thing: ["things:write"] },
      },
      { env },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers 401 without a token, pointing at the protected-resource metadata", async () => {
    const answer = await raw(server.url, { body: whoami });
    expect(answer.status).toBe(401);
    const challenge = String(answer.headers["www-authenticate"]);
    const origin = new URL(server.url).origin;
    expect(challenge).toBe(
      `Bearer realm="skillport", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(answer.json()).toMatchObject({ error: "unauthorized" });
    const metadata = await raw(server.url, { method: "GET", path: "/.well-known/oauth-protected-resource/mcp" });
    expect(metadata.json()).toEqual({
      resource: server.url,
      bearer_methods_supported: ["header"],
      scopes_supported: ["things:write"],
      resource_name: "probe-server",
    });
    const bare = await raw(server.url, { method: "GET", path: "/.well-known/oauth-protected-resource" });
    expect(bare.status).toBe(200);
  });

  it("answers 401 invalid_token for a wrong token, and for another scheme", async () => {
    for (const authorization of ["Bearer not-the-token-0123456789", `Basic ${READER}`, `Bearer ${READER}x`]) {
      const answer = await raw(server.url, { headers: { authorization }, body: whoami });
      expect(answer.status, authorization).toBe(401);
      expect(answer.text).not.toContain(READER);
    }
    const wrong = await raw(server.url, { headers: bearer("not-the-token-0123456789"), body: whoami });
    expect(String(wrong.headers["www-authenticate"])).toContain('error="invalid_token"');
  });

  it.each(ERAS)(
    "lets a named token call in the $era era; ctx.auth holds its name and scopes, never the token",
    async ({ options }) => {
      const client = await connect(server.url, options, WRITER);
      try {
        const result = await client.callTool({ name: "probe.whoami", arguments: {} });
        const envelope = result.structuredContent as { data: { auth: unknown; context: string } };
        expect(envelope.data.auth).toEqual({ id: "token:writer", scopes: ["things:write"] });
        expect(envelope.data.context).not.toContain(WRITER);
        expect(JSON.stringify(result)).not.toContain(WRITER);
      } finally {
        await client.close();
      }
    },
  );

  it.each(ERAS)(
    "denies a tool whose scopes the caller lacks with PERMISSION_DENIED ($era era)",
    async ({ options }) => {
      const reader = await connect(server.url, options, READER);
      const writer = await connect(server.url, options, WRITER);
      try {
        const denied = await reader.callTool({ name: "probe.write_thing", arguments: {} });
        expect(denied.isError).toBe(true);
        expect(denied.structuredContent).toMatchObject({
          ok: false,
          error: { code: "PERMISSION_DENIED", retryable: false },
          message: expect.stringContaining(
            'requires the scope things:write, which caller "token:reader" does not hold',
          ),
        });
        const allowed = await writer.callTool({ name: "probe.write_thing", arguments: {} });
        expect(allowed.structuredContent).toMatchObject({ ok: true, data: { written: true } });
      } finally {
        await reader.close();
        await writer.close();
      }
    },
  );
});

describe("OAuth 2.1 resource server: JWT access tokens", () => {
  const issuer = "https://auth.example.test";
  const audience = "https://skills.example.test/mcp";
  let jwksServer: Server;
  let server: TestServer;
  let privateKey: PrivateKey;
  let otherKey: PrivateKey;
  let jwk: JWK;

  const token = (claims: Record<string, unknown> = {}, options: { key?: PrivateKey; exp?: string | number } = {}) =>
    new SignJWT({ scope: "things:write other", ...claims })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer((claims.iss as string) ?? issuer)
      .setAudience((claims.aud as string) ?? audience)
      .setSubject("alice")
      .setIssuedAt()
      .setExpirationTime(options.exp ?? "5m")
      .sign(options.key ?? privateKey);

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256");
    privateKey = pair.privateKey;
    otherKey = (await generateKeyPair("ES256")).privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    jwksServer = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
    const { port } = jwksServer.address() as { port: number };
    server = await startServer({
      http: {
        auth: { jwt: { jwksUrl: `http://127.0.0.1:${port}/jwks.json`, issuer, audience, resource: audience } },
      },
      scopes: { write_thing: ["things:write"] },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => jwksServer?.close(resolve));
  });

  it.each(ERAS)(
    "accepts a valid token in the $era era: ctx.auth is the subject and its scopes",
    async ({ options }) => {
      const client = await connect(server.url, options, await token());
      try {
        const result = await client.callTool({ name: "probe.whoami", arguments: {} });
        expect((result.structuredContent as { data: { auth: unknown } }).data.auth).toEqual({
          id: "jwt:alice",
          scopes: ["things:write", "other"],
        });
        const write = await client.callTool({ name: "probe.write_thing", arguments: {} });
        expect(write.structuredContent).toMatchObject({ ok: true });
      } finally {
        await client.close();
      }
    },
  );

  it.each([
    ["expired", () => token({}, { exp: Math.floor(Date.now() / 1000) - 60 }), "has expired"],
    ["for another audience", () => token({ aud: "https://other.example.test/mcp" }), "audience (aud)"],
    ["from another issuer", () => token({ iss: "https://evil.example.test" }), "issuer (iss)"],
    ["signed with another key", () => token({}, { key: otherKey }), "signature or format"],
  ])("refuses a token %s with 401 invalid_token", async (_case, make, reason) => {
    const answer = await raw(server.url, { headers: bearer(await make()), body: whoami });
    expect(answer.status).toBe(401);
    expect(answer.json()).toMatchObject({ error: "invalid_token", error_description: expect.stringContaining(reason) });
    const challenge = String(answer.headers["www-authenticate"]);
    expect(challenge).toContain(
      'resource_metadata="https://skills.example.test/.well-known/oauth-protected-resource/mcp"',
    );
    expect(challenge).toContain('error="invalid_token"');
  });

  it("denies a scoped tool to a token without the scope", async () => {
    const answer = await raw(server.url, {
      headers: bearer(await token({ scope: "other" })),
      body: rpc("tools/call", { name: "probe.write_thing", arguments: {} }),
    });
    expect(envelopeOf(answer.text)).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
  });

  it("publishes RFC 9728 metadata naming the issuer as authorization server", async () => {
    const metadata = await raw(server.url, { method: "GET", path: "/.well-known/oauth-protected-resource/mcp" });
    expect(metadata.json()).toEqual({
      resource: audience,
      authorization_servers: [issuer],
      bearer_methods_supported: ["header"],
      scopes_supported: ["things:write"],
      resource_name: "probe-server",
    });
  });

  it("verifies against a JWKS file too", async () => {
    const dir = await scratch("skillport-jwks-");
    const jwksFile = path.join(dir, "jwks.json");
    await writeFile(jwksFile, JSON.stringify({ keys: [jwk] }));
    const fromFile = await startServer({ http: { auth: { jwt: { jwksFile, issuer, audience } } } });
    try {
      expect((await raw(fromFile.url, { headers: bearer(await token()), body: whoami })).status).toBe(200);
      expect(
        (await raw(fromFile.url, { headers: bearer(await token({}, { key: otherKey })), body: whoami })).status,
      ).toBe(401);
    } finally {
      await fromFile.stop();
    }
  });

  it("answers 503 when the issuer's keys cannot be fetched", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await startServer({
      http: { auth: { jwt: { jwksUrl: `http://127.0.0.1:${port}/jwks.json`, issuer, audience } } },
    });
    try {
      const answer = await raw(unreachable.url, { headers: bearer(await token()), body: whoami });
      expect(answer.status).toBe(503);
      expect(answer.headers["retry-after"]).toBe("5");
    } finally {
      await unreachable.stop();
    }
  });
});

describe("limits", () => {
  it("answers 413 for a body over http.maxBodyBytes, declared or streamed", async () => {
    const server = await startServer({ http: { maxBodyBytes: 1024 } });
    try {
      const big = rpc("tools/call", { name: "probe.echo", arguments: { text: "x".repeat(2000) } });
      const streamed = await raw(server.url, { body: big });
      expect(streamed.status).toBe(413);
      expect(streamed.json().error.message).toContain("larger than 1024 bytes");
      const declared = await raw(server.url, { body: big, headers: { "content-length": String(big.length) } });
      expect(declared.status).toBe(413);
      const small = await raw(server.url, {
        body: rpc("tools/call", { name: "probe.echo", arguments: { text: "x" } }),
      });
      expect(small.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("answers 429 with Retry-After once a caller spends its burst, per caller", async () => {
    const server = await startServer(
      {
        http: {
          rateLimit: { requestsPerMinute: 60, burst: 2 },
          auth: {
            tokens: [
              { name: "reader", token: { env: "SKILLPORT_TEST_READER" } },
              { name: "other", token: { env: "SKILLPORT_TEST_OTHER" } },
            ],
          },
        },
      },
      { env: { ...env, SKILLPORT_TEST_OTHER: WRITER } },
    );
    try {
      const send = (token: string) => raw(server.url, { headers: bearer(token), body: whoami });
      expect((await send(READER)).status).toBe(200);
      expect((await send(READER)).status).toBe(200);
      const limited = await send(READER);
      expect(limited.status).toBe(429);
      expect(limited.headers["retry-after"]).toBe("1");
      expect(limited.json().error.message).toContain('too many requests from "token:reader"');
      expect((await send(WRITER)).status).toBe(200); // another caller has its own bucket
    } finally {
      await server.stop();
    }
  });

  it("closes a connection whose headers do not arrive in time, and an idle keep-alive connection", async () => {
    const server = await startServer({ http: { timeouts: { headersMs: 300, requestMs: 600, idleMs: 300 } } });
    try {
      const { port } = new URL(server.url);
      const slowHeaders = netConnect(Number(port), "127.0.0.1");
      slowHeaders.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      const [headersAnswer, headersMs] = await closedAfter(slowHeaders);
      expect(headersAnswer).toMatch(/^HTTP\/1\.1 408/);
      expect(headersMs).toBeLessThan(3_000);

      const idle = netConnect(Number(port), "127.0.0.1");
      idle.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
      const [idleAnswer, idleMs] = await closedAfter(idle);
      expect(idleAnswer).toMatch(/^HTTP\/1\.1 200/);
      expect(idleMs).toBeGreaterThanOrEqual(250);
      expect(idleMs).toBeLessThan(3_000);
    } finally {
      await server.stop();
    }
  });

  it("lets a tool run longer than the request timeout: it bounds receiving, not answering", async () => {
    const server = await startServer({ http: { timeouts: { headersMs: 200, requestMs: 300 } } });
    try {
      const answer = await raw(server.url, {
        body: rpc("tools/call", { name: "probe.sleep", arguments: { id: "long", ms: 900 } }),
      });
      expect(envelopeOf(answer.text)).toMatchObject({ ok: true, data: { slept: 900 } });
    } finally {
      await server.stop();
    }
  });
});

/** Everything the server sent before closing the socket, and how long that took. */
function closedAfter(socket: import("node:net").Socket): Promise<[string, number]> {
  const started = Date.now();
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (d: string) => {
    text += d;
  });
  return new Promise((resolve, reject) => {
    socket.on("error", reject);
    socket.on("close", () => resolve([text, Date.now() - started]));
  });
}
