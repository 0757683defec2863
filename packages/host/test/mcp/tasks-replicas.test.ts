// Tasks across two replicas of one composition in this process, each served over HTTP on its own loopback port and
// sharing one real Redis (chosen by SKILLPORT_STATE_URL, as a deployment sets it): a task made on A is read,
// answered and cancelled through B; another caller's task id answers unknown on B; a replica that stops renewing
// its leases has its task ended failed by the other; a run that ends while Redis is down keeps its answer once Redis
// (persistent, as the docs ask) is back; Redis down refuses new tasks, retryably. Every wait is on the
// store's watch or a run starting, never on a clock.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { StandardSchemaV1 } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { RedisServer } from "@skillport/test-utils";
import { skipWithout, startRedis } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../src/host.js";
import { TASKS_EXTENSION_ID } from "../../src/mcp/tasks.js";
import type { TaskStatus } from "../../src/state/task-store.js";
import { LEASE_LAPSED } from "../../src/state/task-store.js";
import { FIXTURES } from "../helpers.js";
import type { LoopbackHttp } from "../serving.js";
import { hostFrom, serveLoopback } from "../serving.js";

const JOBS = path.join(FIXTURES, "skill-tasks");
const { held } = (await import(path.join(JOBS, "index.js"))) as {
  held: {
    runs: { label: string; release(value: unknown): void }[];
    aborted: unknown[];
    started(n: number): Promise<void>;
  };
};
const ANY: StandardSchemaV1<unknown, Record<string, unknown>> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value: value as Record<string, unknown> }) },
};
const TOKENS = { alice: "alice-token-5c1f9a7e3d2b", bob: "bob-token-8e2d4c6a1f9b" };
const LEASE_MS = 2000;

interface Replica {
  host: Host;
  served: LoopbackHttp;
  /** The task ids whose lease this replica held: the rounds it ran. */
  ran: string[];
  alice: Client;
  bob: Client;
}

function call(client: Client, method: string, params: Record<string, unknown>) {
  return client.request({ method, params } as never, ANY);
}

/** Resolves once `replica`'s store tells of `taskId` reaching `status` (or at once if tasks/get says it has). */
function reaches(replica: Replica, taskId: string, status: TaskStatus): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const check = () =>
      call(replica.alice, "tasks/get", { taskId }).then((task) => {
        if (task.status !== status) return;
        stop();
        resolve(task);
      }, reject);
    const stop = replica.host.tasks.watch((id, now) => {
      if (id === taskId && now === status) void check();
    });
    void check();
  });
}

