import { connect } from "@skillport/client/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scratch } from "./helpers.js";
import { fixtureSpec, gone, logged, scratch, startedPids, whenChanged } from "./helpers.js";

describe("a handle's life, against a real server process", () => {
  let where: Scratch;
  beforeAll(async () => {
    where = await scratch();
  });
  afterAll(() => where.dispose());

  it("opens nothing until asked: no process before the first start", async () => {
    const log = where.file("lazy.log");
    const handle = connect(fixtureSpec(log));
    expect(handle.transport).toBe("stdio");
    expect(handle.state.value).toBe("idle");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await startedPids(log)).toEqual([]);
    const called = await handle.callTool("echo", { text: "hi" });
    expect(called).toMatchObject({ ok: true, result: { content: [{ type: "text", text: "echo: hi" }] } });
    expect(await startedPids(log)).toHaveLength(1);
    await handle.stop();
  });

  it("ten concurrent start() calls spawn one process and all answer the same tools", async () => {
    const log = where.file("ten.log");
    const handle = connect(fixtureSpec(log));
    const results = await Promise.all(Array.from({ length: 10 }, () => handle.start()));
    expect(results.every((r) => r.ok)).toBe(true);
    const names = results.map((r) => (r.ok ? r.tools.map((t) => t.name) : []));
    expect(new Set(names.map((n) => n.join())).size).toBe(1);
    expect(names[0]).toEqual(expect.arrayContaining(["echo", "env", "sleep", "add_tool"]));
    expect(await startedPids(log)).toHaveLength(1);
    // On a ready handle start() opens nothing and still notices the connection's end (its listeners are attached).
    expect((await handle.start()).ok).toBe(true);
    expect(await startedPids(log)).toHaveLength(1);
    const [pid] = await startedPids(log);
    process.kill(pid as number, "SIGKILL");
    await whenChanged(
      (wake) => handle.state.subscribe(wake),
      () => handle.state.value === "error",
    );
    expect(handle.state.error).toMatchObject({ code: "UNAVAILABLE" });
    expect(handle.state.error?.message).toContain(`pid ${pid}`);
    await handle.stop();
  });

  it("a missing credential spawns nothing, and the state names the credential and where it comes from", async () => {
    const log = where.file("credential.log");
    const handle = connect(
      fixtureSpec(log, {
        credentials: { token: { from: { env: "SKILLPORT_CLIENT_TEST_UNSET" }, to: { env: "TOKEN" } } },
      }),
    );
    const snapshots: string[] = [];
    handle.state.subscribe((s) => snapshots.push(s.value));
    const results = await Promise.all([handle.start(), handle.callTool("echo", { text: "x" }), handle.listTools()]);
    for (const result of results) {
      expect(result).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING", credential: "token" } });
    }
    expect(handle.state.value).toBe("error");
    expect(handle.state.error?.credential).toBe("token");
    expect(handle.state.error?.message).toContain("SKILLPORT_CLIENT_TEST_UNSET");
    expect(snapshots).toContain("error");
    expect(await startedPids(log)).toEqual([]);
  });

  it("gives the child exactly its explicit environment and credentials, nothing of this process's", async () => {
    const log = where.file("env.log");
    process.env.SKILLPORT_CLIENT_TEST_SECRET = "parent-secret-value-123";
    try {
      const handle = connect(
        fixtureSpec(log, {
          env: { GREETING: "hello" },
          inheritEnv: ["SKILLPORT_CLIENT_TEST_ABSENT"],
          credentials: {
            token: { from: { value: "token-value-456" }, to: { env: "API_TOKEN" } },
            extra: { from: { env: "SKILLPORT_CLIENT_TEST_UNSET" }, to: { env: "EXTRA" }, optional: true },
          },
        }),
      );
      const called = await handle.callTool("env");
      expect(called.ok).toBe(true);
      const env = JSON.parse(((called.ok ? called.result.content[0] : undefined) as { text?: string })?.text ?? "{}");
      // Node may add nothing but what it was given; a few platform variables are allowed to appear.
      const own = Object.keys(env).filter((k) => !["FIXTURE_LOG"].includes(k));
      expect(own.sort()).toEqual(["API_TOKEN", "GREETING"]);
      expect(env).toMatchObject({ GREETING: "hello", API_TOKEN: "token-value-456" });
      expect(JSON.stringify(env)).not.toContain("parent-secret-value-123");
      expect(env.PATH).toBeUndefined();
      expect(env.HOME).toBeUndefined();
      await handle.stop();
    } finally {
      delete process.env.SKILLPORT_CLIENT_TEST_SECRET;
    }
  });

  it("kill the server mid-call: the call answers UNAVAILABLE, the state says why, and a new start works", async () => {
    const log = where.file("kill.log");
    const handle = connect(fixtureSpec(log));
    const call = handle.callTool("sleep", { ms: 60_000 });
    await logged(log, "sleeping");
    const [pid] = await startedPids(log);
    process.kill(pid as number, "SIGKILL");
    const outcome = await call;
    expect(outcome).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(outcome.ok ? "" : outcome.error.message).toContain("connection closed");
    expect(handle.state.value).toBe("error");
    const again = await handle.callTool("echo", { text: "back" });
    expect(again.ok).toBe(true);
    expect(await startedPids(log)).toHaveLength(2);
    await handle.stop();
  });

  it("cancel: the signal aborts the call, the server is told, and other calls go on", async () => {
    const log = where.file("cancel.log");
    const handle = connect(fixtureSpec(log));
    const controller = new AbortController();
    const call = handle.callTool("sleep", { ms: 60_000 }, { signal: controller.signal });
    await logged(log, "sleeping");
    controller.abort();
    expect(await call).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    await logged(log, "cancelled");
    expect(handle.state.value).toBe("ready");
    expect(await handle.callTool("echo", { text: "still" })).toMatchObject({ ok: true });
    // Already aborted: nothing is sent.
    const aborted = await handle.callTool("echo", { text: "x" }, { signal: AbortSignal.abort() });
    expect(aborted).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    await handle.stop();
  });

  it("a timeout answers TIMEOUT well before the tool's own end, and the server is told to cancel", async () => {
    const log = where.file("timeout.log");
    const handle = connect(fixtureSpec(log));
    expect((await handle.start()).ok).toBe(true);
    const outcome = await handle.callTool("sleep", { ms: 60_000 }, { timeoutMs: 300 });
    expect(outcome).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    await logged(log, "cancelled");
    await handle.stop();
  });

  it("a tool's own failure is TOOL_ERROR with its result; an unknown tool is a value too", async () => {
    const handle = connect(fixtureSpec(where.file("errors.log")));
    const failed = await handle.callTool("fail", { why: "on purpose" });
    expect(failed).toMatchObject({ ok: false, error: { code: "TOOL_ERROR" }, result: { isError: true } });
    expect(failed.ok ? "" : failed.error.message).toContain("on purpose");
    const unknown = await handle.callTool("no_such_tool", {});
    expect(unknown.ok).toBe(false);
    expect(unknown.ok ? "" : unknown.error.message).toContain("no_such_tool");
    await handle.stop();
  });

  it("stop() while starting: the start answers UNAVAILABLE, the state is idle, and no process is left", async () => {
    const log = where.file("stop-starting.log");
    const handle = connect(fixtureSpec(log));
    const starting = handle.start();
    await handle.stop();
    expect(await starting).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(handle.state.value).toBe("idle");
    for (const pid of await startedPids(log)) await gone(pid);
    // And the next start opens a new connection.
    expect((await handle.start()).ok).toBe(true);
    await handle.stop();
  });

  it("a command that does not exist answers UNAVAILABLE at start, naming it", async () => {
    const handle = connect({ transport: "stdio", command: "/nonexistent/skillport-client-test" });
    const started = await handle.start();
    expect(started).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(started.ok ? "" : started.error.message).toContain("ENOENT");
  });

  it("state is observable: subscribe and for-await see starting, ready, the list change, and idle after stop", async () => {
    const handle = connect(fixtureSpec(where.file("observe.log")));
    const seen: string[] = [];
    const iterated: string[] = [];
    handle.state.subscribe((s) => seen.push(`${s.value}:${s.change}`));
    const loop = (async () => {
      for await (const snapshot of handle.state) {
        iterated.push(`${snapshot.value}:${snapshot.change}`);
        if (snapshot.value === "idle" && iterated.length > 1) break;
      }
    })();
    expect((await handle.start()).ok).toBe(true);
    await handle.callTool("add_tool", { name: "late_tool" });
    await whenChanged(
      (wake) => handle.state.subscribe(wake),
      () => handle.state.tools?.some((t) => t.name === "late_tool") === true,
    );
    await handle.stop();
    await loop;
    expect(seen).toEqual(["starting:state", "ready:state", "ready:tools", "idle:state"]);
    expect(iterated).toEqual(["idle:state", ...seen]);
  });

  it("stops itself after idleTimeoutMs without calls, never during one, and starts again on the next call", async () => {
    const log = where.file("idle.log");
    const handle = connect(fixtureSpec(log, { idleTimeoutMs: 150 }));
    const long = await handle.callTool("sleep", { ms: 600 });
    expect(long).toMatchObject({ ok: true });
    const [pid] = await startedPids(log);
    await whenChanged(
      (wake) => handle.state.subscribe(wake),
      () => handle.state.value === "idle",
    );
    await gone(pid as number);
    expect((await handle.callTool("echo", { text: "again" })).ok).toBe(true);
    expect(await startedPids(log)).toHaveLength(2);
    await handle.stop();
  });
});
