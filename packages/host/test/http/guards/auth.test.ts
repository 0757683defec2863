import type { JWK } from "jose";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator } from "../../../src/transports/http/auth.js";
import { authGuard } from "../../../src/transports/http/guards/auth.js";
import { createRateLimiter } from "../../../src/transports/http/rate-limit.js";
import { silentLogger } from "../../helpers.js";
import { contextOf, post, rpc, run } from "../web-helpers.js";

const CI = "ci-bot-token-0123456789abcdef";
const RESOURCE = "https://skills.example.com/team/mcp";
const issuer = "https://auth.example.test";
const audience = "https://skills.example.test/mcp";

const withToken = (authorization?: string) =>
  post(rpc("tools/list"), authorization === undefined ? {} : { authorization });

describe("authGuard", () => {
  let jwk: JWK;
  let sign: (sub: string) => Promise<string>;

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256");
    jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    sign = (sub) =>
      new SignJWT({ scope: "notes:read" })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(pair.privateKey);
  });

  const guardOf = (options: { resource?: string; burst?: number } = {}) =>
    authGuard({
      authenticator: createAuthenticator({
        tokens: [{ name: "ci-bot", scopes: ["notes:write"], secret: CI }],
        jwt: {
          keys: { jwks: { keys: [jwk] } },
          issuer,
          audience,
          resource: undefined,
          algorithms: undefined,
          clockToleranceSec: 5,
        },
      }),
      limiter: createRateLimiter({ requestsPerMinute: 60, burst: options.burst ?? 60 }),
      resource: () => options.resource,
      logger: silentLogger(),
    });

  it("answers 401 without a token, with a challenge naming the metadata of the configured public URL", async () => {
    const answer = await run(guardOf({ resource: RESOURCE }), withToken());
    expect(answer?.status).toBe(401);
    expect(answer?.headers.get("www-authenticate")).toBe(
      'Bearer realm="skillport", resource_metadata="https://skills.example.com/.well-known/oauth-protected-resource/team/mcp"',
    );
    expect(await answer?.json()).toEqual({
      error: "unauthorized",
      error_description: "this server requires a bearer token (Authorization: Bearer <token>)",
    });
  });

  it("names no metadata when the public URL is not known, whatever the request's Host says", async () => {
    const request = withToken();
    request.headers.set("host", "evil.example");
    request.headers.set("x-forwarded-proto", "https");
    const answer = await run(guardOf(), request);
    expect(answer?.headers.get("www-authenticate")).toBe('Bearer realm="skillport"');
  });

  it.each([
    ["a wrong token", "Bearer not-the-token-0123456789"],
    ["another scheme", `Basic ${CI}`],
    ["the token with a byte more", `Bearer ${CI}x`],
  ])("answers %s with 401, never echoing a token", async (_case, authorization) => {
    const answer = await run(guardOf(), withToken(authorization));
    expect(answer?.status).toBe(401);
    expect(await answer?.text()).not.toContain(CI);
  });

  it("keeps the caller a static token names, with its source, and never the token", async () => {
    const context = contextOf();
    expect(await run(guardOf(), withToken(`Bearer ${CI}`), context)).toBeUndefined();
    expect(context.caller).toEqual({ id: "token:ci-bot", scopes: ["notes:write"] });
    expect(context.authenticatedBy).toBe("token");
    expect(JSON.stringify(context)).not.toContain(CI);
  });

  it("tells a JWT whose subject is a token's name apart from that token: another caller", async () => {
    const context = contextOf();
    expect(await run(guardOf(), withToken(`Bearer ${await sign("ci-bot")}`), context)).toBeUndefined();
    expect(context.caller).toEqual({ id: "jwt:ci-bot", scopes: ["notes:read"] });
    expect(context.authenticatedBy).toBe("jwt");
  });

  it("limits guessing by address: failed attempts from one address answer 429, another address is not slowed", async () => {
    const guard = guardOf({ burst: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await run(guard, withToken(`Bearer guess-${i}-0123456789abcdef`), contextOf("10.0.0.9")))?.status ?? 0,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect((await run(guard, withToken("Bearer guess-0123456789abcdef"), contextOf("10.0.0.10")))?.status).toBe(401);
    // The right token still passes from the address that guessed: guesses spend the address's bucket, not the caller's.
    expect(await run(guard, withToken(`Bearer ${CI}`), contextOf("10.0.0.9"))).toBeUndefined();
  });

  it("lets everyone in as the anonymous caller on an unauthenticated server", async () => {
    const guard = authGuard({
      authenticator: createAuthenticator(undefined),
      limiter: createRateLimiter({ requestsPerMinute: 60 }),
      resource: () => undefined,
      logger: silentLogger(),
    });
    const context = contextOf();
    expect(await run(guard, withToken(`Bearer ${CI}`), context)).toBeUndefined();
    expect(context.caller).toEqual({ id: "anonymous", scopes: [] });
    expect(context.authenticatedBy).toBe("none");
  });
});
