// The connections page under attack: links replayed, expired, forged or opened in another caller's browser; forms
// without the session's CSRF token or from another origin; an open redirect through the callback; markup in a label.

import type { AuthorizationServer, ProtectedMcpServer } from "@skillport/test-utils";
import { authorizeWithoutBrowser, startAuthorizationServer, startProtectedMcpServer } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnectLinks } from "../../src/credentials/connect-links.js";
import { createMemoryStore } from "../../src/state/memory-store.js";
import { createPageSessions } from "../../src/transports/http/connections/page-sessions.js";
import { MAX_FORM_BYTES } from "../../src/transports/http/connections/read-form.js";
import type { ConnectionsServer } from "./connections-helpers.js";
import { Browser, startConnectionsServer } from "./connections-helpers.js";

const TOKEN = "ghp_attack_test_token_5678";

describe("the connections page under attack", () => {
  let server: ConnectionsServer;
  const credentials = () => server.host.credentials as NonNullable<typeof server.host.credentials>;
  const signedIn = async (who: "alice" | "bob") => {
    const browser = new Browser(server.origin);
    expect((await browser.request(await server.linkFor(who))).status).toBe(303);
    return browser;
  };

  beforeAll(async () => {
    server = await startConnectionsServer({
      label: `<script>alert("x")</script>`,
      oauthIssuer: "https://auth.example.com",
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("refuses a link opened a second time", async () => {
    const link = await server.linkFor("alice");
    expect((await new Browser(server.origin).request(link)).status).toBe(303);
    const again = await new Browser(server.origin).request(link);
    expect(again.status).toBe(403);
    expect(again.headers.get("set-cookie")).toBeNull();
    const text = await again.text();
    expect(text).toContain("already opened");
    expect(text).toContain("Call the tool again for a new link.");
  });

  it("refuses an expired link", async () => {
    // Minted with the host's own keys an hour ago, for ten minutes.
    const past = createConnectLinks({
      keyring: credentials().vault.keyring,
      state: createMemoryStore(),
      ttlMs: 600_000,
      now: () => Date.now() - 3_600_000,
    });
    const { token } = await past.mint("token:alice", "gh.token");
    const answer = await new Browser(server.origin).request(`/connections/open?link=${token}`);
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("This link has expired.");
  });

  it("refuses a forged link (one byte changed) and a malformed one", async () => {
    const link = await server.linkFor("alice");
    const last = link.at(-1) === "A" ? "B" : "A";
    const forged = await new Browser(server.origin).request(`${link.slice(0, -1)}${last}`);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain("was not made by this host, or was changed");
    // One byte of the body (who it is for) changed.
    const token = new URL(link).searchParams.get("link") as string;
    const body = token.slice(0, 5) + (token[5] === "x" ? "y" : "x") + token.slice(6);
    expect((await new Browser(server.origin).request(`/connections/open?link=${body}`)).status).toBe(403);
    for (const bad of ["", "abc", "a.b"]) {
      const answer = await new Browser(server.origin).request(`/connections/open?link=${bad}`);
      expect(answer.status).toBe(400);
    }
    // The genuine link was not used up by any of these.
    expect((await new Browser(server.origin).request(link)).status).toBe(303);
  });

  it("refuses alice's link in bob's browser: bob stays bob, nothing is connected, the link stays unused", async () => {
    const bob = await signedIn("bob");
    const bobCookie = bob.cookie;
    const link = await server.linkFor("alice");
    const refused = await bob.request(link);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect(await refused.text()).toContain("signed in to the connections page as token:bob");
    expect(bob.cookie).toBe(bobCookie);
    expect(await (await bob.request("/connections")).text()).toContain("<strong>token:bob</strong>");
    expect(await credentials().vault.get("gh.token", "token:alice")).toBeUndefined();
    // Alice can still open it in her own browser.
    expect((await new Browser(server.origin).request(link)).status).toBe(303);
  });

  it("refuses a POST without the session's CSRF token, with another session's, or from another origin", async () => {
    const alice = await signedIn("alice");
    const bob = await signedIn("bob");
    const bobCsrf = await bob.csrf();
    const aliceCsrf = await alice.csrf();
    const attempts: [string, Record<string, string>, Record<string, string>?][] = [
      ["/connections/token", { slot: "gh.token", token: TOKEN }],
      ["/connections/token", { slot: "gh.token", token: TOKEN, csrf: "" }],
      ["/connections/token", { slot: "gh.token", token: TOKEN, csrf: bobCsrf }],
      ["/connections/token", { slot: "gh.token", token: TOKEN, csrf: aliceCsrf }, { origin: "https://evil.example" }],
      ["/connections/token", { slot: "gh.token", token: TOKEN, csrf: aliceCsrf }, { origin: "null" }],
      ["/connections/connect", { slot: "gh.token", csrf: bobCsrf }],
    ];
    for (const [target, form, headers] of attempts) {
      const answer = await alice.request(target, { form, ...(headers === undefined ? {} : { headers }) });
      expect(answer.status, `${target} ${JSON.stringify(form)} ${JSON.stringify(headers)}`).toBe(403);
    }
    expect(await credentials().vault.get("gh.token", "token:alice")).toBeUndefined();

    // Kept, then a disconnect with a wrong token leaves it kept.
    expect(
      (await alice.request("/connections/token", { form: { slot: "gh.token", token: TOKEN, csrf: aliceCsrf } })).status,
    ).toBe(303);
    const disconnect = await alice.request("/connections/disconnect", { form: { slot: "gh.token", csrf: bobCsrf } });
    expect(disconnect.status).toBe(403);
    expect(await credentials().vault.get("gh.token", "token:alice")).toMatchObject({ kind: "token", value: TOKEN });
    // A POST with no session at all.
    const stranger = await new Browser(server.origin).request("/connections/disconnect", {
      form: { slot: "gh.token", csrf: aliceCsrf },
    });
    expect(stranger.status).toBe(401);
    expect(await credentials().vault.get("gh.token", "token:alice")).toBeDefined();
    await credentials().vault.remove("gh.token", "token:alice");
  });

  it("reads forms only, within a bounded size, and tokens only for token slots", async () => {
    const alice = await signedIn("alice");
    const csrf = await alice.csrf();
    const json = await alice.request("/connections/token", {
      method: "POST",
      headers: { "content-type": "application/json", cookie: alice.cookie as string },
    });
    expect(json.status).toBe(415);
    const huge = await alice.request("/connections/token", {
      form: { slot: "gh.token", csrf, token: "x".repeat(MAX_FORM_BYTES) },
    });
    expect(huge.status).toBe(413);
    const oauthSlot = await alice.request("/connections/token", { form: { slot: "drive.token", csrf, token: TOKEN } });
    expect(oauthSlot.status).toBe(400);
    const unknown = await alice.request("/connections/token", { form: { slot: "nope.token", csrf, token: TOKEN } });
    expect(unknown.status).toBe(400);
    expect(await credentials().vault.get("drive.token", "token:alice")).toBeUndefined();
  });

  it("gives a new session id at each sign-in: the one before it no longer signs in", async () => {
    const alice = await signedIn("alice");
    const before = alice.cookie;
    expect((await alice.request(await server.linkFor("alice"))).status).toBe(303);
    expect(alice.cookie).not.toBe(before);
    expect((await alice.request("/connections")).status).toBe(200);
    const stale = new Browser(server.origin);
    stale.cookie = before;
    expect((await stale.request("/connections")).status).toBe(401);
  });

  it("marks the cookie Secure when the base URL is https", async () => {
    const sessions = createPageSessions({ vault: credentials().vault, path: "/connections", secure: () => true });
    const { cookie, session } = await sessions.start("token:alice");
    expect(cookie).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    await sessions.end(session);
  });

  it("refuses a session id it never gave", async () => {
    const browser = new Browser(server.origin);
    browser.cookie = `skillport_session=${"A".repeat(43)}`;
    expect((await browser.request("/connections")).status).toBe(401);
  });

  it("escapes a label's markup", async () => {
    const alice = await signedIn("alice");
    const html = await (await alice.request("/connections")).text();
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });

  it("makes an OAuth slot's Connect a link carrying the session's CSRF token", async () => {
    const alice = await signedIn("alice");
    const csrf = await alice.csrf();
    const html = await (await alice.request("/connections")).text();
    expect(html).toContain(`href="/connections/connect?slot=drive.token&amp;csrf=${encodeURIComponent(csrf)}"`);
    const forged = await alice.request("/connections/connect?slot=drive.token&csrf=not-the-token");
    expect(forged.status).toBe(403);
  });
});

describe("the OAuth callback under attack", () => {
  let as: AuthorizationServer;
  let upstream: ProtectedMcpServer;
  let server: ConnectionsServer;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    upstream = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
    server = await startConnectionsServer({ oauthIssuer: as.issuer, oauthResource: upstream.resource });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
    await as?.close();
  });

  it("finishes only the signed-in caller's own flow, once, and never redirects off-site", async () => {
    const alice = new Browser(server.origin);
    await alice.request(await server.linkFor("alice", "drive.token"));
    const bob = new Browser(server.origin);
    await bob.request(await server.linkFor("bob", "drive.token"));
    const csrf = await alice.csrf();

    expect((await alice.request("/connections/connect?slot=drive.token")).status).toBe(403);
    /** Starts a flow from alice's page and logs her in at the authorization server: the callback's query. */
    const authorized = async () => {
      const go = await alice.request(`/connections/connect?slot=drive.token&csrf=${encodeURIComponent(csrf)}`);
      expect(go.status).toBe(303);
      const authorizationUrl = go.headers.get("location") as string;
      expect(new URL(authorizationUrl).origin).toBe(as.issuer);
      const { code, state, iss } = await authorizeWithoutBrowser(
        authorizationUrl,
        `${server.origin}/connections/callback`,
        { login: "alice" },
      );
      return new URLSearchParams({ code, state: state ?? "", ...(iss === undefined ? {} : { iss }) });
    };
    const evil =
      "&next=https%3A%2F%2Fevil.example&redirect_uri=https%3A%2F%2Fevil.example&return_to=%2F%2Fevil.example";

    // Alice's own answer: back to the page's fixed path, whatever the query says.
    const answer = await authorized();
    const back = await alice.request(`/connections/callback?${answer}${evil}`);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/connections");
    expect(await server.host.credentials?.vault.get("drive.token", "token:alice")).toMatchObject({ kind: "oauth" });
    // Once.
    const replayed = await alice.request(`/connections/callback?${answer}${evil}`);
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get("location")).toBeNull();
    expect(await replayed.text()).toContain("already used");

    // Alice's next answer, in bob's browser: refused, and nothing is connected for bob.
    const another = await authorized();
    expect((await new Browser(server.origin).request(`/connections/callback?${another}`)).status).toBe(401);
    const crossed = await bob.request(`/connections/callback?${another}${evil}`);
    expect(crossed.status).toBe(400);
    expect(crossed.headers.get("location")).toBeNull();
    expect(await crossed.text()).toContain("started by another caller");
    expect(await server.host.credentials?.vault.get("drive.token", "token:bob")).toBeUndefined();

    const forged = await alice.request(`/connections/callback?code=c1&state=forged${evil}`);
    expect(forged.status).toBe(400);
    expect(forged.headers.get("location")).toBeNull();

    const denied = await alice.request(
      `/connections/callback?error=access_denied&error_description=%3Cb%3Eno%3C%2Fb%3E${evil}`,
    );
    expect(denied.status).toBe(400);
    expect(denied.headers.get("location")).toBeNull();
    expect(await denied.text()).toContain("access_denied: &lt;b&gt;no&lt;/b&gt;");
  });
});
