// The Tasks extension (SEP-2663) through the official SDK client: in memory (as stdio serves it) for the lifecycle,
// and over HTTP with two bearer tokens for the binding of a task to its caller. The fixture's `hold` runs until the
// test releases it; the task store's watch says when a task changed, so nothing waits on a clock.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { StandardSchemaV1 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../../src/host.js";
import { connectInMemory } from "../../src/mcp/connect-in-memory.js";
import { TASKS_EXTENSION_ID } from "../../src/mcp/tasks.js";
import type { TaskStatus } from "../../src/state/task-store.js";
import { FIXTURES } from "../helpers.js";
import { hostFrom, serveLoopback } from "../serving.js";

const JOBS = path.join(FIXTURES, "skill-tasks");
const { held } = (await import(path.join(JOBS, "index.js"))) as {
  held: {
    purged: string[];
    runs: { label: string; release(value: unknown): void }[];
    aborted: unknown[];
    started(n: number): Promise<void>;
  };
};

/** Any result, as the server sent it. */
const ANY: StandardSchemaV1<unknown, Record<string, unknown>> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value: value as Record<string, unknown> }) },
};

const TASKS = { extensions: { [TASKS_EXTENSION_ID]: {} } };

const composition = (tasks: object = {}) => ({
  name: "tasks",
  version: "1.0.0",
  skills: [{ path: JOBS, mcp: "jobs", allow: ["purge"] }],
  // Every task-capable call becomes a task once its checks pass: nothing here depends on how fast a run answers.
  tasks: { immediateMs: 0, maxActivePerCaller: 3, maxResultBytes: 4096, ...tasks },
});

/** Resolves once the task reaches `status` (the store says so), or at once if it has. */
function reaches(host: Host, client: Client, taskId: string, status: TaskStatus): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const check = () =>
      call(client, "tasks/get", { taskId }).then((task) => {
        if (task.status !== status) return false;
        stop();
        resolve(task);
        return true;
      }, reject);
    const stop = host.tasks.watch((id, now) => {
      if (id === taskId && now === status) void check();
    });
    void check();
  });
}

