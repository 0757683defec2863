import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HostError } from "../src/errors/host-error.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import { isLoopback, resolveHttpConfig } from "../src/transports/http/config.js";
import { createRateLimiter } from "../src/transports/http/rate-limit.js";
import { manifestOf, scratch } from "./helpers.js";
import { PROBE } from "./http-helpers.js";

const TOKEN = "a-token-of-sufficient-length";
const withHttp = (http: unknown) => manifestOf({ skills: [], http });

async function refusal(http: unknown, options = {}): Promise<HostError> {
  try {
    await resolveHttpConfig(withHttp(http), options);
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    return error as HostError;
  }
  throw new Error("the config was accepted");
}

describe("the manifest's http object", () => {
  it("fills every default", () => {
    expect(manifestOf({ skills: [] }).http).toEqual({
      host: "127.0.0.1",
      port: 3333,
      path: "/mcp",
      publicUrl: undefined,
      allowedHosts: undefined,
      allowedOrigins: [],
      maxBodyBytes: 1048576,
      rateLimit: { requestsPerMinute: 600, burst: 600 },
      timeouts: { headersMs: 10000, requestMs: 30000, idleMs: 5000 },
      shutdownGraceMs: 10000,
      sessions: false,
      auth: { tokens: [], jwt: undefined },
    });
  });

  it.each([
    [{ bogus: 1 }, "http.bogus: is not a known field"],
    [{ port: 70000 }, "http.port: must be <= 65535"],
    [{ auth: { tokens: [{ name: "x", token: "literal-secret" }] } }, "http.auth.tokens[0].token"],
    [{ auth: { tokens: [{ name: "has space", token: { env: "X" } }] } }, "http.auth.tokens[0].name: must match"],
    [{ auth: { jwt: { issuer: "i", audience: "a" } } }, 'give exactly one of "jwksUrl"'],
    [{ auth: { jwt: { issuer: "i", audience: "a", jwksUrl: "https://x/j", jwksFile: "j" } } }, "give exactly one"],
    [
      {
        auth: {
          tokens: [
            { name: "a", token: { env: "X" } },
            { name: "a", token: { env: "Y" } },
          ],
        },
      },
      'http.auth.tokens[1].name: "a" is used twice',
    ],
    [{ timeouts: { headersMs: 5000, requestMs: 1000 } }, "headersMs: 5000 must not exceed requestMs (1000)"],
    // Origins are exact, as a browser sends them: no bare hostnames, no paths, no default ports.
    [{ allowedOrigins: ["localhost"] }, "http.allowedOrigins[0]: must match the pattern"],
    [{ allowedOrigins: ["https://app.example.com/"] }, "http.allowedOrigins[0]: must match the pattern"],
    [{ allowedOrigins: ["https://App.example.com"] }, "http.allowedOrigins[0]: must match the pattern"],
    [
      { allowedOrigins: ["http://localhost:80"] },
      'http.allowedOrigins[0]: "http://localhost:80" is not an origin as a browser sends it; write "http://localhost"',
    ],
    [{ allowedOrigins: ["http://localhost:99999"] }, "is not an origin as a browser sends it"],
    [{ allowedHosts: ["evil.com@localhost"] }, "http.allowedHosts[0]: must match the pattern"],
    [{ allowedHosts: ["skills.example.com:443"] }, "http.allowedHosts[0]: must match the pattern"],
    [{ publicUrl: "https://user@skills.example.com/mcp" }, "http.publicUrl: must match the pattern"],
    [
      {
        publicUrl: "https://a.example.com/mcp",
        auth: { jwt: { jwksFile: "j", issuer: "i", audience: "a", resource: "https://b.example.com/mcp" } },
      },
      'http.publicUrl: "https://a.example.com/mcp" and http.auth.jwt.resource',
    ],
  ])("refuses %j, naming the field", (http, expected) => {
    expect(() => withHttp(http)).toThrow(expected);
  });

  it("refuses scopes for a tool the skill does not have, and scope tokens with spaces", async () => {
    await expect(
      buildRegistry(manifestOf({ skills: [{ path: PROBE, scopes: { wrte_thing: ["a"] } }] })),
    ).rejects.toThrow('skills[0].scopes: skill "probe" has no tool "wrte_thing"');
    expect(() => manifestOf({ skills: [{ path: PROBE, scopes: { echo: ["a b"] } }] })).toThrow(
      "skills[0].scopes.echo[0]: must match the pattern",
    );
  });

  it("gives each tool the scopes for every tool ('*') and its own", async () => {
    const registry = await buildRegistry(
      manifestOf({ skills: [{ path: PROBE, scopes: { "*": ["probe:use"], write_thing: ["things:write"] } }] }),
    );
    expect(registry.tools.get("probe.echo")?.scopes).toEqual(["probe:use"]);
    expect(registry.tools.get("probe.write_thing")?.scopes).toEqual(["probe:use", "things:write"]);
  });
});

