// The host's side of ctx.fetch, alone: which requests get a held credential, over real loopback servers.
import type { IncomingMessage } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { defineSkill, defineTool, isSkillError } from "@skillport/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { credentialAccess, MAX_REDIRECTS } from "../src/entries/credential-fetch.js";

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A loopback API: records requests; `/redirect?to=URL&status=N` redirects, `/loop` redirects to itself. */
async function startApi() {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url ?? "/", "http://api");
    seen.push({ method: req.method ?? "GET", path: url.pathname, headers: req.headers, body });
    const to = url.searchParams.get("to");
    if (url.pathname === "/redirect" && to !== null) {
      res.writeHead(Number(url.searchParams.get("status") ?? 302), { location: to }).end();
    } else if (url.pathname === "/loop") {
      res.writeHead(302, { location: "/loop" }).end();
    } else {
      res.writeHead(200, { "content-type": "text/plain" }).end(`ok ${url.pathname}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const TOKEN = "tok-4e1f0a9b";
const KEY = "key-77c2d3e8";
const tool = defineTool({
  name: "noop",
  title: "Nothing",
  description: "Does nothing.",
  input: { type: "object", properties: {}, additionalProperties: false },
  risk: "read_only",
  run: () => ({}),
});

function skillFor(origins: unknown) {
  return defineSkill({
    name: "api",
    credentials: {
      token: {
        description: "a token",
        fetch: { origins: (config: { api: string }) => (origins as string[] | undefined) ?? [config.api] },
      },
      key: {
        description: "a key",
        required: false,
        fetch: { origins: (config: { api: string }) => [config.api], header: "X-Api-Key", scheme: "" },
      },
      plain: { description: "read by the skill itself", required: false },
    },
    tools: [tool],
  })();
}

let api: Awaited<ReturnType<typeof startApi>>;
let other: Awaited<ReturnType<typeof startApi>>;
const signal = new AbortController().signal;
const access = (credentials: Record<string, string | undefined> = { token: TOKEN, key: KEY, plain: "p" }) =>
  credentialAccess(skillFor(undefined), credentials, { api: `${api.origin}/v3` }, { signal });

beforeAll(async () => {
  api = await startApi();
  other = await startApi();
});
afterAll(async () => {
  await api.close();
  await other.close();
});
beforeEach(() => {
  api.seen.length = 0;
  other.seen.length = 0;
});

describe("credentialAccess", () => {
  it("leaves held credentials out of what the skill reads, and still says they are configured", () => {
    const a = access();
    expect(a.credentials).toEqual({ plain: "p" });
    expect([a.hasCredential("token"), a.hasCredential("key"), a.hasCredential("plain")]).toEqual([true, true, true]);
    const none = access({ token: "", plain: undefined });
    expect([none.hasCredential("token"), none.hasCredential("plain"), none.hasCredential("toString")]).toEqual([
      false,
      false,
      false,
    ]);
  });

  it("sets each held credential's header on the declared origin, replacing what the skill set", async () => {
    const response = await access().fetch(`${api.origin}/v3/user`, {
      headers: { Authorization: "Bearer forged", "x-api-key": "forged", "x-other": "kept" },
    });
    expect(await response.text()).toBe("ok /v3/user");
    expect(api.seen[0]?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      "x-api-key": KEY,
      "x-other": "kept",
    });
  });

  it("clears the skill's own header on the declared origin when the credential is not configured", async () => {
    await access({ plain: "p" }).fetch(`${api.origin}/user`, { headers: { authorization: "Bearer forged" } });
    expect(api.seen[0]?.headers.authorization).toBeUndefined();
  });

  it("sends nothing held to another origin, and leaves the skill's own headers there", async () => {
    await access().fetch(`${other.origin}/collect`, { headers: { authorization: "Bearer mine" } });
    expect(other.seen[0]?.headers).toMatchObject({ authorization: "Bearer mine" });
    expect(JSON.stringify(other.seen)).not.toContain(TOKEN);
    expect(JSON.stringify(other.seen)).not.toContain(KEY);
  });

  it("treats another port or scheme of the same host as another origin", async () => {
    const sameHostOtherPort = credentialAccess(
      skillFor([`${api.origin.replace(/:\d+$/, ":1")}`, `https://${new URL(api.origin).host}`]),
      { token: TOKEN },
      { api: "https://example.com" },
      { signal },
    );
    await sameHostOtherPort.fetch(`${api.origin}/user`);
    expect(api.seen[0]?.headers.authorization).toBeUndefined();
  });

  it("keeps a 307 redirect's method and body, without the credential once it leaves the origin", async () => {
    const to = encodeURIComponent(`${other.origin}/landing`);
    const response = await access().fetch(`${api.origin}/redirect?status=307&to=${to}`, {
      method: "POST",
      body: JSON.stringify({ a: 1 }),
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${other.origin}/landing`);
    expect(api.seen[0]).toMatchObject({ method: "POST", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(other.seen[0]).toMatchObject({ method: "POST", body: '{"a":1}' });
    expect(JSON.stringify(other.seen)).not.toContain(TOKEN);
  });

  it("turns a 303 after a POST into a GET without a body, as the Fetch standard does", async () => {
    await access().fetch(`${api.origin}/redirect?status=303&to=/after`, { method: "POST", body: "x" });
    expect(api.seen.map((s) => [s.method, s.path, s.body, s.headers.authorization])).toEqual([
      ["POST", "/redirect", "x", `Bearer ${TOKEN}`],
      ["GET", "/after", "", `Bearer ${TOKEN}`],
    ]);
  });

  it("never adds the credential after the request has left its origins, even on the way back", async () => {
    const back = encodeURIComponent(`${api.origin}/back`);
    const away = encodeURIComponent(`${other.origin}/redirect?to=${back}`);
    await access().fetch(`${api.origin}/redirect?to=${away}`);
    expect(api.seen.map((s) => [s.path, s.headers.authorization])).toEqual([
      ["/redirect", `Bearer ${TOKEN}`],
      ["/back", undefined],
    ]);
  });

  it("hands back a redirect untouched with redirect: manual, and refuses one with redirect: error", async () => {
    const manual = await access().fetch(`${api.origin}/redirect?to=/x`, { redirect: "manual" });
    expect([manual.status, manual.headers.get("location")]).toEqual([302, "/x"]);
    await expect(access().fetch(`${api.origin}/redirect?to=/x`, { redirect: "error" })).rejects.toThrow(TypeError);
    expect(api.seen.map((s) => s.path)).toEqual(["/redirect", "/redirect"]);
  });

  it(`gives up after ${MAX_REDIRECTS} redirects`, async () => {
    await expect(access().fetch(`${api.origin}/loop`)).rejects.toThrow(`more than ${MAX_REDIRECTS} redirects`);
    expect(api.seen).toHaveLength(MAX_REDIRECTS + 1);
  });

  it.each([
    ["http://api.example.com", "a credential goes only to https origins"],
    ["ftp://127.0.0.1", "a credential goes only to https origins"],
    ["not a url", "which is not a URL"],
  ])("refuses to send a credential declared for %s, and sends nothing", async (origin, message) => {
    const a = credentialAccess(skillFor([origin]), { token: TOKEN }, { api: api.origin }, { signal });
    expect(a.credentials).toEqual({});
    let thrown: unknown;
    try {
      await a.fetch(`${api.origin}/user`);
    } catch (error) {
      thrown = error;
    }
    expect(isSkillError(thrown) && thrown.code).toBe("UNAVAILABLE");
    expect((thrown as Error).message).toContain(message);
    expect(api.seen).toEqual([]);
  });

  it("accepts https origins and plain http on loopback, by origin only", async () => {
    const a = credentialAccess(
      skillFor(["https://ghe.example/api/v3", `${api.origin}/deep/path`]),
      { token: TOKEN },
      { api: "https://example.com" },
      { signal },
    );
    await a.fetch(`${api.origin}/other/path`);
    expect(api.seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("uses the call's signal unless the request brings its own", async () => {
    const aborted = credentialAccess(
      skillFor(undefined),
      { token: TOKEN },
      { api: api.origin },
      {
        signal: AbortSignal.abort(new DOMException("cancelled", "AbortError")),
      },
    );
    await expect(aborted.fetch(`${api.origin}/x`)).rejects.toThrow("cancelled");
    expect((await aborted.fetch(`${api.origin}/x`, { signal: new AbortController().signal })).status).toBe(200);
  });
});
