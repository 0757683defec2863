// OAuth per caller with a client registered beforehand (the manifest's clientId and clientSecret): no registration.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { HostCredentials } from "../../src/credentials/open-credentials.js";
import type { OAuthWorld } from "./oauth-harness.js";
import { call, LIST_ENV, startWorld } from "./oauth-harness.js";

// The redirect URI the client was registered with: the test plays the browser, so nothing needs to listen there.
const BASE_URL = "http://127.0.0.1:9";
const CLIENT = { client_id: "skillport-registered", client_secret: "registered-secret" };
const SECRET_ENV = "SKILLPORT_TEST_OAUTH_CLIENT_SECRET";

let world: OAuthWorld;

beforeAll(async () => {
  vi.stubEnv(SECRET_ENV, CLIENT.client_secret);
  world = await startWorld({
    // Access tokens live 20 s, inside the resolver's 30 s refresh skew: each call refreshes.
    as: { accessTokenTtlSec: 20, clients: [{ ...CLIENT, redirect_uris: [`${BASE_URL}/connections/callback`] }] },
    baseUrl: BASE_URL,
    manifest: (_as, upstream) => ({
      servers: [
        {
          mcp: "up",
          url: upstream.url,
          auth: {
            perCaller: "oauth",
            clientId: CLIENT.client_id,
            clientSecret: { env: SECRET_ENV },
            listWith: { env: LIST_ENV },
          },
        },
      ],
    }),
  });
});

afterAll(async () => {
  await world?.close();
});

describe("OAuth per caller with a client registered beforehand", () => {
  it("connects and refreshes as that client, and registers nothing", async () => {
    const credentials = world.host.credentials as HostCredentials;
    const slot = credentials.slots().find((s) => s.id === "up.token");
    if (slot === undefined) throw new Error("no slot");
    const { authorizationUrl } = await credentials.oauth.start(slot, "jwt:alice");
    expect(new URL(authorizationUrl).searchParams.get("client_id")).toBe(CLIENT.client_id);

    const alice = await world.clientOf("alice");
    const missing = await call(alice, "up.whoami");
    expect(missing.error?.connectUrl?.startsWith(`${BASE_URL}/connections/open?link=`)).toBe(true);
    await world.connect(missing.error?.connectUrl as string, "alice");
    expect(await call(alice, "up.whoami")).toMatchObject({ ok: true, data: { sub: "alice" } });
    expect(world.as.tokenRequests.slice(-2)).toEqual([
      { grantType: "authorization_code" },
      { grantType: "refresh_token" },
    ]);
    expect(await credentials.vault.sealed.get("client:up.token")).toBeUndefined();
    await alice.close();
  });
});
