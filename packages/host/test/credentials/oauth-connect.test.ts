// OAuth per caller to an upstream MCP server, end to end: a host served over loopback HTTP whose callers sign in with
// JWTs, an upstream that requires tokens of its own authorization server, and the SDK client as each caller.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { authorizeWithoutBrowser } from "@skillport/test-utils";
import { decodeJwt } from "jose";
import type { MockInstance } from "vitest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CallerSlot } from "../../src/credentials/caller-slot.js";
import type { HostCredentials } from "../../src/credentials/open-credentials.js";
import type { OAuthWorld } from "./oauth-harness.js";
import { call, LIST_ENV, startWorld } from "./oauth-harness.js";

let world: OAuthWorld;
let credentials: HostCredentials;
let slot: CallerSlot;
/** Every answer the host gave, as JSON. */
const answers: string[] = [];
/** The SDK warns on console in some refusals: the host must take none of those paths. */
let warned: MockInstance;

beforeAll(async () => {
  warned = vi.spyOn(console, "warn");
  world = await startWorld({
    // Access tokens live 20 s, inside the resolver's 30 s refresh skew: each call finds the kept one about to expire.
    as: { accessTokenTtlSec: 20 },
    manifest: (_as, upstream) => ({
      servers: [{ mcp: "up", url: upstream.url, auth: { perCaller: "oauth", listWith: { env: LIST_ENV } } }],
    }),
  });
  credentials = world.host.credentials as HostCredentials;
  slot = credentials.slots().find((s) => s.id === "up.token") as CallerSlot;
});

afterAll(async () => {
  warned.mockRestore();
  await world?.close();
});