/** A scratch folder for one describe's host, removed after it. */
async function folder(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function call(client: Client, method: string, params: Record<string, unknown>) {
  return client.request({ method, params } as never, ANY);
}

describe("the Tasks extension, in memory", () => {
  let host: Host;
  let client: Client;

  beforeAll(async () => {
    host = await hostFrom(await folder("skillport-tasks-"), composition());
    client = new Client({ name: "tasks-test", version: "0.0.0" }, { capabilities: { ...TASKS, elicitation: {} } });
    await client.connect(await connectInMemory(host));
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
  });

  it("lists a task-capable tool with its task support, and advertises the extension", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "jobs.hold")?.execution).toEqual({ taskSupport: "optional" });
    expect(tools.find((t) => t.name === "jobs.plain")?.execution).toBeUndefined();
    expect(client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION_ID]).toEqual({});
  });

  it("creates a task, answers tasks/get while it works, then inlines its result", async () => {
    const before = held.runs.length;
    const created = await call(client, "tools/call", { name: "jobs.hold", arguments: { label: "one" } });
    // (The 2025-era client drops `resultType: "task"` as it reads the answer.)
    expect(created).toMatchObject({ status: "working", ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(created).not.toHaveProperty("result");
    const taskId = created.taskId as string;
    expect(taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    await held.started(before + 1);
    expect(await call(client, "tasks/get", { taskId })).toMatchObject({ taskId, status: "working" });
    expect(await call(client, "tasks/get", { taskId })).not.toHaveProperty("result");

    held.runs[before]?.release(42);
    const done = await reaches(host, client, taskId, "completed");
    expect(done.result).toMatchObject({ structuredContent: { ok: true, data: { label: "one", value: 42 } } });
    expect(done).not.toHaveProperty("error");
  });

  it("cancels a task: an empty ack, the run's ctx.signal aborts, and the task ends cancelled", async () => {
    const before = held.runs.length;
    const aborted = held.aborted.length;
    const { taskId } = await call(client, "tools/call", { name: "jobs.hold", arguments: { label: "two" } });
    await held.started(before + 1);
    expect(await call(client, "tasks/cancel", { taskId })).toEqual({});
    const cancelled = await reaches(host, client, taskId as string, "cancelled");
    expect(held.aborted.length).toBe(aborted + 1);
    expect(cancelled).not.toHaveProperty("result");
    // Cancelling again (a finished task) answers the same.
    expect(await call(client, "tasks/cancel", { taskId })).toEqual({});
  });

  it("asks within a task: input_required with the open questions, answered one at a time, then a new round", async () => {
    const { taskId } = await call(client, "tools/call", { name: "jobs.ask", arguments: {} });
    const waiting = await reaches(host, client, taskId as string, "input_required");
    expect(Object.keys(waiting.inputRequests as object).sort()).toEqual(["confirm", "name"]);
    expect(waiting.inputRequests).toMatchObject({ name: { method: "elicitation/create" } });
    expect(waiting).not.toHaveProperty("requestState");

    expect(
      await call(client, "tasks/update", {
        taskId,
        inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
      }),
    ).toEqual({});
    const still = await call(client, "tasks/get", { taskId });
    expect(still.status).toBe("input_required");
    expect(Object.keys(still.inputRequests as object)).toEqual(["confirm"]);

    await call(client, "tasks/update", {
      taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    });
    const done = await reaches(host, client, taskId as string, "completed");
    expect(done.result).toMatchObject({ structuredContent: { ok: true, data: { name: "Ada", confirm: true } } });
  });

  it("keeps a tool's own error as a completed task with an error result", async () => {
    const { taskId } = await call(client, "tools/call", { name: "jobs.refuse", arguments: {} });
    const done = await reaches(host, client, taskId as string, "completed");
    expect(done.result).toMatchObject({ isError: true, structuredContent: { error: { code: "CONFLICT" } } });
  });

  it("fails a task whose tool threw something unexpected, with the message redacted like any", async () => {
    host.redactor.add(["token-0123456789abcdef"]);
    const { taskId } = await call(client, "tools/call", { name: "jobs.crash", arguments: {} });
    const failed = await reaches(host, client, taskId as string, "failed");
    expect(failed.error).toMatchObject({ code: -32603 });
    expect(JSON.stringify(failed)).not.toContain("token-0123456789abcdef");
    expect(failed).not.toHaveProperty("result");
  });

  it("keeps a result only up to tasks.maxResultBytes: a larger one becomes an error result saying so", async () => {
    const { taskId } = await call(client, "tools/call", { name: "jobs.big", arguments: { size: 100_000 } });
    const done = await reaches(host, client, taskId as string, "completed");
    expect(JSON.stringify(done).length).toBeLessThan(4096);
    expect(done.result).toMatchObject({ isError: true, structuredContent: { error: { code: "INTERNAL" } } });
    expect(JSON.stringify(done.result)).toContain("tasks.maxResultBytes");
  });

  it("makes no task for a call its checks refuse: the error comes back as a plain result", async () => {
    const answer = await call(client, "tools/call", { name: "jobs.hold", arguments: { label: "" } });
    expect(answer).not.toHaveProperty("taskId");
    expect(answer).toMatchObject({ isError: true, structuredContent: { error: { code: "ARGUMENT_INVALID" } } });
  });

  it("answers a task id it does not have with -32602", async () => {
    await expect(call(client, "tasks/get", { taskId: "no-such-task" })).rejects.toMatchObject({ code: -32602 });
    await expect(call(client, "tasks/cancel", { taskId: "no-such-task" })).rejects.toMatchObject({ code: -32602 });
  });

  it("refuses a caller's tasks past tasks.maxActivePerCaller (RATE_LIMITED), and takes new ones once they end", async () => {
    const before = held.runs.length;
    const ids: string[] = [];
    for (const label of ["a", "b", "c"]) {
      const created = await call(client, "tools/call", { name: "jobs.hold", arguments: { label } });
      ids.push(created.taskId as string);
    }
    await held.started(before + 3);
    const refused = await call(client, "tools/call", { name: "jobs.hold", arguments: { label: "d" } });
    expect(refused).not.toHaveProperty("taskId");
    expect(refused).toMatchObject({ isError: true, structuredContent: { error: { code: "RATE_LIMITED" } } });
    expect(held.runs.length).toBe(before + 3); // the refused call never ran

    await call(client, "tasks/cancel", { taskId: ids[0] });
    await reaches(host, client, ids[0] as string, "cancelled");
    const next = await call(client, "tools/call", { name: "jobs.hold", arguments: { label: "e" } });
    expect(next).toMatchObject({ status: "working" });
    for (const taskId of [ids[1], ids[2], next.taskId]) await call(client, "tasks/cancel", { taskId });
  });
});

describe("a dangerous task tool's confirmation (2025 era: the SDK asks the client)", () => {
  let host: Host;
  let client: Client;
  let answer: "accept" | "decline" = "accept";
  const asked: { message: string; purgedBefore: number }[] = [];

  beforeAll(async () => {
    host = await hostFrom(await folder("skillport-tasks-confirm-"), composition());
    client = new Client({ name: "confirm-test", version: "0.0.0" }, { capabilities: { ...TASKS, elicitation: {} } });
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push({ message: String(request.params.message), purgedBefore: held.purged.length });
      return answer === "accept" ? { action: "accept", content: { confirm: true } } : { action: "decline" };
    });
    await client.connect(await connectInMemory(host));
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
  });

  it("is asked before any task exists; the task is made once the user agreed", async () => {
    const before = held.purged.length;
    answer = "accept";
    const created = await call(client, "tools/call", { name: "jobs.purge", arguments: { label: "cache" } });
    expect(asked.at(-1)).toEqual({ message: expect.stringContaining("Purge cache"), purgedBefore: before });
    expect(created).toMatchObject({ status: "working" });
    const done = await reaches(host, client, created.taskId as string, "completed");
    expect(done.result).toMatchObject({ structuredContent: { ok: true, data: { purged: "cache" } } });
    expect(held.purged.slice(before)).toEqual(["cache"]);
  });

  it("makes no task, and runs nothing, when the user declines", async () => {
    const before = held.purged.length;
    answer = "decline";
    const refused = await call(client, "tools/call", { name: "jobs.purge", arguments: { label: "logs" } });
    expect(refused).not.toHaveProperty("taskId");
    expect(refused).toMatchObject({ isError: true });
    expect(held.purged.length).toBe(before);
  });
});