describe("resolveHttpConfig", () => {
  it("refuses to bind beyond loopback without authentication, saying how to configure it", async () => {
    const error = await refusal({}, { host: "0.0.0.0" });
    expect(error.code).toBe("HTTP_CONFIG_INVALID");
    expect(error.message).toContain("refusing to serve on 0.0.0.0 without authentication");
    expect(error.message).toContain('"auth": { "tokens"');
    expect(error.message).toContain("--host 127.0.0.1");
  });

  it("binds beyond loopback once a token is configured, answering the bound address as a Host", async () => {
    const config = await resolveHttpConfig(
      withHttp({ host: "10.1.2.3", auth: { tokens: [{ name: "ci", token: { env: "T" } }] } }),
      { env: { T: TOKEN } },
    );
    expect(config.loopback).toBe(false);
    expect(config.allowedHosts).toEqual(["localhost", "127.0.0.1", "[::1]", "10.1.2.3"]);
    expect(config.auth?.tokens).toEqual([{ name: "ci", scopes: [], secret: TOKEN }]);
  });

  it("lets command-line values override the manifest", async () => {
    const config = await resolveHttpConfig(withHttp({ port: 4000, path: "/a" }), {
      port: 0,
      path: "/b",
      shutdownGraceMs: 5,
    });
    expect(config).toMatchObject({ port: 0, path: "/b", shutdownGraceMs: 5, host: "127.0.0.1" });
  });

  it.each([
    [{ auth: { tokens: [{ name: "ci", token: { env: "MISSING" } }] } }, "the environment variable MISSING is not set"],
    [{ auth: { tokens: [{ name: "ci", token: { env: "SHORT" } }] } }, "the token has 5 characters; use at least 16"],
    [{ auth: { tokens: [{ name: "ci", token: { file: "./nope.token" } }] } }, "cannot read"],
    [
      { auth: { jwt: { jwksUrl: "http://auth.example.com/jwks", issuer: "i", audience: "a" } } },
      "must use https (http only on loopback)",
    ],
    [{ auth: { jwt: { jwksFile: "./nope.json", issuer: "i", audience: "a" } } }, "cannot read"],
  ])("refuses %j", async (http, expected) => {
    const error = await refusal(http, { env: { SHORT: "12345" } });
    expect(error.message).toContain(expected);
  });

  it("takes the public URL from http.publicUrl, else from jwt.resource, and never requires one on loopback", async () => {
    const jwt = { jwksUrl: "https://auth.example.com/jwks", issuer: "i", audience: "a" };
    expect((await resolveHttpConfig(withHttp({ publicUrl: "https://s.example.com/mcp" }))).publicUrl).toBe(
      "https://s.example.com/mcp",
    );
    const fromJwt = await resolveHttpConfig(
      withHttp({ auth: { jwt: { ...jwt, resource: "https://j.example.com/mcp" } } }),
    );
    expect(fromJwt.publicUrl).toBe("https://j.example.com/mcp");
    expect((await resolveHttpConfig(withHttp({ auth: { jwt } }))).publicUrl).toBeUndefined();
  });

  it("refuses JWT authentication beyond loopback without a public URL, and a public http URL", async () => {
    const jwt = { jwksUrl: "https://auth.example.com/jwks", issuer: "i", audience: "a" };
    const missing = await refusal({ host: "0.0.0.0", auth: { jwt } });
    expect(missing.message).toContain(
      'http.publicUrl: set it to the URL clients reach this server at (e.g. "https://skills.example.com/mcp")',
    );
    const plain = await refusal({ publicUrl: "http://skills.example.com/mcp" });
    expect(plain.message).toContain("http.publicUrl: http://skills.example.com/mcp must be an https URL");
    expect((await resolveHttpConfig(withHttp({ publicUrl: "http://127.0.0.1:3333/mcp" }))).publicUrl).toBe(
      "http://127.0.0.1:3333/mcp",
    );
  });

  it("keeps allowed origins as a set of exact origins, empty by default", async () => {
    expect((await resolveHttpConfig(withHttp({}))).allowedOrigins).toEqual(new Set());
    const config = await resolveHttpConfig(
      withHttp({ allowedOrigins: ["http://localhost:5173", "https://a.example"] }),
    );
    expect(config.allowedOrigins).toEqual(new Set(["http://localhost:5173", "https://a.example"]));
  });

  it.each(["/healthz", "/metrics", "/.well-known/x", "mcp"])("refuses the path %s", async (p) => {
    expect((await refusal({}, { path: p })).message).toContain("http.path");
  });

  it("adds configured Host names to the loopback ones; a wildcard bind adds nothing", async () => {
    const config = await resolveHttpConfig(
      withHttp({
        host: "0.0.0.0",
        allowedHosts: ["Skills.Example.com"],
        auth: { tokens: [{ name: "a", token: { env: "T" } }] },
      }),
      { env: { T: TOKEN } },
    );
    expect(config.allowedHosts).toEqual(["localhost", "127.0.0.1", "[::1]", "skills.example.com"]);
  });

  it("reads a token file relative to the manifest, and '*' accepts any Host", async () => {
    const dir = await scratch("skillport-config-");
    await writeFile(path.join(dir, "t.token"), `  ${TOKEN}\n`);
    const manifest = manifestOf({ skills: [] });
    const config = await resolveHttpConfig(
      {
        ...manifest,
        dir,
        http: {
          ...manifest.http,
          allowedHosts: ["*"],
          auth: { tokens: [{ name: "f", token: { file: "t.token" } }], jwt: undefined },
        },
      },
      {},
    );
    expect(config.auth?.tokens[0]?.secret).toBe(TOKEN);
    expect(config.allowedHosts).toBe("*");
  });

  it.each([
    ["127.0.0.1", true],
    ["127.9.9.9", true],
    ["::1", true],
    ["[::1]", true],
    ["localhost", true],
    ["0.0.0.0", false],
    ["::", false],
    ["192.168.1.10", false],
    ["example.com", false],
  ])("isLoopback(%s) is %s", (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe("createRateLimiter", () => {
  it("allows a burst, then refills at the rate, answering when to retry", () => {
    let now = 0;
    const limiter = createRateLimiter({ requestsPerMinute: 60, burst: 3, now: () => now });
    expect([1, 2, 3].map(() => limiter.take("a").ok)).toEqual([true, true, true]);
    expect(limiter.take("a")).toEqual({ ok: false, retryAfterSec: 1 });
    expect(limiter.take("b").ok).toBe(true); // keys are independent
    now += 1_000;
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false);
  });

  it("says how long to wait at a slow rate", () => {
    const limiter = createRateLimiter({ requestsPerMinute: 2, burst: 1, now: () => 0 });
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a")).toEqual({ ok: false, retryAfterSec: 30 });
  });

  it("forgets full buckets past maxKeys, and is off at 0", () => {
    let now = 0;
    const limiter = createRateLimiter({ requestsPerMinute: 60, maxKeys: 2, now: () => now });
    limiter.take("a");
    limiter.take("b");
    now += 120_000;
    limiter.take("c");
    expect(limiter.size).toBe(1);
    const off = createRateLimiter({ requestsPerMinute: 0 });
    expect(Array.from({ length: 1000 }, () => off.take("a").ok).every(Boolean)).toBe(true);
  });
});
