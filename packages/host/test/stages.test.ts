// Each stage of the call pipeline on its own: a call goes in, the same call (enriched) or an answer comes out.
import pino from "pino";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { ToolEntry } from "../src/entries/tool-entry.js";
import type { Answered, Call, LoadedCall, MigratedCall, ValidatedCall } from "../src/pipeline/call.js";
import { isAnswered } from "../src/pipeline/call.js";
import { createConfirmations } from "../src/pipeline/confirmations.js";
import { authorize } from "../src/pipeline/stages/authorize.js";
import { createConfirm } from "../src/pipeline/stages/confirm.js";
import { createEnsureLoaded } from "../src/pipeline/stages/ensure-loaded.js";
import { createExecute } from "../src/pipeline/stages/execute.js";
import { createMigrate } from "../src/pipeline/stages/migrate.js";
import { createShape } from "../src/pipeline/stages/shape.js";
import { createValidate } from "../src/pipeline/stages/validate.js";
import { createValidators } from "../src/pipeline/validators.js";
import { createRedactor } from "../src/redaction/redactor.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import type { Registry } from "../src/registry/registry.js";
import { createAjv } from "../src/schema/ajv.js";
import { ECHO, manifestOf, NEEDS_TOKEN, silentLogger } from "./helpers.js";

let registry: Registry;
const validators = createValidators(
  createAjv({ firstError: true }),
  createAjv({ firstError: true, fillDefaults: false }),
);
const logger = silentLogger();

beforeAll(async () => {
  registry = await buildRegistry(
    manifestOf({
      skills: [
        { path: ECHO, allow: ["wipe"], scopes: { wipe: ["disks:wipe"] }, concurrency: 1, queue: 0 },
        { path: NEEDS_TOKEN, credentials: { token: { env: "SKILLPORT_STAGES_UNSET" } } },
      ],
    }),
  );
});

function entry(name: string): ToolEntry {
  const found = registry.tools.get(name);
  if (found === undefined) throw new Error(`no ${name} in the fixture`);
  return found;
}

function call(name: string, input: unknown, options: Call["options"] = {}): Call {
  return { entry: entry(name), traceId: "t", startedAt: performance.now(), options, input };
}

async function loaded(name: string, input: unknown, options: Call["options"] = {}): Promise<LoadedCall> {
  const c = call(name, input, options);
  return { ...c, runnable: await c.entry.resolve() };
}

async function validated(name: string, input: Record<string, unknown>, options: Call["options"] = {}) {
  const migrated: MigratedCall = {
    ...(await loaded(name, input, options)),
    input,
    operationId: undefined,
    warnings: [],
  };
  const out = createValidate(validators, logger)(migrated);
  if (isAnswered(out)) throw new Error(out.outcome.envelope.message);
  return out;
}

function answered(value: Call | Answered): Answered {
  if (!isAnswered(value)) throw new Error("the stage passed the call on");
  return value;
}

describe("authorize", () => {
  it("passes a call whose caller holds the tool's scopes, or a local call", () => {
    const local = call("echo.wipe", {});
    expect(authorize(local)).toBe(local);
    const holder = call("echo.wipe", {}, { caller: { id: "token:ops", scopes: ["disks:wipe"] } });
    expect(authorize(holder)).toBe(holder);
  });

  it("answers PERMISSION_DENIED naming the missing scope, and CREDENTIALS_MISSING naming what to set", () => {
    const denied = answered(authorize(call("echo.wipe", {}, { caller: { id: "token:ci", scopes: [] } })));
    expect(denied.outcome).toMatchObject({ stage: "authorize", envelope: { error: { code: "PERMISSION_DENIED" } } });
    expect(denied.outcome.envelope.message).toContain("disks:wipe");
    const missing = answered(authorize(call("needy.use_token", {})));
    expect(missing.outcome.envelope).toMatchObject({ error: { code: "CREDENTIALS_MISSING" } });
    expect(missing.outcome.envelope.message).toContain("SKILLPORT_STAGES_UNSET");
  });
});

