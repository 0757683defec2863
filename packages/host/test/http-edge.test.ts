// Attacks on the HTTP edge, replayed over loopback as an attacker sends them: raw requests with any method, Host,
// Origin or body, and the SDK client where a real client is the attacker's tool.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { JWK } from "jose";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "./http-helpers.js";
import { capturingLogger, connect, ERAS, messagesOf, raw, rpc, startServer } from "./http-helpers.js";

const READER = "reader-token-0123456789abcdef";
const WRITER = "writer-token-0123456789abcdef";
const TOKENS = {
  tokens: [
    { name: "reader", token: { env: "EDGE_READER" } },
    { name: "writer", token: { env: "EDGE_WRITER" } },
  ],
};
const env = { EDGE_READER: READER, EDGE_WRITER: WRITER };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const whoami = rpc("tools/call", { name: "probe.whoami", arguments: {} });
const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

describe("JSON-RPC batches (one request must not carry many calls past the rate limit)", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ http: { rateLimit: { requestsPerMinute: 6, burst: 6 } } });
  });
  afterAll(() => server?.stop());

  it.each([
    ["2025-11-25", {}, undefined],
    ["2026-07-28", { "mcp-protocol-version": "2026-07-28" }, MODERN_META],
  ])("refuses a batch of 100 calls in the %s era with 400 and -32600, running none", async (_era, headers, meta) => {
    const batch = Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: {
        name: "probe.sleep",
        arguments: { id: `b${i}`, ms: 0 },
        ...(meta === undefined ? {} : { _meta: meta }),
      },
    }));
    // A BOM or white space in front of the array changes nothing: the body is still one batch.
    for (const body of [JSON.stringify(batch), `\uFEFF \n${JSON.stringify(batch)}`]) {
      const answer = await raw(server.url, { headers, body });
      expect(answer.status).toBe(400);
      expect(answer.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: expect.stringMatching(/batches are not supported.*one message per request/) },
      });
    }
    expect(await server.lines()).toEqual([]);
  });

  it("still serves single messages", async () => {
    const answer = await raw(server.url, {
      body: rpc("tools/call", { name: "probe.sleep", arguments: { id: "one", ms: 0 } }),
    });
    expect(answer.status).toBe(200);
    expect(messagesOf(answer.text)[0].result.structuredContent).toMatchObject({ ok: true });
  });
});

