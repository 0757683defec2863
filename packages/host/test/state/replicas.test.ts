// Two replicas of one composition on loopback ports, sharing one real Redis (chosen by SKILLPORT_STATE_URL, as a
// deployment sets it), attacked as a client would: replaying a confirmation on the other replica, racing both, and
// spreading calls over both to get twice the rate limit; then Redis is killed and restarted under them.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { RedisServer } from "@skillport/test-utils";
import { skipWithout, startRedis } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../src/host.js";
import { createHost } from "../../src/host.js";
import type { HttpServing } from "../../src/mcp/serve-http.js";
import { serveHostHttp } from "../../src/mcp/serve-http.js";
import { ECHO, manifestOf } from "../helpers.js";
import { capturingLogger, connect, ERAS, raw, rpc } from "../http-helpers.js";

/** One token per use, so each test spends its own budget: alice makes the MCP calls, the others count. */
const TOKENS = {
  alice: "alice-token-0123456789abcdef",
  bob: "bob-token-0123456789abcdef",
  carol: "carol-token-0123456789abcdef",
  dave: "dave-token-0123456789abcdef",
};
const BURST = 30;
const MODERN = ERAS[1].options;

type Envelope = {
  ok: boolean;
  message: string;
  data?: { wiped: string; count: number };
  error?: { code: string; retryable?: boolean; operationId?: string };
};

interface Replica {
  host: Host;
  serving: HttpServing;
  url: string;
  /** Its log lines, and a wait for one. */
  log: ReturnType<typeof capturingLogger>;
  /** Resolves at its next heartbeat that finds `count` ready replicas in the store (a beat, not a poll). */
  beat(count: number): Promise<void>;
  alice: Client;
}