describe("ensure loaded", () => {
  it("adds the entry's runnable, the same object every call", async () => {
    const ensureLoaded = createEnsureLoaded(logger);
    const first = await ensureLoaded(call("echo.echo", {}));
    const second = await ensureLoaded(call("echo.echo", {}));
    expect(isAnswered(first) || isAnswered(second)).toBe(false);
    expect((first as LoadedCall).runnable).toBe((second as LoadedCall).runnable);
  });

  it("answers UNAVAILABLE with the cause when the entry cannot resolve, and logs it once per instance", async () => {
    const lines: string[] = [];
    const ensureLoaded = createEnsureLoaded(pino({ level: "error" }, { write: (l: string) => lines.push(l) }));
    const broken = {
      ...entry("echo.echo"),
      resolved: undefined,
      resolve: () => Promise.reject(new Error("the package is gone")),
    };
    for (let i = 0; i < 2; i++) {
      const out = answered(await ensureLoaded({ ...call("echo.echo", {}), entry: broken }));
      expect(out.outcome).toMatchObject({ stage: "ensure-loaded", envelope: { error: { code: "UNAVAILABLE" } } });
      expect(out.outcome.envelope.message).toContain("the package is gone");
    }
    expect(lines).toHaveLength(1);
  });
});

describe("migrate", () => {
  const migrate = createMigrate(validators, logger);

  it.each([
    ["an array", [1]],
    ["a string", "text"],
  ])("refuses %s as arguments", async (_case, input) => {
    const out = answered(migrate(await loaded("echo.echo", input)));
    expect(out.outcome.envelope).toMatchObject({ error: { code: "ARGUMENT_INVALID", field: "/" } });
  });

  it("refuses arguments nested deeper than 64 levels, naming where", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = { a: deep };
    const out = answered(migrate(await loaded("echo.echo", deep)));
    expect(out.outcome.envelope).toMatchObject({ error: { code: "ARGUMENT_INVALID", field: "/a".repeat(64) } });
  });

  it("splits the host's _confirm off a dangerous tool's arguments only", async () => {
    const out = migrate(await loaded("echo.wipe", { target: "disk", _confirm: "op-1" })) as MigratedCall;
    expect(out).toMatchObject({ input: { target: "disk" }, operationId: "op-1" });
    const plain = migrate(await loaded("echo.echo", { text: "x", _confirm: "op-1" })) as MigratedCall;
    expect(plain).toMatchObject({ input: { text: "x", _confirm: "op-1" }, operationId: undefined });
  });

  it("migrates a legacy shape with its note, and leaves the current shape alone", async () => {
    expect(migrate(await loaded("echo.find", { query: "agents" }))).toMatchObject({
      input: { keyword: "agents" },
      warnings: ['"query" is deprecated; send "keyword"'],
    });
    expect(migrate(await loaded("echo.find", { keyword: "agents" }))).toMatchObject({
      input: { keyword: "agents" },
      warnings: [],
    });
  });
});

describe("validate", () => {
  it("fills in defaults and escapes invisible characters in the brief", async () => {
    const out = await validated("echo.wipe", { target: "a\u202Eb" });
    expect(out.brief).toBe("Wipe a\\u{202E}b");
    expect((await validated("echo.echo", { text: "x" })).args).toEqual({ text: "x", times: 1 });
  });

  it("escapes each line of a brief of several lines, keeping only the breaks between them", async () => {
    const migrated: MigratedCall = {
      ...(await loaded("echo.wipe", { target: "x" })),
      input: { target: "x" },
      operationId: undefined,
      warnings: [],
    };
    const lines = ["Call wipe on disks with 1 argument:", '  target: "a\u202Eb"', "  a line's own\nbreak"];
    const out = createValidate(
      validators,
      logger,
    )({ ...migrated, runnable: { ...migrated.runnable, brief: () => lines } });
    if (isAnswered(out)) throw new Error(out.outcome.envelope.message);
    expect(out.brief).toBe(
      'Call wipe on disks with 1 argument:\n  target: "a\\u{202E}b"\n  a line\'s own\\u{000A}break',
    );
  });

  it("answers ARGUMENT_INVALID with the first problem's field", async () => {
    const migrated: MigratedCall = {
      ...(await loaded("echo.echo", {})),
      input: { text: 3, times: 9 },
      operationId: undefined,
      warnings: [],
    };
    const out = answered(createValidate(validators, logger)(migrated));
    expect(out.outcome.envelope).toMatchObject({ error: { code: "ARGUMENT_INVALID", field: "/text" } });
  });
});