describe("the Tasks extension for a client that did not declare it", () => {
  let host: Host;
  let client: Client;

  beforeAll(async () => {
    host = await hostFrom(await folder("skillport-tasks-plain-"), composition());
    client = new Client({ name: "plain-test", version: "0.0.0" });
    await client.connect(await connectInMemory(host));
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
  });

  it("runs an optional task tool as a plain call, refuses a required one and the task methods with -32021", async () => {
    const before = held.runs.length;
    const answering = call(client, "tools/call", { name: "jobs.hold", arguments: { label: "plain" } });
    await held.started(before + 1);
    held.runs[before]?.release("now");
    expect(await answering).toMatchObject({ structuredContent: { ok: true, data: { value: "now" } } });

    const required = { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } };
    await expect(call(client, "tools/call", { name: "jobs.big", arguments: { size: 1 } })).rejects.toMatchObject({
      code: -32021,
      data: required,
    });
    for (const method of ["tasks/get", "tasks/cancel"]) {
      await expect(call(client, method, { taskId: "x" })).rejects.toMatchObject({ code: -32021 });
    }
  });
});

// Over 2025-era sessions: the official client (2.4.0) does not read a task in the 2026-07-28 era yet.
describe("a task belongs to its caller (HTTP sessions, two bearer tokens)", () => {
  const OWNER = "owner-token-7d1e4a9c2b6f";
  const OTHER = "other-token-3b8f6e2a9d1c";
  let host: Host;
  let close: () => Promise<void>;
  let url: string;

  beforeAll(async () => {
    const dir = await folder("skillport-tasks-http-");
    await writeFile(path.join(dir, "owner.token"), OWNER);
    await writeFile(path.join(dir, "other.token"), OTHER);
    host = await hostFrom(dir, {
      ...composition(),
      http: {
        sessions: true,
        auth: {
          tokens: [
            { name: "owner", token: { file: path.join(dir, "owner.token") } },
            { name: "other", token: { file: path.join(dir, "other.token") } },
          ],
        },
      },
    });
    const served = await serveLoopback(host);
    url = served.url;
    close = served.close;
  });
  afterAll(async () => {
    await close?.();
    await host?.close();
  });

  it("answers another caller's tasks/get and tasks/cancel as for a task that does not exist", async () => {
    const connect = async (token: string) => {
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
      const client = new Client({ name: "caller", version: "0.0.0" }, { capabilities: TASKS });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    const owner = await connect(OWNER);
    const other = await connect(OTHER);
    try {
      const before = held.runs.length;
      const { taskId } = await call(owner, "tools/call", { name: "jobs.hold", arguments: { label: "mine" } });
      await held.started(before + 1);
      const unknown = await call(other, "tasks/get", { taskId: "no-such-task" }).catch((e: unknown) => e);
      const theirs = await call(other, "tasks/get", { taskId }).catch((e: unknown) => e);
      expect(theirs).toMatchObject({ code: -32602 });
      expect((theirs as Error).message).toBe((unknown as Error).message);
      await expect(call(other, "tasks/cancel", { taskId })).rejects.toMatchObject({ code: -32602 });
      expect(await call(owner, "tasks/get", { taskId })).toMatchObject({ taskId, status: "working" });

      held.runs[before]?.release("ok");
      expect(await reaches(host, owner, taskId as string, "completed")).toMatchObject({
        result: { structuredContent: { data: { value: "ok" } } },
      });
    } finally {
      await owner.close();
      await other.close();
    }
  });
});

// The tools core answers a plain call over HTTP itself: a required task tool refused for a client without the
// extension must answer as the SDK's own path does (one more `_meta` key sends the same request there).
describe("a required task tool refused over HTTP, as the SDK answers it", () => {
  let host: Host;
  let close: () => Promise<void>;
  let url: string;

  beforeAll(async () => {
    host = await hostFrom(await folder("skillport-tasks-refused-"), composition());
    const served = await serveLoopback(host);
    url = served.url;
    close = served.close;
  });
  afterAll(async () => {
    await close?.();
    await host?.close();
  });

  const post = async (modern: boolean, meta: Record<string, unknown>) => {
    const envelope = modern
      ? {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        }
      : {};
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(modern ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "jobs.big" } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "jobs.big", arguments: { size: 1 }, _meta: { ...envelope, ...meta } },
      }),
    });
    const text = await response.text();
    const body = text.startsWith("event:") ? JSON.parse(text.split("data: ")[1] ?? "null") : JSON.parse(text);
    return { status: response.status, error: (body as { error?: unknown }).error };
  };

  it.each([
    ["2026-07-28", true],
    ["2025-11-25", false],
  ])("answers -32021 with the SDK's HTTP status (%s era)", async (_era, modern) => {
    const core = await post(modern, {});
    const sdk = await post(modern, { "example.com/route": "sdk" });
    expect(core.error).toMatchObject({ code: -32021 });
    expect(core).toEqual(sdk);
  });
});
