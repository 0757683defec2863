// The connections page of `serve --http`, in process over a loopback listener: a CREDENTIALS_MISSING answer's link
// signs a browser in, a saved personal token makes the caller's next call run with it, and disconnect forgets it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveHttpConfig } from "../../src/transports/http/config.js";
import { PAGE_CSP, slotsPage } from "../../src/transports/http/connections/connection-pages.js";
import { manifestOf } from "../helpers.js";
import { raw } from "../http-helpers.js";
import type { ConnectionsServer } from "./connections-helpers.js";
import { Browser, fingerprint, startConnectionsServer } from "./connections-helpers.js";

describe("the connections page", () => {
  let server: ConnectionsServer;
  beforeAll(async () => {
    server = await startConnectionsServer({ label: "GitHub", oauthIssuer: "https://auth.example.com" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("sets the credentials' base URL to the bound origin", () => {
    expect(server.host.credentials?.baseUrl).toBe(server.origin);
  });

  it("signs in from a missing credential's link, saves alice's token for her only, and disconnects", async () => {
    const missing = await server.whoami("alice");
    expect(missing.code).toBe("CREDENTIALS_MISSING");
    expect(missing.connectUrl).toMatch(new RegExp(`^${server.origin}/connections/open\\?link=`));

    const browser = new Browser(server.origin);
    const opened = await browser.request(missing.connectUrl as string);
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe("/connections");
    expect(opened.headers.get("set-cookie")).toMatch(
      /^skillport_session=[A-Za-z0-9_-]{43}; Path=\/connections; Max-Age=3600; HttpOnly; SameSite=Lax$/,
    );
    expect(opened.headers.get("referrer-policy")).toBe("no-referrer");

    const listed = await browser.request("/connections");
    expect(listed.status).toBe(200);
    // A page with forms sends its Origin with them (see connection-pages.ts); nothing goes to another origin.
    expect(listed.headers.get("referrer-policy")).toBe("same-origin");
    const html = await listed.text();
    expect(html).toContain("token:alice");
    expect(html).toMatch(/<td>GitHub<\/td><td>Personal token<\/td><td class="state-missing">Not connected/);

    const csrf = await browser.csrf();
    const form = await browser.request("/connections/connect", { form: { slot: "gh.token", csrf } });
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('action="/connections/token"');
    const saved = await browser.request("/connections/token", {
      form: { slot: "gh.token", csrf, token: "ghp_alice_personal_token_1234" },
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe("/connections");
    expect(await (await browser.request("/connections")).text()).toMatch(/class="state-connected">Connected</);

    expect(await server.whoami("alice")).toEqual({ fingerprint: fingerprint("ghp_alice_personal_token_1234") });
    expect((await server.whoami("bob")).code).toBe("CREDENTIALS_MISSING");
    // The token was taught to the redactor: it never leaves the host.
    expect(server.host.redactor.string("ghp_alice_personal_token_1234")).not.toContain("ghp_alice");

    const gone = await browser.request("/connections/disconnect", { form: { slot: "gh.token", csrf } });
    expect(gone.status).toBe(303);
    expect((await server.whoami("alice")).code).toBe("CREDENTIALS_MISSING");
    expect(await (await browser.request("/connections")).text()).toMatch(/class="state-missing"/);
  });

  it("shows an OAuth connection until when it holds, and once expired", async () => {
    const vault = server.host.credentials?.vault;
    const browser = new Browser(server.origin);
    await browser.request(await server.linkFor("bob", "drive.token"));
    const until = Date.now() + 3_600_000;
    await vault?.put("drive.token", "token:bob", {
      kind: "oauth",
      accessToken: "at-bob-0123456789",
      expiresAt: until,
      savedAt: 1,
    });
    const connected = await (await browser.request("/connections")).text();
    expect(connected).toContain(
      `<td>Drive</td><td>OAuth (sign in)</td><td class="state-connected">Connected until ${new Date(until).toISOString()}</td>`,
    );
    expect(connected).not.toContain("at-bob-0123456789");
    await vault?.put("drive.token", "token:bob", {
      kind: "oauth",
      accessToken: "at-bob-0123456789",
      expiresAt: 1,
      savedAt: 1,
    });
    expect(await (await browser.request("/connections")).text()).toContain('<td class="state-expired">Expired</td>');
    await vault?.remove("drive.token", "token:bob");
  });

  it("answers every page with the security headers and an exact CSP", async () => {
    const answer = await new Browser(server.origin).request("/connections");
    expect(answer.status).toBe(401);
    expect(await answer.text()).toContain("call a tool that needs one of your credentials");
    expect(answer.headers.get("content-security-policy")).toBe(PAGE_CSP);
    expect(PAGE_CSP).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    expect(answer.headers.get("x-frame-options")).toBe("DENY");
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it("checks the Host header like the MCP endpoint", async () => {
    const answer = await raw(`${server.origin}/connections`, { method: "GET", headers: { host: "evil.example" } });
    expect(answer.status).toBe(403);
  });

  it("keeps the MCP endpoint off the page's paths", async () => {
    for (const taken of ["/connections", "/connections/open", "/connections/anything"]) {
      await expect(resolveHttpConfig(manifestOf({ skills: [], http: { path: taken } }))).rejects.toThrow(
        `path: "${taken}" is taken by the server itself`,
      );
    }
  });

  it("answers HEAD of the page with its headers and no body", async () => {
    const answer = await raw(`${server.origin}/connections`, { method: "HEAD" });
    expect(answer.status).toBe(401);
    expect(answer.headers["content-security-policy"]).toBe(PAGE_CSP);
    expect(answer.text).toBe("");
  });

  it("refuses other methods with Allow", async () => {
    const answer = await new Browser(server.origin).request("/connections/token");
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST");
  });
});

describe("the connections page behind a public URL", () => {
  it("makes links on the public origin and marks the session cookie Secure", async () => {
    const server = await startConnectionsServer({ publicUrl: "https://skills.example.com/mcp" });
    try {
      expect(server.host.credentials?.baseUrl).toBe("https://skills.example.com");
      const missing = await server.whoami("alice");
      expect(missing.connectUrl).toMatch(/^https:\/\/skills\.example\.com\/connections\/open\?link=/);
      const link = new URL(missing.connectUrl as string);
      const opened = await new Browser(server.origin).request(`${link.pathname}${link.search}`);
      expect(opened.status).toBe(303);
      expect(opened.headers.get("set-cookie")).toMatch(/; Secure$/);
    } finally {
      await server.stop();
    }
  });
});

describe("the connections page's rows", () => {
  it("says how each slot connects and what the caller has, with the buttons that apply", async () => {
    const html = await slotsPage(
      "jwt:alice",
      [
        { id: "gh.token", label: "GitHub", via: "token", state: "missing", fallback: true },
        { id: "jira.token", label: "Jira", via: "exchange", state: "missing", fallback: false },
        { id: "drive.token", label: "Drive", via: "oauth", state: "expired", expiresAt: 0, fallback: false },
      ],
      "c1",
    ).text();
    expect(html).toContain(
      '<td>GitHub</td><td>Personal token</td><td class="state-missing">Not connected (the host\'s shared credential is used meanwhile)</td>',
    );
    expect(html).toContain("<td>Jira</td><td>Exchanged automatically</td>");
    expect(html).toContain("Automatic: your own sign-in is exchanged when you call</td><td></td>");
    expect(html).toContain('<td>Drive</td><td>OAuth (sign in)</td><td class="state-expired">Expired</td>');
    // Connect and disconnect for what was connected; nothing to disconnect where nothing is kept.
    const drive = html.slice(html.indexOf('id="slot-drive.token"'));
    expect(drive).toContain('href="/connections/connect?slot=drive.token&amp;csrf=c1">Connect</a>');
    expect(drive).toContain('action="/connections/disconnect"');
    const gh = html.slice(html.indexOf('id="slot-gh.token"'), html.indexOf('id="slot-jira.token"'));
    expect(gh).not.toContain("disconnect");
  });
});
