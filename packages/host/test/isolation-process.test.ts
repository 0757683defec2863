// Worker and process isolation behave alike for the pipeline: limits, deaths and ctx.fetch through the host.
// Process isolation runs each call in a real child process (sandboxed with bubblewrap where it works).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processSpawner } from "../src/entries/isolated/process-pool.js";
import { WorkerPool } from "../src/entries/isolated/worker-pool.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import type { SkillInstance } from "../src/registry/registry.js";
import { ECHO, FIXTURES, manifestOf, pipelineOf, silentLogger } from "./helpers.js";

const SNOOP = path.join(FIXTURES, "skill-snoop");
const TOKEN = "held-9d3c1e07";

/** A loopback API: echoes what it got as JSON; `/hang` never answers; `/redirect?to=` redirects. */
async function startApi() {
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url ?? "/", "http://api");
    if (url.pathname === "/hang") return;
    const to = url.searchParams.get("to");
    if (url.pathname === "/redirect" && to !== null) {
      res.writeHead(302, { location: to }).end();
      return;
    }
    res.writeHead(201, { "content-type": "application/json", "x-answer": "yes" });
    res.end(JSON.stringify({ method: req.method, path: url.pathname, body, authorization: req.headers.authorization }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const unhide = (text: string) => [...text].reverse().join("");

describe.each(["worker", "process"] as const)("isolation %s", (isolation) => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let dir: string;
  let pipeline: Awaited<ReturnType<typeof pipelineOf>>["pipeline"];

  beforeAll(async () => {
    api = await startApi();
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-isolation-"));
    process.env.SKILLPORT_ISOLATION_TOKEN = TOKEN;
    const registry = await buildRegistry(
      manifestOf({
        skills: [
          { path: ECHO, mcp: "iso", isolation, memoryMb: 32 },
          { path: ECHO, mcp: "near" },
          {
            path: SNOOP,
            mcp: "snoop",
            isolation,
            credentials: { token: { env: "SKILLPORT_ISOLATION_TOKEN" } },
            config: { apiOrigin: api.origin, dir },
          },
          {
            path: SNOOP,
            mcp: "clear",
            isolation,
            credentials: { token: { env: "SKILLPORT_ISOLATION_TOKEN" } },
            config: { apiOrigin: "http://api.example.com" },
          },
        ],
      }),
    );
    delete process.env.SKILLPORT_ISOLATION_TOKEN;
    ({ pipeline } = pipelineOf(registry));
  });

  afterAll(async () => {
    await pipeline?.close();
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs the capability with its config, and answers its result", async () => {
    const outcome = await pipeline.call("iso.echo", { text: "hi", times: 2 });
    expect(outcome.envelope).toMatchObject({ ok: true, message: "echoed", data: { echoed: "hihi" } });
  });

  it("stops a synchronous loop at the timeout and replaces the isolate; other instances answer meanwhile", async () => {
    const order: string[] = [];
    const stuck = pipeline.call("iso.spin", {}).then((o) => {
      order.push("spin");
      return o;
    });
    const near = await pipeline.call("near.echo", { text: "meanwhile" });
    order.push("near");
    expect(near.envelope.ok).toBe(true);
    expect((await stuck).envelope).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    expect(order).toEqual(["near", "spin"]);
    expect((await pipeline.call("iso.echo", { text: "alive" })).envelope).toMatchObject({ ok: true });
  });

  it("answers UNAVAILABLE when a capability exhausts the heap limit, then serves the next call", async () => {
    const hog = await pipeline.call("iso.hog", {});
    expect(hog.envelope).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(hog.envelope.message).toContain("ran out of memory (limit 32 MiB)");
    expect((await pipeline.call("iso.echo", { text: "alive" })).envelope.ok).toBe(true);
  });

  it("answers UNAVAILABLE when the capability ends its own process or thread, then serves the next call", async () => {
    const died = await pipeline.call("snoop.die", {});
    expect(died.envelope).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect((await pipeline.call("iso.echo", { text: "alive" })).envelope.ok).toBe(true);
    expect((await pipeline.call("snoop.snoop", {})).envelope.ok).toBe(true);
  });

  it("cancels a waiting capability when the client does", async () => {
    const controller = new AbortController();
    const waiting = pipeline.call("iso.wait", {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await waiting).envelope).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
  });

  it("runs ctx.fetch in the host: method, body, status, headers and the held token", async () => {
    const outcome = await pipeline.call("snoop.call_api", { url: `${api.origin}/things`, method: "POST", body: "b=1" });
    expect(outcome.envelope).toMatchObject({
      ok: true,
      data: { status: 201, url: `${api.origin}/things`, contentType: "application/json" },
    });
    const data = (outcome.envelope as { data: { body: string } }).data;
    expect(JSON.parse(unhide(data.body))).toEqual({
      method: "POST",
      path: "/things",
      body: "b=1",
      authorization: `Bearer ${TOKEN}`,
    });
  });

  it("reports where a followed redirect ended, and hands a manual one back", async () => {
    const to = encodeURIComponent("/landed");
    const followed = await pipeline.call("snoop.call_api", { url: `${api.origin}/redirect?to=${to}` });
    expect(followed.envelope).toMatchObject({ ok: true, data: { status: 201, url: `${api.origin}/landed` } });
    const manual = await pipeline.call("snoop.call_api", {
      url: `${api.origin}/redirect?to=${to}`,
      redirect: "manual",
    });
    expect(manual.envelope).toMatchObject({ ok: true, data: { status: 302, location: "/landed" } });
  });

  it("passes fetch failures and the skill's own abort through as fetch would throw them", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await pipeline.call("snoop.call_api", { url: `http://127.0.0.1:${port}/` });
    expect(refused.envelope).toMatchObject({ ok: true, data: { error: { name: "TypeError", code: "ECONNREFUSED" } } });
    const hung = await pipeline.call("snoop.call_api", { url: `${api.origin}/hang`, abortAfterMs: 100 });
    expect(hung.envelope).toMatchObject({ ok: true, data: { error: { name: "TimeoutError" } } });
  });

  it("refuses, as a SkillError in the skill, to send a credential declared for plain http beyond loopback", async () => {
    const outcome = await pipeline.call("clear.call_api", { url: `${api.origin}/x` });
    expect(outcome.envelope).toMatchObject({ ok: true, data: { error: { name: "SkillError" } } });
    const echoed = await pipeline.call("clear.snoop", {});
    expect(echoed.envelope.ok).toBe(true);
  });

  it("reads and writes the folder its config names", async () => {
    const noted = await pipeline.call("snoop.note_down", { name: "note.txt", text: "written inside" });
    expect(noted.envelope).toMatchObject({ ok: true, data: { readBack: "written inside" } });
    expect(await readFile(path.join(dir, "note.txt"), "utf8")).toBe("written inside");
  });
});

