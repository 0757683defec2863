import type { HubEvent, HubWarning } from "@skillport/client";
import { McpHub } from "@skillport/client";
import { connect } from "@skillport/client/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scratch } from "./helpers.js";
import { fixtureSpec, logged, notesManifest, scratch, skillportStdio, startedPids, whenChanged } from "./helpers.js";

const text = (outcome: { ok: boolean; result?: { content: unknown[] } }) =>
  (outcome.result?.content[0] as { text?: string } | undefined)?.text;

describe("McpHub: many real servers as one", () => {
  let where: Scratch;
  beforeAll(async () => {
    where = await scratch();
  });
  afterAll(() => where.dispose());

  it("serves the union of the ready servers' tools under <id><separator><tool>, and calls each", async () => {
    const manifest = await notesManifest(where);
    const hub = new McpHub(
      new Map([
        ["fx", connect(fixtureSpec(where.file("union.log")))],
        ["sp", connect(skillportStdio(manifest))],
        ["down", connect({ transport: "stdio", command: "/nonexistent/skillport-client-test" })],
      ]),
      { onWarning: () => undefined, reconnect: { initialDelayMs: 60_000 } },
    );
    const started = await hub.start();
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    expect(Object.keys(started.failed)).toEqual(["down"]);
    const names = hub.listTools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["fx.echo", "fx.sleep", "sp.notes.search_notes", "sp.notes.read_note"]),
    );
    expect(names.some((n) => n.startsWith("down."))).toBe(false);
    const search = hub.listTools().find((t) => t.name === "sp.notes.search_notes");
    expect(search).toMatchObject({ server: "sp", tool: "notes.search_notes", inputSchema: { type: "object" } });
    expect(text(await hub.callTool("fx.echo", { text: "hi" }))).toBe("echo: hi");
    const found = await hub.callTool("sp.notes.search_notes", { keyword: "agent" });
    expect(found.ok).toBe(true);
    const refused = await hub.callTool("sp.notes.search_notes", { keyword: "a" });
    expect(refused).toMatchObject({ ok: false, error: { code: "TOOL_ERROR" } });
    expect(await hub.callTool("fx.nope")).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    const down = await hub.callTool("down.anything");
    expect(down).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(down.ok ? "" : down.error.message).toContain('server "down" is not available');
    await hub.stop();
    expect(hub.listTools()).toEqual([]);
  });

  it("one server crashing mid-call leaves another's call alone; the crashed one answers an error and comes back", async () => {
    const aLog = where.file("a.log");
    const bLog = where.file("b.log");
    const events: HubEvent[] = [];
    const hub = new McpHub(
      { a: connect(fixtureSpec(aLog)), b: connect(fixtureSpec(bLog)) },
      { reconnect: { initialDelayMs: 50, maxDelayMs: 200 } },
    );
    hub.subscribe((event) => events.push(event));
    expect((await hub.start()).ok).toBe(true);
    const aCall = hub.callTool("a.sleep", { ms: 60_000 });
    const bCall = hub.callTool("b.sleep", { ms: 700 });
    await Promise.all([logged(aLog, "sleeping"), logged(bLog, "sleeping")]);
    const [aPid] = await startedPids(aLog);
    process.kill(aPid as number, "SIGKILL");
    const aOutcome = await aCall;
    expect(aOutcome).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    // b's call, in flight while a died, answers normally.
    expect(text(await bCall)).toBe("slept");
    // While a is down its tools leave the union; b's stay.
    const changes = (wake: () => void) => hub.subscribe(wake);
    await whenChanged(changes, () => events.some((e) => e.type === "reconnect" && e.id === "a"));
    await logged(aLog, "start ", 2);
    await whenChanged(changes, () => hub.listTools().some((t) => t.name === "a.echo"));
    expect(text(await hub.callTool("a.echo", { text: "back" }))).toBe("echo: back");
    expect(await startedPids(bLog)).toHaveLength(1);
    const reconnects = events.filter((e) => e.type === "reconnect");
    expect(reconnects.every((e) => e.type === "reconnect" && e.id === "a")).toBe(true);
    await hub.stop();
  });

  it("reconnects with capped exponential backoff and jitter while a server keeps failing", async () => {
    const log = where.file("crashloop.log");
    const delays: number[] = [];
    const handle = connect({
      transport: "stdio",
      command: process.execPath,
      args: ["-e", `require("node:fs").appendFileSync(${JSON.stringify(log)}, "start\\n"); process.exit(1)`],
    });
    const hub = new McpHub(
      { loop: handle },
      { reconnect: { initialDelayMs: 20, maxDelayMs: 80, random: () => 0.5 }, onWarning: () => undefined },
    );
    hub.subscribe((e) => {
      if (e.type === "reconnect") delays.push(e.delayMs);
    });
    await hub.start();
    await whenChanged(
      (wake) => hub.subscribe(wake),
      () => delays.length >= 5,
    );
    expect(handle.state.error?.code).toBe("UNAVAILABLE");
    await hub.stop();
    // capped = min(80, 20·2^n); delay = capped/2 + random·capped/2 with random 0.5
    expect(delays.slice(0, 5)).toEqual([15, 30, 60, 60, 60]);
  });

  it("missing credentials: that server never spawns (no retry either), the others serve, and its secret reaches no one", async () => {
    const secretLog = where.file("secret.log");
    const plainLog = where.file("plain.log");
    const hub = new McpHub(
      {
        locked: connect(
          fixtureSpec(secretLog, {
            credentials: { token: { from: { env: "SKILLPORT_CLIENT_TEST_UNSET" }, to: { env: "API_TOKEN" } } },
          }),
        ),
        keyed: connect(
          fixtureSpec(where.file("keyed.log"), {
            credentials: { token: { from: { value: "keyed-secret-789" }, to: { env: "API_TOKEN" } } },
          }),
        ),
        plain: connect(fixtureSpec(plainLog)),
      },
      { reconnect: { initialDelayMs: 10, maxDelayMs: 10 } },
    );
    const started = await hub.start();
    expect(started.ok && started.failed.locked).toMatchObject({ code: "CREDENTIALS_MISSING", credential: "token" });
    const plainEnv = await hub.callTool("plain.env");
    expect(text(plainEnv)).not.toContain("keyed-secret-789");
    expect(JSON.parse(text(plainEnv) as string).API_TOKEN).toBeUndefined();
    expect(JSON.parse(text(await hub.callTool("keyed.env")) as string).API_TOKEN).toBe("keyed-secret-789");
    expect(hub.servers.get("plain")?.state.error).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await startedPids(secretLog)).toEqual([]);
    const refused = await hub.callTool("locked.echo", { text: "x" });
    expect(refused).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(refused.ok ? "" : refused.error.message).toContain("SKILLPORT_CLIENT_TEST_UNSET");
    await hub.stop();
  });

  it("two servers offering the same full name at start: the hub does not start, and says which", async () => {
    const hub = new McpHub(
      {
        a: connect(fixtureSpec(where.file("ca.log"), { env: { FIXTURE_TOOLS: "b_echo" } })),
        a_b: connect(fixtureSpec(where.file("cab.log"))),
      },
      { separator: "_" },
    );
    const started = await hub.start();
    expect(started).toMatchObject({ ok: false, error: { code: "CONFLICT" } });
    const message = started.ok ? "" : started.error.message;
    expect(message).toContain('"a_b_echo"');
    expect(message).toContain('"a" (tool "b_echo")');
    expect(message).toContain('"a_b" (tool "echo")');
    expect(hub.listTools()).toEqual([]);
    expect([...hub.servers.values()].every((h) => h.state.value === "idle")).toBe(true);
  });

  it("a run-time list change that collides: the server ready first keeps the name, with a warning naming both", async () => {
    const warnings: HubWarning[] = [];
    const hub = new McpHub(
      { x_y: connect(fixtureSpec(where.file("first.log"))) },
      {
        separator: "_",
        onWarning: (w) => warnings.push(w),
      },
    );
    expect((await hub.start()).ok).toBe(true);
    hub.add("x", connect(fixtureSpec(where.file("second.log"))));
    await whenChanged(
      (wake) => hub.subscribe(wake),
      () => hub.listTools().some((t) => t.name === "x_echo"),
    );
    expect(text(await hub.callTool("x_add_tool", { name: "y_echo" }))).toBe("added y_echo");
    await whenChanged(
      (wake) => hub.subscribe(wake),
      () => warnings.length > 0,
    );
    expect(warnings[0]).toMatchObject({
      code: "NAME_COLLISION",
      name: "x_y_echo",
      kept: { server: "x_y", tool: "echo" },
      hidden: { server: "x", tool: "y_echo" },
    });
    expect(warnings[0]?.message).toContain('"x_y"');
    expect(warnings[0]?.message).toContain('"x"');
    expect(text(await hub.callTool("x_y_echo", { text: "who" }))).toBe("echo: who");
    expect(hub.listTools().filter((t) => t.name === "x_y_echo")).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    await hub.stop();
  });

  it("…and a configured server wins over a bundled one even when its name is the new one", async () => {
    const warnings: HubWarning[] = [];
    const hub = new McpHub(
      { x_y: { handle: connect(fixtureSpec(where.file("bundled.log"))), origin: "bundled" } },
      { separator: "_", onWarning: (w) => warnings.push(w) },
    );
    expect((await hub.start()).ok).toBe(true);
    hub.add("x", { handle: connect(fixtureSpec(where.file("configured.log"))), origin: "configured" });
    await whenChanged(
      (wake) => hub.subscribe(wake),
      () => hub.listTools().some((t) => t.name === "x_echo"),
    );
    await hub.callTool("x_add_tool", { name: "y_echo" });
    await whenChanged(
      (wake) => hub.subscribe(wake),
      () => warnings.length > 0,
    );
    expect(warnings[0]).toMatchObject({
      name: "x_y_echo",
      kept: { server: "x", origin: "configured", tool: "y_echo" },
      hidden: { server: "x_y", origin: "bundled", tool: "echo" },
    });
    expect(text(await hub.callTool("x_y_echo", { text: "who" }))).toBe("y_echo: who");
    await hub.stop();
  });

  it("starts a server lazily on the first call to one of its tools, and only that server", async () => {
    const aLog = where.file("lazy-a.log");
    const bLog = where.file("lazy-b.log");
    const hub = new McpHub({ a: connect(fixtureSpec(aLog)), b: connect(fixtureSpec(bLog)) });
    expect(text(await hub.callTool("a.echo", { text: "lazy" }))).toBe("echo: lazy");
    expect(await startedPids(aLog)).toHaveLength(1);
    expect(await startedPids(bLog)).toEqual([]);
    await hub.stop();
  });
});