describe.skipIf(skipWithout("redis-server"))("two replicas sharing one Redis", () => {
  let redis: RedisServer;
  let dir: string;
  let a: Replica;
  let b: Replica;

  async function replica(): Promise<Replica> {
    const log = capturingLogger();
    const host = await createHost({
      manifest: manifestOf({
        name: "replicated",
        skills: [{ path: ECHO, allow: ["wipe"] }],
        // The same secret on every replica, so each can verify what another issued.
        confirmation: { secret: { file: path.join(dir, "confirm.secret") }, fallback: "operation-id" },
        http: {
          // A budget small enough to spend in a test: BURST at once, then one a minute.
          rateLimit: { requestsPerMinute: 1, burst: BURST },
          auth: { tokens: Object.keys(TOKENS).map((name) => ({ name, token: { file: path.join(dir, name) } })) },
        },
        audit: { file: path.join(dir, "audit.log") },
      }),
      logger: log.logger,
    });
    // Every heartbeat's answer, as the host's shared state receives it.
    const beats = new Set<(ready: string[]) => void>();
    const store = host.state.store;
    const heartbeat = store.heartbeat.bind(store);
    store.heartbeat = async (id, ttlMs) => {
      const ready = await heartbeat(id, ttlMs);
      for (const wake of [...beats]) wake(ready);
      return ready;
    };
    const beat = (count: number) =>
      new Promise<void>((resolve) => {
        const wake = (ready: string[]) => {
          if (ready.length !== count) return;
          beats.delete(wake);
          resolve();
        };
        beats.add(wake);
      });
    const serving = await serveHostHttp(host, { port: 0 });
    return { host, serving, url: serving.url, log, beat, alice: await connect(serving.url, MODERN, TOKENS.alice) };
  }

  beforeAll(async () => {
    redis = await startRedis();
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-replicas-"));
    await writeFile(path.join(dir, "confirm.secret"), "0123456789abcdef0123456789abcdef-shared\n");
    for (const [name, token] of Object.entries(TOKENS)) await writeFile(path.join(dir, name), token);
    process.env.SKILLPORT_STATE_URL = redis.url;
    a = await replica();
    b = await replica();
    // Both announce themselves in Redis: each lists both as ready, from its next heartbeat on.
    await Promise.all([a.beat(2), b.beat(2)]);
  });

  afterAll(async () => {
    delete process.env.SKILLPORT_STATE_URL;
    for (const r of [a, b]) {
      if (r === undefined) continue;
      await r.alice.close();
      await r.serving.close({ graceMs: 0 });
      await r.host.close();
    }
    await redis?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const wipe = async (client: Client, target: string, confirm?: string) =>
    (
      await client.callTool({
        name: "echo.wipe",
        arguments: { target, ...(confirm === undefined ? {} : { _confirm: confirm }) },
      })
    ).structuredContent as Envelope;

  async function operationId(r: Replica, target: string): Promise<string> {
    const asked = await wipe(r.alice, target);
    expect(asked.error?.code).toBe("CONFIRMATION_REQUIRED");
    return asked.error?.operationId as string;
  }

  async function readyz(r: Replica) {
    const response = await raw(r.url, { method: "GET", path: "/readyz" });
    return response.json() as { status: string; state: { store: string; reachable: boolean; replicas: string[] } };
  }

  /** Sends one tools/list as `token` to each url in turn; answers the HTTP statuses. */
  async function statuses(urls: string[], token: string): Promise<number[]> {
    const out: number[] = [];
    for (const url of urls) {
      out.push((await raw(url, { body: rpc("tools/list"), headers: { authorization: `Bearer ${token}` } })).status);
    }
    return out;
  }

  it("lists both replicas as ready, in the shared store", async () => {
    const [ra, rb] = [await readyz(a), await readyz(b)];
    expect(ra).toMatchObject({ status: "ready", state: { store: "redis", reachable: true } });
    expect(ra.state.replicas).toEqual(rb.state.replicas);
  });

  it("refuses on replica B an operation id redeemed on replica A", async () => {
    const id = await operationId(a, "disk-1");
    const first = await wipe(a.alice, "disk-1", id);
    expect(first).toMatchObject({ ok: true, data: { wiped: "disk-1" } });
    const replayed = await wipe(b.alice, "disk-1", id);
    expect(replayed).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(replayed.message).toContain("was already used");
  });

  it("runs a confirmed call once when the same operation id races to both replicas", async () => {
    const id = await operationId(b, "disk-2");
    const answers = await Promise.all([
      wipe(a.alice, "disk-2", id),
      wipe(b.alice, "disk-2", id),
      wipe(a.alice, "disk-2", id),
      wipe(b.alice, "disk-2", id),
    ]);
    expect(answers.filter((e) => e.ok)).toHaveLength(1);
    expect(answers.filter((e) => e.error?.code === "PERMISSION_DENIED")).toHaveLength(3);
  });

  it("takes an answer to a confirmation question once, whichever replica it is sent to", async () => {
    const caller = { id: "token:alice", scopes: [] };
    const asked = await a.host.pipeline.call(
      "echo.wipe",
      { target: "disk-3" },
      { caller, confirmation: { elicit: true } },
    );
    const state = asked.elicit?.state as string;
    expect(state).toEqual(expect.any(String));
    const answer = { action: "accept" as const, state };
    const onA = await a.host.pipeline.call("echo.wipe", { target: "disk-3" }, { caller, confirmation: { answer } });
    expect(onA.envelope.ok).toBe(true);
    const onB = await b.host.pipeline.call("echo.wipe", { target: "disk-3" }, { caller, confirmation: { answer } });
    expect(onB.envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
  });

  it.each(ERAS)(
    "serves a client whose requests alternate between the replicas, with no session to stick to ($era)",
    async ({ options }) => {
      const sessions: (string | null)[] = [];
      let turn = 0;
      // A round-robin load balancer in front of both: each request goes to the other replica.
      const balanced = async (input: string | URL | Request, init?: RequestInit) => {
        const target = new URL(String(input instanceof Request ? input.url : input));
        target.port = new URL(turn++ % 2 === 0 ? a.url : b.url).port;
        const response = await fetch(target, init);
        sessions.push(response.headers.get("mcp-session-id"));
        return response;
      };
      const client = new Client({ name: "balanced", version: "0.0.0" }, options as never);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(a.url), {
          fetch: balanced,
          requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } },
        }),
      );
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo.wipe");
        const target = `disk-balanced-${turn}`;
        const asked = (await client.callTool({ name: "echo.wipe", arguments: { target } }))
          .structuredContent as Envelope;
        const id = asked.error?.operationId;
        const ran = await client.callTool({ name: "echo.wipe", arguments: { target, _confirm: id } });
        expect(ran.structuredContent).toMatchObject({ ok: true, data: { wiped: target } });
        expect(sessions.length).toBeGreaterThan(2);
        expect(sessions.every((id) => id === null)).toBe(true);
      } finally {
        await client.close();
      }
    },
  );

  it("asks the user once and runs once when the answer's retry lands on the other replica, and refuses the answer replayed to the first (2026-07-28)", async () => {
    const asked: string[] = [];
    const sent: { port: string; body: string }[] = [];
    let turn = 0;
    const balanced = async (input: string | URL | Request, init?: RequestInit) => {
      const target = new URL(String(input instanceof Request ? input.url : input));
      target.port = new URL(turn++ % 2 === 0 ? a.url : b.url).port;
      if (typeof init?.body === "string") sent.push({ port: target.port, body: init.body });
      return fetch(target, init);
    };
    const client = new Client({ name: "balanced-eliciting", version: "0.0.0" }, {
      ...MODERN,
      capabilities: { elicitation: { form: {} } },
    } as never);
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return { action: "accept", content: { confirm: true } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(a.url), {
        fetch: balanced,
        requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } },
      }),
    );
    try {
      const ran = await client.callTool({ name: "echo.wipe", arguments: { target: "disk-elicited" } });
      expect(ran.structuredContent).toMatchObject({ ok: true, data: { wiped: "disk-elicited" } });
      expect(asked).toEqual(["echo.wipe wants to: Wipe disk-elicited. Allow it?"]);
      // The retry carrying the user's answer, replayed by hand to the replica that did not take it.
      const calls = sent.filter((r) => r.body.includes('"tools/call"'));
      const retry = calls.at(-1);
      expect(retry?.body).toContain("requestState");
      // The question came from one replica, the answer went to the other.
      expect(calls.at(-2)?.port).not.toBe(retry?.port);
      const other = retry?.port === new URL(a.url).port ? b.url : a.url;
      const replayed = await fetch(other, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKENS.alice}`,
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "echo.wipe",
        },
        body: retry?.body,
      });
      const text = await replayed.text();
      // Not run again: the answer was already used, on the other replica.
      expect(text).not.toContain('"wiped"');
      expect(text).toContain("this confirmation was already used");
    } finally {
      await client.close();
    }
  });

  it("shares a caller's budget across both replicas: BURST in all, not BURST each", async () => {
    const alternating = Array.from({ length: BURST + 2 }, (_, i) => (i % 2 === 0 ? a.url : b.url));
    const answered = await statuses(alternating, TOKENS.bob);
    expect(answered).toEqual([...Array(BURST).fill(200), 429, 429]);
  });

  it("while Redis is down: refuses dangerous calls (UNAVAILABLE, retryable), counts rates per replica with a warning, and says so in /readyz; then recovers without a restart and never runs a confirmation twice", async () => {
    const beforeOutage = await operationId(a, "disk-4");
    const usedBeforeOutage = await operationId(a, "disk-5");
    expect(await wipe(b.alice, "disk-5", usedBeforeOutage)).toMatchObject({ ok: true });

    await redis.stop();
    const refused = await wipe(a.alice, "disk-4", beforeOutage);
    expect(refused).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", retryable: true } });
    expect(refused.message).toContain("did not run");
    expect(await wipe(b.alice, "disk-4", beforeOutage)).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    // Rate limits fall back to each replica's own count: calls are still served, and limited there.
    const local = await statuses(Array(BURST + 1).fill(a.url), TOKENS.carol);
    expect(local).toEqual([...Array(BURST).fill(200), 429]);
    expect(a.log.lines().map((l) => l.msg)).toContain(
      "rate limits are counted per replica until the state store returns",
    );
    // Each replica says once that the store is gone, whoever noticed first; /readyz says it too.
    const gone = "the state store cannot be reached: dangerous tools refuse (UNAVAILABLE) until it returns";
    await Promise.all([a, b].map((r) => r.log.next((l) => l.msg === gone)));
    expect((await readyz(a)).state.reachable).toBe(false);
    expect((await readyz(b)).state.reachable).toBe(false);
    expect((await readyz(a)).status).toBe("ready");

    const back = "the state store is reachable again: rate limits and confirmations are shared";
    const returned = [a, b].map((r) => r.log.next((l) => l.msg === back));
    // A heartbeat that lists both again: the store answers each replica again (a reconnection can flap before).
    const relisted = [a.beat(2), b.beat(2)];
    await redis.start();
    await Promise.all([...returned, ...relisted]);
    expect((await readyz(a)).state.reachable).toBe(true);
    expect((await readyz(b)).state.reachable).toBe(true);
    // Redis came back without its data: ids issued before cannot be checked, so neither runs (again).
    const replayed = await wipe(a.alice, "disk-5", usedBeforeOutage);
    expect(replayed).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(replayed.message).toContain("before the shared state store lost its data");
    expect(await wipe(b.alice, "disk-4", beforeOutage)).toMatchObject({
      ok: false,
      error: { code: "PERMISSION_DENIED" },
    });
    // New ones work, once across both replicas.
    const fresh = await operationId(b, "disk-6");
    expect(await wipe(a.alice, "disk-6", fresh)).toMatchObject({ ok: true });
    expect(await wipe(b.alice, "disk-6", fresh)).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    // And the budget is shared again.
    const alternating = Array.from({ length: BURST + 1 }, (_, i) => (i % 2 === 0 ? b.url : a.url));
    expect(await statuses(alternating, TOKENS.dave)).toEqual([...Array(BURST).fill(200), 429]);
  });
});