describe("methods the MCP endpoint does not serve", () => {
  it("answers 405 with Allow, and logs no error, for TRACE and every other method but POST", async () => {
    const { logger, lines } = capturingLogger();
    const server = await startServer({ http: { auth: TOKENS } }, { env, logger });
    try {
      for (const method of ["TRACE", "PUT", "PATCH", "DELETE", "GET", "HEAD", "PROPFIND"]) {
        const answer = await raw(server.url, { method, headers: bearer(WRITER) });
        expect(answer.status, method).toBe(405);
        expect(answer.headers.allow, method).toBe("POST, OPTIONS");
        if (method !== "HEAD") expect(answer.json().error.message, method).toContain(`${method} is not allowed`);
      }
      // Without a token too: what the endpoint serves is no secret.
      expect((await raw(server.url, { method: "TRACE" })).status).toBe(405);
      expect(lines().filter((line) => line.level >= 50)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe("Host header parsing", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  it.each([
    "evil.com@localhost",
    "evil.com@127.0.0.1:3333",
    "localhost/evil",
    "localhost?x",
    "localhost#frag",
    "localhost:3333:80",
    "localhost:99999",
    "localhost:",
    "local host",
    "[::1",
    "::1",
    "[::1]x",
    "127.0.0.1\\@evil.com",
  ])("refuses Host %j with 400 and runs nothing", async (host) => {
    const answer = await raw(server.url, { headers: { host }, body: whoami });
    expect(answer.status).toBe(400);
    expect(answer.json().error).toMatchObject({ code: -32000, message: expect.stringContaining("Host") });
  });

  it.each(["localhost", "LOCALHOST:3333", "127.0.0.1", "[::1]:3333"])("accepts the loopback Host %j", async (host) => {
    expect((await raw(server.url, { headers: { host }, body: whoami })).status).toBe(200);
  });

  it("checks the syntax even when every Host is allowed", async () => {
    const open = await startServer({ http: { allowedHosts: ["*"] } });
    try {
      expect((await raw(open.url, { headers: { host: "evil.com@localhost" }, body: whoami })).status).toBe(400);
      expect((await raw(open.url, { headers: { host: "anything.example:8080" }, body: whoami })).status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});

describe("Origin allowlist (browser pages)", () => {
  it("refuses any Origin by default, loopback pages included, and serves clients that send none", async () => {
    const server = await startServer();
    try {
      for (const origin of ["http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000", "null"]) {
        const answer = await raw(server.url, { headers: { origin }, body: whoami });
        expect(answer.status, origin).toBe(403);
        expect(answer.json().error.message, origin).toContain("http.allowedOrigins");
        expect(answer.headers["access-control-allow-origin"], origin).toBeUndefined();
        const preflight = await raw(server.url, {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST" },
        });
        expect(preflight.status, origin).toBe(403);
      }
      expect((await raw(server.url, { body: whoami })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("serves exactly the listed origins, with CORS headers and a preflight", async () => {
    const listed = "http://localhost:5173";
    const server = await startServer({ http: { allowedOrigins: [listed, "https://app.example.com"] } });
    try {
      const answer = await raw(server.url, { headers: { origin: listed }, body: whoami });
      expect(answer.status).toBe(200);
      expect(answer.headers["access-control-allow-origin"]).toBe(listed);
      expect(answer.headers.vary).toContain("origin");
      const preflight = await raw(server.url, {
        method: "OPTIONS",
        headers: {
          origin: listed,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers["access-control-allow-origin"]).toBe(listed);
      expect(preflight.headers["access-control-allow-methods"]).toBe("POST, OPTIONS");
      expect(preflight.headers["access-control-allow-headers"]).toBe(
        "authorization, content-type, mcp-protocol-version",
      );
      for (const origin of [
        "http://localhost:5174",
        "https://localhost:5173",
        "http://localhost",
        "http://evil.example",
        "https://app.example.com.evil.example",
        "http://app.example.com",
        "https://app.example.com:444",
      ]) {
        expect((await raw(server.url, { headers: { origin }, body: whoami })).status, origin).toBe(403);
      }
      expect((await raw(server.url, { headers: { origin: "https://app.example.com" }, body: whoami })).status).toBe(
        200,
      );
    } finally {
      await server.stop();
    }
  });
});

describe("protected-resource metadata and the challenge come from configuration, never from the request", () => {
  it("advertises the bound URL on loopback whatever Host and X-Forwarded-Proto say", async () => {
    const server = await startServer({ http: { allowedHosts: ["*"], auth: TOKENS } }, { env });
    try {
      const forged = { host: "evil.example", "x-forwarded-proto": "https" };
      const metadata = await raw(server.url, {
        method: "GET",
        path: "/.well-known/oauth-protected-resource/mcp",
        headers: forged,
      });
      expect(metadata.json().resource).toBe(server.url);
      const challenge = await raw(server.url, { headers: forged, body: whoami });
      expect(challenge.status).toBe(401);
      const origin = new URL(server.url).origin;
      expect(challenge.headers["www-authenticate"]).toBe(
        `Bearer realm="skillport", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      );
    } finally {
      await server.stop();
    }
  });

  it("advertises http.publicUrl when configured", async () => {
    const publicUrl = "https://skills.example.com/team/mcp";
    const server = await startServer({ http: { publicUrl, auth: TOKENS } }, { env });
    try {
      const metadata = await raw(server.url, {
        method: "GET",
        path: "/.well-known/oauth-protected-resource/mcp",
        headers: { host: "evil.example" },
      });
      expect(metadata.status).toBe(200);
      expect(metadata.json().resource).toBe(publicUrl);
      // The path derived from the public URL answers too, for a proxy that forwards it unchanged.
      const derived = await raw(server.url, { method: "GET", path: "/.well-known/oauth-protected-resource/team/mcp" });
      expect(derived.json().resource).toBe(publicUrl);
      const challenge = await raw(server.url, { headers: { "x-forwarded-proto": "http" }, body: whoami });
      expect(challenge.headers["www-authenticate"]).toContain(
        'resource_metadata="https://skills.example.com/.well-known/oauth-protected-resource/team/mcp"',
      );
    } finally {
      await server.stop();
    }
  });
});

describe("caller identities from different sources stay apart", () => {
  let dir: string;
  let server: TestServer;
  let jwt: string;

  beforeAll(async () => {
    const issuer = "https://auth.example.test";
    const audience = "https://skills.example.test/mcp";
    const pair = await generateKeyPair("ES256");
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-ids-"));
    const jwksFile = path.join(dir, "jwks.json");
    await writeFile(jwksFile, JSON.stringify({ keys: [jwk] }));
    jwt = await new SignJWT({ scope: "" })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject("ci-bot")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(pair.privateKey);
    server = await startServer(
      {
        http: {
          rateLimit: { requestsPerMinute: 60, burst: 20 },
          auth: { tokens: [{ name: "ci-bot", token: { env: "EDGE_CI" } }], jwt: { jwksFile, issuer, audience } },
        },
      },
      { env: { EDGE_CI: WRITER } },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(ERAS)("a JWT whose sub is a static token's name is another caller ($era era)", async ({ options }) => {
    const viaToken = await connect(server.url, options, WRITER);
    const viaJwt = await connect(server.url, options, jwt);
    try {
      const token = await viaToken.callTool({ name: "probe.whoami", arguments: {} });
      const fromJwt = await viaJwt.callTool({ name: "probe.whoami", arguments: {} });
      expect((token.structuredContent as { data: { auth: unknown } }).data.auth).toEqual({
        id: "token:ci-bot",
        scopes: [],
      });
      expect((fromJwt.structuredContent as { data: { auth: unknown } }).data.auth).toEqual({
        id: "jwt:ci-bot",
        scopes: [],
      });
    } finally {
      await viaToken.close();
      await viaJwt.close();
    }
  });

  it("gives each its own rate bucket", async () => {
    let status = 0;
    for (let i = 0; i < 40 && status !== 429; i++) {
      status = (await raw(server.url, { headers: bearer(WRITER), body: whoami })).status;
    }
    expect(status).toBe(429); // the static token spent its bucket
    expect((await raw(server.url, { headers: bearer(jwt), body: whoami })).status).toBe(200);
  });
});

describe("static bearer tokens are registered secrets", () => {
  it("redacts a configured token a tool echoes back", async () => {
    const server = await startServer({ http: { auth: TOKENS } }, { env });
    try {
      const answer = await raw(server.url, {
        headers: bearer(WRITER),
        body: rpc("tools/call", { name: "probe.echo", arguments: { text: `the reader uses ${READER}` } }),
      });
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(READER);
      expect(messagesOf(answer.text)[0].result.structuredContent.data.text).toBe("the reader uses [REDACTED]");
    } finally {
      await server.stop();
    }
  });
});
