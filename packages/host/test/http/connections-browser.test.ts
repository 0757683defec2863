// The connections page in a real browser: Debian's chromium, driven by playwright-core (nothing downloads a browser).
// Without chromium this file is skipped, except under CI=true, where it fails.
import type { AuthorizationServer, ProtectedMcpServer } from "@skillport/test-utils";
import {
  CHROMIUM,
  CHROMIUM_FLAGS,
  hasTool,
  missingTool,
  skipWithout,
  startAuthorizationServer,
  startProtectedMcpServer,
} from "@skillport/test-utils";
import type { Browser } from "playwright-core";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectionsServer } from "./connections-helpers.js";
import { fingerprint, startConnectionsServer } from "./connections-helpers.js";

describe.skipIf(skipWithout("chromium"))("the connections page in headless Chromium", () => {
  let server: ConnectionsServer;
  let browser: Browser;

  beforeAll(async () => {
    // Here only in CI (where a missing browser is not skipped): say so, not how launching it failed.
    if (!hasTool("chromium")) throw missingTool("chromium");
    server = await startConnectionsServer({ label: "GitHub" });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("opens alice's link, saves her personal token, and her next MCP call runs with it", async () => {
    const missing = await server.whoami("alice");
    expect(missing.code).toBe("CREDENTIALS_MISSING");
    const { context, tab, reported } = await openTab(browser);
    try {
      await tab.goto(missing.connectUrl as string);
      // Redirected at once: the link has left the address bar.
      expect(tab.url()).toBe(`${server.origin}/connections`);
      await expect(tab.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Your connections");
      const row = tab.getByRole("row", { name: /GitHub/ });
      await expect(row.getByRole("cell").nth(2).textContent()).resolves.toBe("Not connected");

      await row.getByRole("button", { name: "Connect" }).click();
      await tab.getByLabel("Your personal token for GitHub").fill("ghp_browser_token_0123456789");
      await tab.getByRole("button", { name: "Save" }).click();
      await tab.waitForURL(`${server.origin}/connections`);
      await expect(
        tab
          .getByRole("row", { name: /GitHub/ })
          .getByRole("cell")
          .nth(2)
          .textContent(),
      ).resolves.toBe("Connected");

      // The style applied under the CSP (its hash matches), and nothing was refused.
      const color = await tab
        .locator("td.state-connected")
        .evaluate((cell) => (globalThis as unknown as PageGlobals).getComputedStyle(cell).color);
      expect(color).toBe("rgb(23, 107, 44)");
      expect(reported).toEqual([]);
      const cookies = await context.cookies();
      expect(cookies).toEqual([
        expect.objectContaining({ name: "skillport_session", path: "/connections", httpOnly: true, sameSite: "Lax" }),
      ]);
    } finally {
      await context.close();
    }
    expect(await server.whoami("alice")).toEqual({ fingerprint: fingerprint("ghp_browser_token_0123456789") });
    expect((await server.whoami("bob")).code).toBe("CREDENTIALS_MISSING");
  });
});

describe.skipIf(skipWithout("chromium"))("connecting through OAuth in headless Chromium", () => {
  let as: AuthorizationServer;
  let upstream: ProtectedMcpServer;
  let server: ConnectionsServer;
  let browser: Browser;
  let page: string;

  beforeAll(async () => {
    if (!hasTool("chromium")) throw missingTool("chromium");
    as = await startAuthorizationServer();
    upstream = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
    server = await startConnectionsServer({ oauthIssuer: as.issuer, oauthResource: upstream.resource });
    // The page on localhost, the authorization server on 127.0.0.1: another site, so its redirect back to the
    // callback is a cross-site navigation that must still carry the SameSite=Lax session cookie.
    page = server.origin.replace("127.0.0.1", "localhost");
    (server.host.credentials as NonNullable<typeof server.host.credentials>).baseUrl = page;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await upstream?.close();
    await as?.close();
  });

  it("opens alice's link, logs in at the authorization server on another site, comes back connected, and her call runs with it", async () => {
    const missing = await server.whoami("alice", "drive");
    expect(missing.code).toBe("CREDENTIALS_MISSING");
    const { context, tab, reported } = await openTab(browser);
    try {
      expect(missing.connectUrl?.startsWith(`${page}/connections/open?link=`)).toBe(true);
      await tab.goto(missing.connectUrl as string);
      await tab.getByRole("row", { name: /Drive/ }).getByRole("link", { name: "Connect" }).click();
      // The fixture's login form, on the authorization server's origin.
      await tab.waitForURL((url) => url.origin === new URL(as.issuer).origin);
      await tab.locator('input[name="login"]').fill("alice");
      await tab.getByRole("button", { name: "Log in" }).click();
      await tab.waitForURL(`${page}/connections`);
      await expect(tab.getByRole("row", { name: /Drive/ }).getByRole("cell").nth(2).textContent()).resolves.toMatch(
        /^Connected until \d{4}-/,
      );
      // Only the pages of this host are checked: the fixture's own pages carry no CSP.
      expect(reported.filter((text) => text.includes("Content Security Policy"))).toEqual([]);
    } finally {
      await context.close();
    }
    const kept = await server.host.credentials?.vault.get("drive.token", "token:alice");
    if (kept?.kind !== "oauth") throw new Error("nothing kept for alice");
    expect(await server.whoami("alice", "drive")).toEqual({ fingerprint: fingerprint(kept.accessToken) });
    expect((await server.whoami("bob", "drive")).code).toBe("CREDENTIALS_MISSING");
  });
});

/** A fresh browser context's tab, and the console errors and warnings its pages report. */
async function openTab(browser: Browser) {
  const context = await browser.newContext();
  context.setDefaultTimeout(5_000);
  const tab = await context.newPage();
  const reported: string[] = [];
  tab.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") reported.push(message.text());
  });
  return { context, tab, reported };
}

/** What the page has that this file uses (the tests compile without the DOM library). */
interface PageGlobals {
  getComputedStyle(element: unknown): { color: string };
}