describe("process isolation without a sandbox", () => {
  it("still starts the child with an empty environment and hands it only the credentials its skill reads", async () => {
    process.env.SKILLPORT_ISOLATION_PLAIN = "plain-6a0e2f15";
    process.env.SKILLPORT_ISOLATION_TOKEN = TOKEN;
    const registry = await buildRegistry(
      manifestOf({
        skills: [
          {
            path: SNOOP,
            mcp: "snoop",
            isolation: "process",
            credentials: {
              token: { env: "SKILLPORT_ISOLATION_TOKEN" },
              plain: { env: "SKILLPORT_ISOLATION_PLAIN" },
            },
            config: { apiOrigin: "https://api.example" },
          },
        ],
      }),
    );
    delete process.env.SKILLPORT_ISOLATION_PLAIN;
    delete process.env.SKILLPORT_ISOLATION_TOKEN;
    const instance = registry.instances[0] as SkillInstance;
    const unsandboxed = processSpawner({ sandbox: async () => ({ available: false, reason: "not here" }) });
    const pool = new WorkerPool(instance, await instance.load(), silentLogger(), unsandboxed, "child process");
    const never = new AbortController().signal;
    const ctx: SkillContext = {
      credentials: {},
      hasCredential: () => false,
      signal: never,
      config: instance.config,
      traceId: "t",
      progress: () => undefined,
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      fetch: () => Promise.reject(new Error("no fetch in this test")),
      findSecret: async () => undefined,
      elicit: () => Promise.reject(new Error("no client in this test")),
      sample: () => Promise.reject(new Error("no client in this test")),
      listRoots: () => Promise.reject(new Error("no client in this test")),
      clientSupports: () => false,
    };
    const input = { supports: () => false, ask: () => Promise.reject(new Error("no client in this test")) };
    try {
      const target = { kind: "tool", name: "snoop" } as const;
      const data = (await pool.run(target, {}, ctx, input)) as { seen: Record<string, string>; hasToken: boolean };
      const seen = Object.fromEntries(Object.entries(data.seen).map(([k, v]) => [k, unhide(v)]));
      expect(JSON.parse(seen.processEnv as string)).toEqual({});
      expect(seen.procSelfEnviron).not.toContain(TOKEN);
      expect(seen.procSelfEnviron).not.toContain("plain-6a0e2f15");
      expect(JSON.parse(seen.ctxCredentials as string)).toEqual({ plain: "plain-6a0e2f15" });
      expect(seen.workerData).toBe("null");
      expect(data.hasToken).toBe(true);
    } finally {
      await pool.close();
    }
  });
});
