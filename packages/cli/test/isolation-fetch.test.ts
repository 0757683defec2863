// ctx.fetch adds an instance's held credential only for the origins its skill declares, never after a redirect
// away from them, and replaces any Authorization the skill forged. Loopback servers stand in for the APIs; the
// skill runs in a real `skillport serve --stdio` subprocess, in process, in a worker and in a child process.
import type { IncomingMessage } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Served } from "./isolation-serve.js";
import { HAS_BWRAP, SNOOP, serveStdio } from "./isolation-serve.js";

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
const MODES = ["in-process", "worker", ...(HAS_BWRAP ? ["process"] : [])] as const;

describe.each(MODES)("ctx.fetch with isolation %s", (isolation) => {
  let declared: Api;
  let other: Api;
  let served: Served;
  const call = (url: string) => served.call("api.call_api", { url });

  beforeAll(async () => {
    declared = await startApi();
    other = await startApi();
    served = await serveStdio(
      {
        skills: [
          {
            path: SNOOP,
            mcp: "api",
            isolation,
            credentials: { token: { env: "HELD_TOKEN" } },
            config: { apiOrigin: declared.origin },
          },
        ],
      },
      { HELD_TOKEN: TOKEN },
    );
  });
  afterAll(async () => {
    await served?.close();
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
});