describe.skipIf(skipWithout("redis-server"))("tasks across two replicas sharing one Redis", () => {
  let redis: RedisServer;
  let dir: string;
  let a: Replica;
  let b: Replica;

  async function replica(name: string): Promise<Replica> {
    const host = await hostFrom(
      dir,
      {
        name: "tasks-replicated",
        version: "1.0.0",
        skills: [{ path: JOBS, mcp: "jobs" }],
        tasks: { immediateMs: 0, leaseMs: LEASE_MS, maxActivePerCaller: 3 },
        // The same secret on every replica, so that a round's state minted on A is trusted on B.
        confirmation: { secret: { file: path.join(dir, "confirm.secret") } },
        http: {
          sessions: true,
          auth: { tokens: Object.keys(TOKENS).map((who) => ({ name: who, token: { file: path.join(dir, who) } })) },
        },
      },
      { name: `${name}.manifest.json` },
    );
    const ran: string[] = [];
    const hold = host.taskLeases.hold.bind(host.taskLeases);
    host.taskLeases.hold = (id, stop) => {
      ran.push(id);
      return hold(id, stop);
    };
    const served = await serveLoopback(host);
    const connect = async (token: string) => {
      const client = new Client(
        { name: `${name}-client`, version: "0.0.0" },
        { capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION_ID]: {} } } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(served.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    return { host, served, ran, alice: await connect(TOKENS.alice), bob: await connect(TOKENS.bob) };
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-task-replicas-"));
    // With persistence, as the docs ask: a Redis killed and started again keeps its tasks.
    redis = await startRedis(["--appendonly", "yes", "--appendfsync", "always", "--dir", dir]);
    for (const [who, token] of Object.entries(TOKENS)) await writeFile(path.join(dir, who), token);
    await writeFile(path.join(dir, "confirm.secret"), "0123456789abcdef0123456789abcdef-tasks\n");
    process.env.SKILLPORT_STATE_URL = redis.url;
    a = await replica("a");
    b = await replica("b");
  });

  afterAll(async () => {
    delete process.env.SKILLPORT_STATE_URL;
    for (const r of [a, b]) {
      if (r === undefined) continue;
      await r.alice.close();
      await r.bob.close();
      await r.served.close();
      await r.host.close();
    }
    await redis?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("keeps tasks in the shared Redis", () => {
    expect([a.host.tasks.kind, b.host.tasks.kind]).toEqual(["redis", "redis"]);
  });

  it("reads on B a task made on A, and B sees its result once A's run answers", async () => {
    const before = held.runs.length;
    const { taskId } = await call(a.alice, "tools/call", { name: "jobs.hold", arguments: { label: "shared" } });
    await held.started(before + 1);
    expect(await call(b.alice, "tasks/get", { taskId })).toMatchObject({ taskId, status: "working" });
    held.runs[before]?.release("done on A");
    const done = await reaches(b, taskId as string, "completed");
    expect(done.result).toMatchObject({ structuredContent: { ok: true, data: { value: "done on A" } } });
    expect(a.ran).toContain(taskId);
    expect(b.ran).not.toContain(taskId);
  });

  it("cancels on B a task running on A: the run's ctx.signal aborts on A", async () => {
    const before = held.runs.length;
    const aborted = held.aborted.length;
    const { taskId } = await call(a.alice, "tools/call", { name: "jobs.hold", arguments: { label: "cancel me" } });
    await held.started(before + 1);
    // A hears the cancel first: its own watch aborts the run as the message arrives.
    const heardOnA = new Promise<void>((resolve) => {
      const stop = a.host.tasks.watch((id, status) => {
        if (id !== taskId || status !== "cancelled") return;
        stop();
        resolve();
      });
    });
    expect(await call(b.alice, "tasks/cancel", { taskId })).toEqual({});
    await heardOnA;
    expect(held.aborted.length).toBe(aborted + 1);
    expect(await call(a.alice, "tasks/get", { taskId })).toMatchObject({ status: "cancelled" });
  });

  it("resumes a round on the replica that took the last answer, exactly once when A and B take answers together", async () => {
    const { taskId } = await call(a.alice, "tools/call", { name: "jobs.ask", arguments: {} });
    await reaches(b, taskId as string, "input_required");
    expect(a.ran.filter((id) => id === taskId)).toHaveLength(1);
    // Both answers at once, one through each replica, each closing the round if it came last.
    const answers = { name: { action: "accept", content: { name: "Ada" } } };
    const confirm = { confirm: { action: "accept", content: { confirm: true } } };
    await Promise.all([
      call(a.alice, "tasks/update", { taskId, inputResponses: answers }),
      call(b.alice, "tasks/update", { taskId, inputResponses: confirm }),
    ]);
    const done = await reaches(a, taskId as string, "completed");
    expect(done.result).toMatchObject({ structuredContent: { ok: true, data: { name: "Ada", confirm: true } } });
    // Round 1 on A; round 2 on exactly one replica: three or more holds would mean a round ran twice.
    expect([...a.ran, ...b.ran].filter((id) => id === taskId)).toHaveLength(2);

    // Answered through B alone, the next round runs on B.
    const second = (await call(a.alice, "tools/call", { name: "jobs.ask", arguments: {} })).taskId as string;
    await reaches(b, second, "input_required");
    await call(b.alice, "tasks/update", { taskId: second, inputResponses: { ...answers, ...confirm } });
    await reaches(b, second, "completed");
    expect(b.ran.filter((id) => id === second)).toHaveLength(1);
  });

  it("answers another caller's task id on B exactly as an unknown one, and changes nothing", async () => {
    const before = held.runs.length;
    const { taskId } = await call(a.alice, "tools/call", { name: "jobs.hold", arguments: { label: "alice's" } });
    await held.started(before + 1);
    const unknown = await call(b.bob, "tasks/get", { taskId: "no-such-task" }).catch((e: unknown) => e);
    for (const [method, params] of [
      ["tasks/get", { taskId }],
      ["tasks/cancel", { taskId }],
      ["tasks/update", { taskId, inputResponses: { x: {} } }],
    ] as const) {
      const theirs = await call(b.bob, method, params).catch((e: unknown) => e);
      expect(theirs).toMatchObject({ code: -32602, message: (unknown as Error).message });
    }
    expect(await call(b.alice, "tasks/get", { taskId })).toMatchObject({ status: "working" });
    held.runs[before]?.release("still alice's");
    await reaches(b, taskId as string, "completed");
  });

  it("counts a caller's tasks on every replica together against tasks.maxActivePerCaller", async () => {
    const before = held.runs.length;
    const ids: string[] = [];
    for (const replica of [a, b, a]) {
      const created = await call(replica.bob, "tools/call", { name: "jobs.hold", arguments: { label: "flood" } });
      ids.push(created.taskId as string);
    }
    await held.started(before + 3);
    for (const replica of [a, b]) {
      const refused = await call(replica.bob, "tools/call", { name: "jobs.hold", arguments: { label: "one more" } });
      expect(refused).toMatchObject({ isError: true, structuredContent: { error: { code: "RATE_LIMITED" } } });
    }
    expect(held.runs.length).toBe(before + 3);
    for (const taskId of ids) await call(b.bob, "tasks/cancel", { taskId });
  });

  it("keeps the answer of a run that ended while Redis was down, written once Redis is back", async () => {
    const before = held.runs.length;
    const { taskId } = await call(a.alice, "tools/call", { name: "jobs.hold", arguments: { label: "through" } });
    await held.started(before + 1);
    // A's store writing the task's answer: the wait is on the write that lands.
    const written = new Promise<void>((resolve) => {
      const update = a.host.tasks.update.bind(a.host.tasks);
      a.host.tasks.update = async (id, from, patch) => {
        const done = await update(id, from, patch);
        if (id === taskId && patch.status === "completed" && done) resolve();
        return done;
      };
    });
    await redis.stop();
    held.runs[before]?.release("kept through the outage");
    await redis.start();
    await written;
    expect(await call(b.alice, "tasks/get", { taskId })).toMatchObject({
      status: "completed",
      result: { structuredContent: { ok: true, data: { value: "kept through the outage" } } },
    });
  });

  it("ends failed, through B's sweep, a task whose replica stopped renewing its lease", async () => {
    const before = held.runs.length;
    const { taskId } = await call(a.alice, "tools/call", { name: "jobs.hold", arguments: { label: "orphan" } });
    await held.started(before + 1);
    const failedOnB = new Promise<void>((resolve) => {
      const stop = b.host.tasks.watch((id, status) => {
        if (id !== taskId || status !== "failed") return;
        stop();
        resolve();
      });
    });
    // A stops renewing (as a replica that froze or lost its network would), its run still held.
    a.host.taskLeases.close();
    await failedOnB;
    const failed = await call(b.alice, "tasks/get", { taskId });
    expect(failed).toMatchObject({ status: "failed", error: LEASE_LAPSED });
    expect(failed).not.toHaveProperty("result");
    // A's run answering late changes nothing: the task stays failed.
    held.runs[before]?.release("too late");
    expect(await call(a.alice, "tasks/get", { taskId })).toMatchObject({ status: "failed" });
  });

  it("refuses new tasks while Redis is down, retryably, and runs nothing", async () => {
    await redis.stop();
    const before = held.runs.length;
    const refused = await call(a.alice, "tools/call", { name: "jobs.hold", arguments: { label: "outage" } });
    expect(refused).not.toHaveProperty("taskId");
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "UNAVAILABLE", retryable: true } },
    });
    await expect(call(b.alice, "tasks/get", { taskId: "any" })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("retry"),
    });
    expect(held.runs.length).toBe(before);
  });
});
