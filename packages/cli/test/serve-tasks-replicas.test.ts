// Tasks across two `skillport serve --http` processes sharing one Redis, as a deployment runs them: a task made on A
// is read on B; A is killed (SIGKILL) mid-run, and B ends the task failed within the lease, saying why; with Redis
// stopped, a new task is refused retryably and nothing runs. The waits are on the processes' own lines and exits.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { StandardSchemaV1 } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { RedisServer } from "@skillport/test-utils";
import { skipWithout, startRedis } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedHttp, Workspace } from "./workspace.js";
import { makeWorkspace, REPO, serveHttp } from "./workspace.js";

/** The host's test skill: `jobs.hold` runs until it is released (never, here) or aborted. */
const JOBS_SKILL = path.join(REPO, "packages/host/test/fixtures/skill-tasks");
const TOKEN = "alice-token-4b7e1d9c3a2f";
/** Short, so the test is; long enough that a loaded machine renews in time (every 750 ms, each held 2.25 s). */
const LEASE_MS = 3000;
const SWEPT = "ended tasks failed: the replica running them stopped";

const ANY: StandardSchemaV1<unknown, Record<string, unknown>> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value: value as Record<string, unknown> }) },
};

function call(client: Client, method: string, params: Record<string, unknown>) {
  return client.request({ method, params } as never, ANY);
}

describe.skipIf(skipWithout("redis-server"))("tasks across two skillport serve --http processes", () => {
  let ws: Workspace;
  let redis: RedisServer;
  const servers: ServedHttp[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    ws = await makeWorkspace();
    await writeFile(path.join(ws.dir, "confirm.secret"), "0123456789abcdef0123456789abcdef-task-replicas\n");
    const manifest = await ws.writeManifest(
      {
        name: "task-replicas",
        version: "1.0.0",
        skills: [{ path: JOBS_SKILL, mcp: "jobs" }],
        tasks: { immediateMs: 0, leaseMs: LEASE_MS },
        confirmation: { secret: { file: "./confirm.secret" } },
        state: { store: "redis", url: { env: "REDIS_URL" } },
        http: { sessions: true, auth: { tokens: [{ name: "alice", token: { env: "ALICE_TOKEN" } }] } },
      },
      "tasks.manifest.json",
    );
    const env = { REDIS_URL: redis.url, ALICE_TOKEN: TOKEN };
    for (let i = 0; i < 2; i++) servers.push(serveHttp(["--manifest", manifest], ws.dir, env));
    for (const server of servers) {
      const client = new Client(
        { name: "task-caller", version: "0.0.0" },
        { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(await server.url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      clients.push(client);
    }
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const server of servers) server.child.kill();
    await Promise.all(servers.map((s) => s.exit));
    await redis?.stop();
    await ws?.dispose();
  });

  it("ends failed within the lease a task whose replica was killed mid-run, as any replica reads it", async () => {
    const [a, b] = clients as [Client, Client];
    const { taskId } = await call(a, "tools/call", { name: "jobs.hold", arguments: { label: "doomed" } });
    expect(await call(b, "tasks/get", { taskId })).toMatchObject({ taskId, status: "working" });

    const killed = Date.now();
    servers[0]?.child.kill("SIGKILL");
    await servers[0]?.exit;
    // B's sweep (every quarter of the lease) finds the lease lapsed and says so.
    await servers[1]?.stderrUntil((text) => text.includes(SWEPT));
    const within = Date.now() - killed;
    const failed = await call(b, "tasks/get", { taskId });
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603 } });
    expect((failed.error as { message: string }).message).toContain("the replica running this task stopped");
    expect(failed).not.toHaveProperty("result");
    // The lease, and the little it takes a line to cross a pipe on a loaded machine.
    expect(within).toBeLessThan(LEASE_MS + 1000);
  });

  it("refuses a new task retryably while Redis is down, and runs nothing", async () => {
    const b = clients[1] as Client;
    await redis.stop();
    const refused = await call(b, "tools/call", { name: "jobs.hold", arguments: { label: "outage" } });
    expect(refused).not.toHaveProperty("taskId");
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "UNAVAILABLE", retryable: true } },
    });
    await expect(call(b, "tasks/get", { taskId: "any" })).rejects.toMatchObject({ code: -32603 });
  });
});
