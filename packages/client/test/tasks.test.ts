// Calls the server runs as tasks (the MCP Tasks extension), through a real Skillport host: in this process (inproc,
// the 2025-11-25 era) and over HTTP (`skillport serve --http`, both eras). The host's fixture skill has tools that
// end at once as tasks (`big`, `refuse`, `crash`), one that asks two questions (`ask`) and one that runs until it is
// cancelled (`hold`): nothing here waits on a clock but the handle's own polling, at the server's pollIntervalMs.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { CallToolOutcome, McpHandle } from "@skillport/client";
import { McpHub } from "@skillport/client";
import { connect } from "@skillport/client/node";
import { untilLines } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scratch, ServedHttp } from "./helpers.js";
import { REPO, scratch, serveHttp } from "./helpers.js";

const CLI = path.join(REPO, "packages/cli/bin/skillport.js");
const JOBS = path.join(REPO, "packages/host/test/fixtures/skill-tasks");
const PROGRESS = path.join(REPO, "packages/client/test/fixtures/skill-progress");

/** Every task-capable call becomes a task once its checks pass, polled as often as the host allows. */
const MANIFEST = {
  name: "client-tasks",
  version: "1.0.0",
  skills: [{ path: JOBS, mcp: "jobs" }],
  tasks: { immediateMs: 0, pollIntervalMs: 100 },
  http: { sessions: true },
};

const data = (outcome: CallToolOutcome) =>
  (outcome.result?.structuredContent as { data?: Record<string, unknown> } | undefined)?.data;

