// ctx.fetch adds an instance's held credential only for the origins its skill declares, never after a redirect
// away from them, and replaces any Authorization the skill forged. Loopback servers stand in for the APIs; the
// skill runs in process, in a worker and in a child process of a host served over stdio's line transport, driven by
// the SDK client.
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { skipWithout } from "@skillport/test-utils";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Host } from "../../src/host.js";
import { FIXTURES } from "../helpers.js";
import { hostFrom, pipeStdio } from "../serving.js";

/** The attacker fixture: reports (reversed) every place it finds that could hold a credential. */
const SNOOP = path.join(FIXTURES, "skill-snoop");

const TOKEN = "held-token-2d8e4c71-only-for-the-declared-origin";

/** A loopback server that records each request's Authorization and redirects `/redirect?to=URL`. */
async function startApi() {
  const seen: { path: string; authorization: string | undefined }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", "http://api");
    seen.push({ path: url.pathname, authorization: req.headers.authorization });
    const to = url.searchParams.get("to");
    if (url.pathname === "/redirect" && to !== null) {
      res.writeHead(Number(url.searchParams.get("status") ?? 302), { location: to }).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" }).end(`hello from ${url.pathname}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

type Api = Awaited<ReturnType<typeof startApi>>;
// Process isolation is tested where its sandbox (bubblewrap) works, and always in CI.
const MODES = ["in-process", "worker", "process"] as const;

describe.each(MODES)("ctx.fetch with isolation %s", (isolation) => fetchSuite(isolation));

function fetchSuite(isolation: (typeof MODES)[number]) {
  if (isolation === "process" && skipWithout("bubblewrap")) {
    it.skip("is tested where bubblewrap works", () => undefined);
    return;
  }
  let declared: Api;
  let other: Api;
  let dir: string;
  let host: Host;
  let client: Client;
  const call = async (url: string) =>
    // biome-ignore lint/suspicious/noExplicitAny: the envelope's data, read field by field
    (await client.callTool({ name: "api.call_api", arguments: { url } })).structuredContent as any;

  beforeAll(async () => {
    declared = await startApi();
    other = await startApi();
    vi.stubEnv("HELD_TOKEN", TOKEN);
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-fetch-"));
    host = await hostFrom(dir, {
      skills: [
        {
          path: SNOOP,
          mcp: "api",
          isolation,
          credentials: { token: { env: "HELD_TOKEN" } },
          config: { apiOrigin: declared.origin },
        },
      ],
    });
    client = await pipeStdio(host).connect();
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
    await declared?.close();
    await other?.close();
  });
  beforeEach(() => {
    declared.seen.length = 0;
    other.seen.length = 0;
  });

  it("adds the token for the declared origin, in place of the skill's forged header", async () => {
    expect(await call(`${declared.origin}/user`)).toMatchObject({ ok: true, data: { status: 200 } });
    expect(declared.seen).toEqual([{ path: "/user", authorization: `Bearer ${TOKEN}` }]);
  });

  it("never sends the token to an origin the skill did not declare", async () => {
    expect(await call(`${other.origin}/collect`)).toMatchObject({ ok: true, data: { status: 200 } });
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]?.authorization).not.toContain(TOKEN);
  });

  it.each([301, 302, 303, 307, 308])(
    "drops the token when a %i redirect leaves the declared origin",
    async (status) => {
      const away = encodeURIComponent(`${other.origin}/stolen`);
      const envelope = await call(`${declared.origin}/redirect?status=${status}&to=${away}`);
      expect(envelope).toMatchObject({ ok: true, data: { status: 200 } });
      expect(declared.seen).toEqual([{ path: "/redirect", authorization: `Bearer ${TOKEN}` }]);
      expect(other.seen.map((s) => s.path)).toEqual(["/stolen"]);
      expect(other.seen[0]?.authorization ?? "").not.toContain(TOKEN);
    },
  );

  it("does not add the token when an undeclared origin redirects to the declared one", async () => {
    const back = encodeURIComponent(`${declared.origin}/user`);
    expect(await call(`${other.origin}/redirect?to=${back}`)).toMatchObject({ ok: true, data: { status: 200 } });
    expect(declared.seen.map((s) => s.path)).toEqual(["/user"]);
    expect(declared.seen[0]?.authorization ?? "").not.toContain(TOKEN);
  });

  it("keeps the token within the declared origin across a redirect there", async () => {
    const here = encodeURIComponent(`${declared.origin}/moved`);
    expect(await call(`${declared.origin}/redirect?to=${here}`)).toMatchObject({ ok: true, data: { status: 200 } });
    expect(declared.seen).toEqual([
      { path: "/redirect", authorization: `Bearer ${TOKEN}` },
      { path: "/moved", authorization: `Bearer ${TOKEN}` },
    ]);
  });
}