describe("OAuth per caller to an upstream MCP server", () => {
  it("asks alice to connect, then calls the upstream as her; bob, not connected, is asked to connect", async () => {
    const alice = await world.clientOf("alice");
    const bob = await world.clientOf("bob");
    const missing = await whoami(alice);
    expect(missing.error?.code).toBe("CREDENTIALS_MISSING");
    expect(missing.error?.connectUrl).toMatch(/\/connections\/open\?link=/);
    await world.connect(missing.error?.connectUrl as string, "alice");
    expect(await whoami(alice)).toMatchObject({ ok: true, data: { sub: "alice" } });
    expect((await whoami(bob)).error?.code).toBe("CREDENTIALS_MISSING");
    await alice.close();
    await bob.close();
  });

  it("refreshes alice's token when it is about to expire, until her grant is revoked: then a new link", async () => {
    const alice = await world.clientOf("alice");
    const refreshes = () => world.as.tokenRequests.filter((r) => r.grantType === "refresh_token").length;
    const before = refreshes();
    expect(await whoami(alice)).toMatchObject({ ok: true, data: { sub: "alice" } });
    expect(refreshes()).toBe(before + 1);
    expect(world.as.tokenRequests.at(-1)).toEqual({ grantType: "refresh_token" });
    const kept = await credentials.vault.get(slot.id, "jwt:alice");
    expect(kept).toMatchObject({ kind: "oauth", issuer: world.as.issuer, refreshToken: expect.any(String) });

    // Calls at the same time share one refresh: a rotated refresh token is used once.
    const together = await Promise.all([whoami(alice), whoami(alice), whoami(alice)]);
    for (const answer of together) expect(answer).toMatchObject({ ok: true, data: { sub: "alice" } });
    expect(refreshes()).toBeLessThanOrEqual(before + 2);
    expect(world.as.tokenRequests.filter((r) => r.error !== undefined)).toEqual([]);

    expect(world.as.revokeGrantsOf("alice")).toBeGreaterThan(0);
    const missing = await whoami(alice);
    expect(missing.error?.code).toBe("CREDENTIALS_MISSING");
    expect(missing.error?.connectUrl).toMatch(/\/connections\/open\?link=/);
    expect(world.as.tokenRequests.at(-1)).toEqual({ grantType: "refresh_token", error: "invalid_grant" });
    expect(await credentials.vault.get(slot.id, "jwt:alice")).toBeUndefined();

    await world.connect(missing.error?.connectUrl as string, "alice");
    expect(await whoami(alice)).toMatchObject({ ok: true, data: { sub: "alice" } });
    await alice.close();
  });

  it("registers the host once for every caller of the slot", async () => {
    const clientIdOf = async (caller: string) =>
      new URL((await credentials.oauth.start(slot, caller)).authorizationUrl).searchParams.get("client_id");
    const first = await clientIdOf("jwt:alice");
    expect(first).toEqual(expect.any(String));
    expect(await clientIdOf("jwt:bob")).toBe(first);
    const registration = JSON.parse((await credentials.vault.sealed.get("client:up.token")) as string);
    expect(registration).toMatchObject({
      client_id: first,
      issuer: world.as.issuer,
      client_name: "Skillport (oauth-test)",
    });

    const bob = await world.clientOf("bob");
    const missing = await whoami(bob);
    await world.connect(missing.error?.connectUrl as string, "bob");
    expect(await whoami(bob)).toMatchObject({ ok: true, data: { sub: "bob" } });
    expect(JSON.parse((await credentials.vault.sealed.get("client:up.token")) as string).client_id).toBe(first);
    await bob.close();
  });

  it("refuses a callback with an unknown state, a replayed one, another caller's, a wrong verifier, another issuer", async () => {
    const begin = async (caller: string, sub: string) => {
      const { authorizationUrl } = await credentials.oauth.start(slot, caller);
      const url = new URL(authorizationUrl);
      expect(url.searchParams.get("redirect_uri")).toBe(world.redirectUri);
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      world.as.nextLogin(sub);
      const response = await authorizeWithoutBrowser(authorizationUrl, world.redirectUri);
      expect(response.state).toBe(url.searchParams.get("state"));
      return { code: response.code, state: response.state as string, iss: response.iss };
    };
    const { oauth } = credentials;
    const keptBefore = await credentials.vault.get(slot.id, "jwt:alice");

    const unknown = await oauth.finish({ state: "not-a-flow", code: "x" }, "jwt:alice");
    expect(unknown).toMatchObject({ ok: false, reason: expect.stringMatching(/unknown, expired or already used/) });

    const good = await begin("jwt:alice", "alice");
    expect(await oauth.finish(good, "jwt:alice")).toEqual({ ok: true, slot: "up.token" });
    expect(await oauth.finish(good, "jwt:alice")).toMatchObject({ ok: false });

    const stolen = await begin("jwt:alice", "alice");
    expect(await oauth.finish(stolen, "jwt:mallory")).toMatchObject({ ok: false, reason: /another caller/ });
    expect(await oauth.finish(stolen, "jwt:alice")).toMatchObject({ ok: false });

    // The code of one flow with the state (and so the PKCE verifier) of another: the server refuses the verifier.
    const first = await begin("jwt:alice", "alice");
    const second = await begin("jwt:alice", "alice");
    const swapped = await oauth.finish({ ...second, code: first.code }, "jwt:alice");
    expect(swapped).toMatchObject({ ok: false, reason: /refused the sign-in \(invalid_grant\)/ });
    expect(world.as.tokenRequests.at(-1)).toEqual({ grantType: "authorization_code", error: "invalid_grant" });

    const mixedUp = await begin("jwt:alice", "alice");
    const wrongIssuer = await oauth.finish({ ...mixedUp, iss: "http://127.0.0.1:9/other" }, "jwt:alice");
    expect(wrongIssuer).toMatchObject({ ok: false, reason: /another authorization server/ });

    // What alice kept is still hers, refreshed or not, and still calls the upstream as her.
    expect(keptBefore).toBeDefined();
    const alice = await world.clientOf("alice");
    expect(await whoami(alice)).toMatchObject({ ok: true, data: { sub: "alice" } });
    await alice.close();
  });

  it("answers 100 interleaved calls of alice and bob, each as its own caller", async () => {
    const alice = await world.clientOf("alice");
    const bob = await world.clientOf("bob");
    const calls = Array.from({ length: 100 }, (_, i) =>
      i % 2 === 0 ? { sub: "alice", client: alice } : { sub: "bob", client: bob },
    );
    // Ten at a time: within the server's concurrency and queue (8 and 64) however slow the machine is.
    const answered = [];
    for (let at = 0; at < calls.length; at += 10) {
      answered.push(
        ...(await Promise.all(
          calls.slice(at, at + 10).map(async ({ sub, client }) => ({ sub, answer: await whoami(client) })),
        )),
      );
    }
    for (const { sub, answer } of answered)
      expect(answer, JSON.stringify(answer).slice(0, 400)).toMatchObject({ ok: true, data: { sub } });
    await alice.close();
    await bob.close();
  });

  it("never sends one caller's token for another, nor a caller's own token upstream", () => {
    const hostTokens = new Set(world.minted);
    for (const { sub, token } of world.upstream.seen) {
      expect(hostTokens.has(token) && sub !== "skillport").toBe(false);
      if (sub !== undefined) expect(decodeJwt(token).sub).toBe(sub);
    }
    const subs = new Set(world.upstream.seen.map((s) => s.sub));
    expect([...subs].sort()).toEqual(["alice", "bob", "skillport"]);
  });

  it("keeps every token and secret out of the files, the logs and the answers", async () => {
    const secrets = new Set<string>([...world.minted, ...world.upstream.seen.map((s) => s.token)]);
    for (const caller of ["jwt:alice", "jwt:bob"]) {
      const kept = await credentials.vault.get(slot.id, caller);
      if (kept?.kind === "oauth") {
        secrets.add(kept.accessToken);
        if (kept.refreshToken !== undefined) secrets.add(kept.refreshToken);
      }
    }
    const registration = JSON.parse((await credentials.vault.sealed.get("client:up.token")) as string);
    secrets.add(registration.client_secret);
    expect(secrets.size).toBeGreaterThan(5);
    const sealed = JSON.parse(await readFile(path.join(world.dir, "credentials.sealed"), "utf8"));
    expect(Object.keys(sealed).sort()).toEqual([
      "aux:client:up.token",
      "cred:up.token:jwt:alice",
      "cred:up.token:jwt:bob",
    ]);
    for (const text of Object.values(sealed)) expect(text).toMatch(/^[^.]+\.1(\.[A-Za-z0-9_-]+){3}$/);
    const files = await world.files();
    expect(world.logs.length).toBeGreaterThan(0);
    const places = { files: files.join("\n"), logs: world.logs.join("\n"), answers: answers.join("\n") };
    for (const [where, text] of Object.entries(places)) {
      for (const secret of secrets) expect(text.includes(secret), `a secret in the ${where}`).toBe(false);
    }
    expect(warned).not.toHaveBeenCalled();
  });

  it("says which slot cannot start a connection when its authorization server cannot be reached", async () => {
    const away: CallerSlot = { ...slot, oauth: { serverUrl: "http://127.0.0.1:9/mcp", kind: "mcp-server" } };
    await expect(credentials.oauth.start(away, "jwt:alice")).rejects.toThrow(
      /the server "up": the authorization server of http:\/\/127\.0\.0\.1:9\/mcp could not be reached; check servers\[0\]\.auth/,
    );
  });

  it("registers the host anew once its public URL changed (the registration names its redirect URL)", async () => {
    const registered = async () => JSON.parse((await credentials.vault.sealed.get("client:up.token")) as string);
    const before = await registered();
    const origin = credentials.baseUrl;
    credentials.baseUrl = "http://127.0.0.1:9";
    try {
      const { authorizationUrl } = await credentials.oauth.start(slot, "jwt:alice");
      const after = await registered();
      expect(after.client_id).not.toBe(before.client_id);
      expect(after.redirect_uris).toEqual(["http://127.0.0.1:9/connections/callback"]);
      expect(new URL(authorizationUrl).searchParams.get("client_id")).toBe(after.client_id);
    } finally {
      credentials.baseUrl = origin;
    }
  });
});

// --- internal ---

async function whoami(client: Awaited<ReturnType<OAuthWorld["clientOf"]>>) {
  const answer = await call(client, "up.whoami");
  answers.push(JSON.stringify(answer));
  return answer as typeof answer & { data?: unknown };
}