describe("confirm", () => {
  const confirm = createConfirm({ confirmations: createConfirmations(), fallback: "refuse" });

  it("passes a tool that is not dangerous without asking", async () => {
    const c = await validated("echo.echo", { text: "x" });
    expect(await confirm(c)).toBe(c);
  });

  it("asks in process and passes on yes, refuses on no, and refuses without a way to ask", async () => {
    const asked: string[] = [];
    const yes = await validated(
      "echo.wipe",
      { target: "tmp" },
      {
        confirmation: { ask: async (q) => asked.push(q.message) > 0 },
      },
    );
    expect(isAnswered(await confirm(yes))).toBe(false);
    const no = await validated("echo.wipe", { target: "tmp" }, { confirmation: { ask: async () => false } });
    expect(answered(await confirm(no)).outcome.envelope).toMatchObject({ error: { code: "PERMISSION_DENIED" } });
    const nobody = answered(await confirm(await validated("echo.wipe", { target: "tmp" })));
    expect(nobody.outcome.envelope).toMatchObject({ error: { code: "CONFIRMATION_REQUIRED", retryable: false } });
    expect(asked).toEqual(["echo.wipe wants to: Wipe tmp. Allow it?"]);
  });

  it("asks with a brief of several lines as it is, the question on a line of its own", async () => {
    const asked: string[] = [];
    const c = await validated(
      "echo.wipe",
      { target: "tmp" },
      { confirmation: { ask: async (q) => asked.push(q.message) > 0 } },
    );
    expect(isAnswered(await confirm({ ...c, brief: 'Call wipe on disks with 1 argument:\n  target: "tmp"' }))).toBe(
      false,
    );
    expect(asked).toEqual(['echo.wipe wants to: Call wipe on disks with 1 argument:\n  target: "tmp"\nAllow it?']);
  });
});

describe("execute", () => {
  const execute = createExecute({ logger, redactor: createRedactor() });

  it("adds what the capability returned", async () => {
    expect(await execute(await validated("echo.plain", {}))).toMatchObject({ value: { n: 1 } });
  });

  it("answers TIMEOUT at the entry's limit, and RATE_LIMITED past the instance's slots and queue", async () => {
    const slow: ValidatedCall = await validated("echo.sleep", { ms: 10_000 });
    // Time is the subject: the clock is moved to the limit, not waited out.
    vi.useFakeTimers();
    try {
      const timing = execute({ ...slow, entry: { ...slow.entry, timeoutMs: 50 } });
      await vi.advanceTimersByTimeAsync(50);
      const timed = answered(await timing);
      expect(timed.outcome).toMatchObject({ stage: "execute", envelope: { error: { code: "TIMEOUT" } } });
    } finally {
      vi.useRealTimers();
    }
    const cancel = new AbortController();
    const holding = execute({ ...slow, options: { signal: cancel.signal } });
    const busy = answered(await execute(await validated("echo.echo", { text: "x" })));
    expect(busy.outcome.envelope).toMatchObject({ error: { code: "RATE_LIMITED", retryable: true } });
    cancel.abort();
    expect(answered(await holding).outcome.envelope).toMatchObject({ error: { code: "CANCELLED" } });
  });
});

describe("shape", () => {
  it("answers the success envelope, warnings first", async () => {
    const shape = createShape(validators, logger);
    const c = await validated("echo.plain", {});
    const out = shape({ ...c, warnings: ["an old shape"], value: { n: 1 } });
    expect(out.outcome).toMatchObject({
      stage: "shape",
      isError: false,
      envelope: { ok: true, data: { n: 1 }, warnings: ["an old shape"] },
    });
  });
});
