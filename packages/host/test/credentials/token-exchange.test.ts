// RFC 8693 token exchange per caller, end to end: callers sign in to the host with JWTs of an identity provider, and
// the host exchanges each caller's token there for one meant for the upstream, as the same user.
import { decodeJwt } from "jose";
import type { MockInstance } from "vitest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { OAuthWorld } from "./oauth-harness.js";
import { call, LIST_ENV, startWorld } from "./oauth-harness.js";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const EXCHANGER = { client_id: "skillport-host", client_secret: "exchanger-secret" };
const SECRET_ENV = "SKILLPORT_TEST_EXCHANGE_SECRET";
const WRONG_SECRET_ENV = "SKILLPORT_TEST_EXCHANGE_WRONG_SECRET";

let world: OAuthWorld;
const answers: string[] = [];
let warned: MockInstance;

beforeAll(async () => {
  warned = vi.spyOn(console, "warn");
  vi.stubEnv(SECRET_ENV, EXCHANGER.client_secret);
  vi.stubEnv(WRONG_SECRET_ENV, "not-the-secret");
  world = await startWorld({
    as: { clients: [{ ...EXCHANGER, grant_types: [TOKEN_EXCHANGE] }] },
    manifest: (as, upstream) => {
      const auth = (secretEnv: string) => ({
        perCaller: "exchange",
        issuer: as.issuer,
        audience: upstream.resource,
        resource: upstream.resource,
        clientId: EXCHANGER.client_id,
        clientSecret: { env: secretEnv },
        listWith: { env: LIST_ENV },
      });
      return {
        servers: [
          { mcp: "up", url: upstream.url, auth: auth(SECRET_ENV) },
          { mcp: "miswired", url: upstream.url, auth: auth(WRONG_SECRET_ENV) },
        ],
      };
    },
  });
});

afterAll(async () => {
  warned.mockRestore();
  await world?.close();
});

describe("token exchange per caller", () => {
  it("reaches the upstream as alice with a token exchanged for it, never her own, exchanged once", async () => {
    const exchanges = () => world.as.tokenRequests.filter((r) => r.grantType === TOKEN_EXCHANGE);
    const alice = await world.clientOf("alice");
    expect(await whoami(alice, "up")).toMatchObject({ ok: true, data: { sub: "alice" } });
    const seen = world.upstream.seen.at(-1);
    expect(seen?.sub).toBe("alice");
    expect(decodeJwt(seen?.token as string)).toMatchObject({
      sub: "alice",
      aud: world.upstream.resource,
      client_id: EXCHANGER.client_id,
    });
    expect(exchanges()).toEqual([{ grantType: TOKEN_EXCHANGE }]);

    expect(await whoami(alice, "up")).toMatchObject({ ok: true, data: { sub: "alice" } });
    expect(world.upstream.seen.at(-1)?.token).toBe(seen?.token);
    expect(exchanges()).toHaveLength(1);

    const bob = await world.clientOf("bob");
    expect(await whoami(bob, "up")).toMatchObject({ ok: true, data: { sub: "bob" } });
    expect(exchanges()).toHaveLength(2);
    await alice.close();
    await bob.close();
  });

  it("answers CREDENTIALS_MISSING naming the provider's error when the exchange is refused", async () => {
    const alice = await world.clientOf("alice");
    const refused = await whoami(alice, "miswired");
    expect(refused.error?.code).toBe("CREDENTIALS_MISSING");
    expect(refused.message).toMatch(/refused to exchange your token .*\(invalid_client\)/);
    expect(world.as.tokenRequests.at(-1)).toEqual({ grantType: TOKEN_EXCHANGE, error: "invalid_client" });
    await alice.close();
  });

  it("keeps callers' tokens and the client's secret out of the upstream, the logs and the answers", async () => {
    const callers = new Set(world.minted.slice(1));
    for (const { token } of world.upstream.seen) expect(callers.has(token)).toBe(false);
    const secrets = [...world.minted, ...world.upstream.seen.map((s) => s.token), EXCHANGER.client_secret];
    expect(world.logs.length).toBeGreaterThan(0);
    const places = {
      logs: world.logs.join("\n"),
      answers: answers.join("\n"),
      files: (await world.files()).join("\n"),
    };
    for (const [where, text] of Object.entries(places)) {
      for (const secret of secrets) expect(text.includes(secret), `a secret in the ${where}`).toBe(false);
    }
    expect(warned).not.toHaveBeenCalled();
  });
});

// --- internal ---

async function whoami(client: Awaited<ReturnType<OAuthWorld["clientOf"]>>, server: string) {
  const answer = await call(client, `${server}.whoami`);
  answers.push(JSON.stringify(answer));
  return answer as typeof answer & { data?: unknown };
}