/** The tests every transport and era passes, on a handle of a host serving MANIFEST. */
function tasksOn(open: () => McpHandle) {
  let handle: McpHandle;
  beforeAll(() => {
    handle = open();
  });
  afterAll(() => handle.stop());

  it("waits for a task and answers as a plain call: the result, a tool's error, a failed run", async () => {
    const statuses: string[] = [];
    const big = await handle.callTool("jobs.big", { size: 3 }, { onTaskStatus: (t) => statuses.push(t.status) });
    expect(big).toMatchObject({ ok: true });
    expect(data(big)).toEqual({ text: "xxx" });
    expect(statuses.at(-1)).toBe("completed");

    const refused = await handle.callTool("jobs.refuse");
    expect(refused).toMatchObject({ ok: false, error: { code: "TOOL_ERROR" }, result: { isError: true } });
    expect(refused.ok ? "" : refused.error.message).toContain("already done");
    expect(refused.ok ? undefined : refused.error.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const crashed = await handle.callTool("jobs.crash");
    expect(crashed).toMatchObject({ ok: false, error: { code: "PROTOCOL_ERROR", rpcCode: -32603 } });
    expect(crashed.result).toBeUndefined();

    expect(data(await handle.callTool("jobs.plain"))).toEqual({ plain: true });
  });

  it("hands back a task: its status, one poll, cancel reaching the run, and its outcome", async () => {
    const called = await handle.callTool("jobs.hold", { label: "h" }, { task: "handle" });
    expect(called.ok && called.task !== undefined).toBe(true);
    if (!called.ok || called.task === undefined) return;
    const { task } = called;
    expect(task.info).toMatchObject({ taskId: task.taskId, status: "working", pollIntervalMs: 100 });
    expect(await task.get()).toMatchObject({ ok: true, task: { status: "working" } });
    expect(await task.cancel()).toMatchObject({ ok: true, task: { status: "cancelled" } });
    expect(await task.result()).toMatchObject({ ok: false, error: { code: "CANCELLED", taskId: task.taskId } });

    // A call the server answers at once is the call's own outcome, with no task.
    const plain = await handle.callTool("jobs.plain", {}, { task: "handle" });
    expect(plain.task).toBeUndefined();
    expect(plain).toMatchObject({ ok: true, result: { structuredContent: { ok: true } } });
  });

  it("answers a task's questions through onInputRequired (tasks/update), or cancels it with INPUT_REQUIRED", async () => {
    const asked: string[][] = [];
    const answered = await handle.callTool(
      "jobs.ask",
      {},
      {
        onInputRequired: (requests) => {
          asked.push(Object.keys(requests).sort());
          return {
            name: { action: "accept", content: { name: "Ada" } },
            confirm: { action: "accept", content: { confirm: true } },
          };
        },
      },
    );
    expect(asked).toEqual([["confirm", "name"]]);
    expect(data(answered)).toEqual({ name: "Ada", confirm: true });

    const unanswered = await handle.callTool("jobs.ask", {}, { task: "handle" });
    if (!unanswered.ok || unanswered.task === undefined) throw new Error("expected a task");
    const outcome = await unanswered.task.result();
    expect(outcome).toMatchObject({ ok: false, error: { code: "INPUT_REQUIRED" } });
    expect(outcome.ok ? "" : outcome.error.message).toContain("confirm, name");
    expect(await unanswered.task.get()).toMatchObject({ ok: true, task: { status: "cancelled" } });
  });

  it("bounds the wait: the caller's signal and timeoutMs cancel the task on the server", async () => {
    const held = await handle.callTool("jobs.hold", { label: "signal" }, { task: "handle" });
    if (!held.ok || held.task === undefined) throw new Error("expected a task");
    const controller = new AbortController();
    const waiting = held.task.result({ signal: controller.signal });
    controller.abort();
    expect(await waiting).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    expect(await held.task.get()).toMatchObject({ ok: true, task: { status: "cancelled" } });

    const timedOut = await handle.callTool("jobs.hold", { label: "slow" }, { timeoutMs: 250, task: "handle" });
    if (!timedOut.ok || timedOut.task === undefined) throw new Error("expected a task");
    expect(await timedOut.task.result({ timeoutMs: 250 })).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    expect(await timedOut.task.get()).toMatchObject({ ok: true, task: { status: "cancelled" } });
  });
}

describe("tasks through a Skillport host in this process (inproc, 2025-11-25)", () => {
  tasksOn(() => connect({ transport: "inproc", manifest: MANIFEST, logLevel: "silent" }));

  it("declares nothing with tasks: false: a tool that runs only as a task is refused (-32021)", async () => {
    const handle = connect({ transport: "inproc", manifest: MANIFEST, logLevel: "silent", tasks: false });
    expect(await handle.callTool("jobs.big", { size: 1 })).toMatchObject({
      ok: false,
      error: { code: "PROTOCOL_ERROR", rpcCode: -32021 },
    });
    await handle.stop();
  });

  it("stop() ends a wait with UNAVAILABLE, and opens no new connection for it", async () => {
    const handle = connect({ transport: "inproc", manifest: MANIFEST, logLevel: "silent" });
    const held = await handle.callTool("jobs.hold", { label: "stopped" }, { task: "handle" });
    if (!held.ok || held.task === undefined) throw new Error("expected a task");
    const waiting = held.task.result();
    await handle.stop();
    expect(await waiting).toMatchObject({ ok: false, error: { code: "UNAVAILABLE", taskId: held.task.taskId } });
    expect(handle.state.value).toBe("idle");
  });

  it("McpHub waits for a server's task, or hands it back", async () => {
    const hub = new McpHub({ h: connect({ transport: "inproc", manifest: MANIFEST, logLevel: "silent" }) });
    expect(data(await hub.callTool("h.jobs.big", { size: 2 }))).toEqual({ text: "xx" });
    const held = await hub.callTool("h.jobs.hold", { label: "hub" }, { task: "handle" });
    if (!held.ok || held.task === undefined) throw new Error("expected a task");
    expect(await held.task.cancel()).toMatchObject({ ok: true, task: { status: "cancelled" } });
    await hub.stop();
  });
});

describe("tasks over HTTP (skillport serve --http)", () => {
  let where: Scratch;
  let served: ServedHttp;
  let url = "";

  beforeAll(async () => {
    where = await scratch();
    const manifest = where.file("skills.manifest.json");
    await writeFile(manifest, JSON.stringify(MANIFEST));
    served = serveHttp(manifest);
    url = await served.url;
  });
  afterAll(async () => {
    await served?.stop();
    await where?.dispose();
  });

  describe.each(["2026-07-28", "2025-11-25"] as const)("the %s era", (protocol) => {
    tasksOn(() => connect({ transport: "http", url, protocol }));
  });
});

describe("an upstream server's task tools through a Skillport host (pass-through)", () => {
  let where: Scratch;
  let handle: McpHandle;
  let audit = "";

  beforeAll(async () => {
    where = await scratch();
    const inner = where.file("inner.manifest.json");
    audit = where.file("inner-audit.log");
    const skills = [...MANIFEST.skills, { path: PROGRESS, mcp: "p" }];
    await writeFile(inner, JSON.stringify({ ...MANIFEST, skills, audit: { file: audit } }));
    const servers = [
      {
        mcp: "up",
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "--manifest", inner],
        env: { SKILLPORT_LOG_LEVEL: "silent" },
      },
    ];
    const outer = { name: "outer", version: "1.0.0", skills: [], servers, tasks: MANIFEST.tasks };
    handle = connect({ transport: "inproc", manifest: outer, dir: where.dir, logLevel: "silent" });
  });
  afterAll(async () => {
    await handle?.stop();
    await where?.dispose();
  });

  it("lists the upstream's task support, and relays a call as a task: its result, and its cancel", async () => {
    const started = await handle.start();
    const tools = started.ok ? started.tools : [];
    expect(tools.find((t) => t.name === "up.jobs.hold")?.execution).toEqual({ taskSupport: "optional" });
    expect(tools.find((t) => t.name === "up.jobs.big")?.execution).toEqual({ taskSupport: "required" });
    expect(tools.find((t) => t.name === "up.jobs.plain")?.execution).toBeUndefined();

    const big = await handle.callTool("up.jobs.big", { size: 4 });
    expect(data(big)).toEqual({ text: "xxxx" });

    const held = await handle.callTool("up.jobs.hold", { label: "relayed" }, { task: "handle" });
    if (!held.ok || held.task === undefined) throw new Error("expected a task");
    expect(await held.task.cancel()).toMatchObject({ ok: true, task: { status: "cancelled" } });
    // The cancel reached the upstream's own run, even one cancelled as the upstream made its task: its audit says so.
    await untilLines(audit, (lines) => lines.some((l) => l.includes('"jobs.hold"') && l.includes("CANCELLED")));
  });

  it("relays the upstream task's status message as the host task's own", async () => {
    const called = await handle.callTool("up.p.halfway", {}, { task: "handle" });
    if (!called.ok || called.task === undefined) throw new Error("expected a task");
    const { task } = called;
    const said: string[] = [];
    const outcome = await task.result({
      onTaskStatus: ({ statusMessage }) => {
        if (statusMessage === undefined) return;
        said.push(statusMessage);
        void task.cancel();
      },
    });
    expect(said[0]).toBe("halfway");
    expect(outcome).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
  });
});
