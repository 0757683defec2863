import { readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../src/host.js";
import { textOf } from "../src/mcp/tools-core.js";
import { createAudit } from "../src/pipeline/audit.js";
import { createRedactor, REDACTED } from "../src/redaction/redactor.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import { createMemoryStore } from "../src/state/memory-store.js";
import { ECHO, manifestOf, NEEDS_TOKEN, pipelineOf, silentLogger } from "./helpers.js";

const CANARY = "canary-7f3a9e1c-secret-token";

async function echoPipeline(entry: Record<string, unknown> = {}, confirmations = {}) {
  const registry = await buildRegistry(manifestOf({ skills: [{ path: ECHO, ...entry }] }));
  return { registry, ...pipelineOf(registry, confirmations) };
}

describe("credentials", () => {
  beforeAll(() => {
    process.env.SKILLPORT_TEST_CANARY = CANARY;
  });
  afterAll(() => {
    delete process.env.SKILLPORT_TEST_CANARY;
  });

  it("reaches ctx.token and ctx.credentials from the environment or a trimmed file, and no process.env read on a call", async () => {
    const registry = await buildRegistry(
      manifestOf({
        skills: [
          {
            path: NEEDS_TOKEN,
            credentials: { token: { env: "SKILLPORT_TEST_CANARY" } },
          },
          { path: ECHO, credentials: { token: { file: "./secret-token.txt" } } },
        ],
      }),
    );
    const { pipeline } = pipelineOf(registry);
    const real = process.env;
    const reads: PropertyKey[] = [];
    process.env = new Proxy(real, {
      get(target, key) {
        reads.push(key);
        return Reflect.get(target, key);
      },
    });
    try {
      const outcome = await pipeline.call("needy.use_token", {});
      expect(outcome.envelope).toMatchObject({ ok: true, data: { length: CANARY.length, sameAsCredentials: true } });
    } finally {
      process.env = real;
    }
    expect(reads).toEqual([]);
    expect(registry.instances[1]?.credentials.token).toBe("token-from-a-file");
  });

  it("answers CREDENTIALS_MISSING naming the variable, while other instances keep working", async () => {
    const registry = await buildRegistry(
      manifestOf({
        skills: [
          { path: NEEDS_TOKEN, credentials: { token: { env: "SKILLPORT_TEST_UNSET_VARIABLE" } } },
          { path: NEEDS_TOKEN, mcp: "bare" },
          { path: ECHO },
        ],
      }),
    );
    const { pipeline } = pipelineOf(registry);
    const missing = await pipeline.call("needy.use_token", {});
    expect(missing.envelope).toMatchObject({ ok: false, error: { code: "CREDENTIALS_MISSING" } });
    expect(missing.envelope.message).toContain("set the environment variable SKILLPORT_TEST_UNSET_VARIABLE");
    const unconfigured = await pipeline.call("bare.use_token", {});
    expect(unconfigured.envelope.message).toContain('set skills[1].credentials.token to { "env": "NAME" }');
    expect((await pipeline.call("echo.echo", { text: "fine" })).envelope.ok).toBe(true);
  });

  it("never shows one instance another's credentials", async () => {
    process.env.SKILLPORT_TEST_OTHER = "second-instance-secret";
    const registry = await buildRegistry(
      manifestOf({
        skills: [
          { path: ECHO, mcp: "a", credentials: { token: { env: "SKILLPORT_TEST_CANARY" } } },
          { path: ECHO, mcp: "b", credentials: { other: { env: "SKILLPORT_TEST_OTHER" } } },
        ],
      }),
    );
    expect(registry.instances[0]?.credentials).toEqual({ token: CANARY, other: undefined });
    expect(registry.instances[1]?.credentials).toEqual({ token: undefined, other: "second-instance-secret" });
  });

  it("refuses a credential the skill does not declare", async () => {
    await expect(
      buildRegistry(manifestOf({ skills: [{ path: ECHO, credentials: { tokn: { env: "X" } } }] })),
    ).rejects.toThrow(
      'skills[0].credentials.tokn: skill "echo" declares no credential "tokn"; it declares token, other',
    );
  });
});

describe("redaction", () => {
  beforeAll(() => {
    process.env.SKILLPORT_TEST_CANARY = CANARY;
  });

  it.each([
    ["data, message and warnings", ""],
    ["a SkillError message", "throw"],
    ["an unexpected error", "crash"],
  ])("replaces a canary token in %s, the audit line and the log", async (_case, prefix) => {
    const { pipeline, audits } = await echoPipeline({
      credentials: { token: { env: "SKILLPORT_TEST_CANARY" } },
      config: { prefix },
    });
    const outcome = await pipeline.call("echo.leak", {});
    const everything = JSON.stringify([outcome, audits]);
    expect(everything).not.toContain(CANARY);
    if (prefix === "") {
      expect(outcome.envelope).toMatchObject({
        ok: true,
        data: { token: REDACTED, nested: [{ again: `Bearer ${REDACTED}` }] },
      });
      expect(textOf(outcome.envelope)).toContain(REDACTED);
    }
    if (prefix === "throw") expect(outcome.envelope.message).toBe(`upstream refused ${REDACTED}`);
  });

  it("redacts the log lines a skill writes, message and data", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
    const registry = await buildRegistry(
      manifestOf({ skills: [{ path: ECHO, credentials: { token: { env: "SKILLPORT_TEST_CANARY" } } }] }),
    );
    const { pipeline } = pipelineOf(registry, {}, logger);
    await pipeline.call("echo.leak", {});
    const logged = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => String(l.msg).startsWith("token is"));
    expect(logged).toMatchObject({ msg: `token is ${REDACTED}`, token: REDACTED, tool: "echo.leak" });
    expect(lines.join("")).not.toContain(CANARY);
  });

  it("redacts audit arguments", async () => {
    const lines: string[] = [];
    const registry = await buildRegistry(
      manifestOf({ skills: [{ path: ECHO, credentials: { token: { env: "SKILLPORT_TEST_CANARY" } } }] }),
    );
    const redactor = createRedactor();
    redactor.add([CANARY]);
    expect(redactor.value({ a: [`x${CANARY}y`], [CANARY]: 1 })).toEqual({ a: [`x${REDACTED}y`], [REDACTED]: 1 });
    const file = path.join(os.tmpdir(), `skillport-audit-${process.pid}-${Date.now()}.log`);
    const audit = createAudit({ file, arguments: true }, redactor);
    audit({
      traceId: "t",
      tool: "echo.echo",
      instance: "echo",
      skill: "s@1",
      risk: "read_only",
      brief: undefined,
      outcome: "OK",
      durationMs: 1,
      arguments: { text: CANARY },
    });
    audit.close(); // lines are batched until the turn ends or the host closes
    const line = JSON.parse(await readFile(file, "utf8"));
    await rm(file, { force: true });
    expect(line).toMatchObject({ kind: "audit", tool: "echo.echo", outcome: "OK", arguments: { text: REDACTED } });
    expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    lines.push(JSON.stringify(registry.instances[0]?.credentials));
    expect(lines[0]).toContain(CANARY); // the host itself holds it; only what leaves is redacted
  });
});

describe("timeouts, cancellation and progress", () => {
  it("aborts ctx.signal at the tool's timeout and answers TIMEOUT, retryable", async () => {
    const { pipeline, audits } = await echoPipeline({ timeoutMs: 50 });
    const outcome = await pipeline.call("echo.sleep", { ms: 60_000 });
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "TIMEOUT", retryable: true } });
    expect(outcome.envelope.message).toContain("did not finish within 50 ms");
    expect(outcome.envelope.message).toContain("raise timeoutMs for skills[0]");
    expect(audits.at(-1)).toMatchObject({ tool: "echo.sleep", outcome: "TIMEOUT" });
  });

  it("uses the tool's own timeout unless the instance overrides it", async () => {
    const { registry } = await echoPipeline();
    expect(registry.tools.get("echo.sleep")?.timeoutMs).toBe(60_000);
    expect(registry.tools.get("echo.echo")?.timeoutMs).toBe(30_000);
    const overridden = await echoPipeline({ timeoutMs: 1234 });
    expect(overridden.registry.tools.get("echo.sleep")?.timeoutMs).toBe(1234);
  });

  it("stops an abort-aware capability when the client cancels, and audits CANCELLED", async () => {
    const { pipeline, audits } = await echoPipeline();
    const controller = new AbortController();
    // echo.wait reports progress once it runs, then answers only when its signal aborts: the client cancels when it
    // hears, so an answer at all says the cancel reached the running capability.
    const outcome = await pipeline.call(
      "echo.wait",
      {},
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    expect(audits.at(-1)).toMatchObject({ outcome: "CANCELLED" });
  });

  it("throttles progress from a tight loop, increasing, ending with the final count", async () => {
    const { pipeline } = await echoPipeline();
    const sent: Array<[number, number | undefined]> = [];
    const outcome = await pipeline.call("echo.count", {}, { onProgress: (done, total) => sent.push([done, total]) });
    expect(outcome.envelope.ok).toBe(true);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.length).toBeLessThan(100); // 10,000 reports in, a handful out
    expect(sent.at(-1)).toEqual([10_000, 10_000]);
    expect(sent.every(([done], i) => i === 0 || done > (sent[i - 1]?.[0] ?? 0))).toBe(true);
  });
});

describe("concurrency", () => {
  it("queues beyond the limit and answers RATE_LIMITED beyond the queue, retryable", async () => {
    const { pipeline } = await echoPipeline({ concurrency: 2, queue: 1 });
    const controller = new AbortController();
    const running = [1, 2, 3].map(() => pipeline.call("echo.sleep", { ms: 60_000 }, { signal: controller.signal }));
    const refused = await pipeline.call("echo.sleep", { ms: 1 });
    expect(refused.envelope).toMatchObject({ ok: false, error: { code: "RATE_LIMITED", retryable: true } });
    expect(refused.envelope.message).toContain("2 calls are running and 1 are waiting");
    controller.abort();
    const outcomes = await Promise.all(running);
    expect(outcomes.map((o) => (o.envelope.ok ? "OK" : o.envelope.error.code))).toEqual([
      "CANCELLED",
      "CANCELLED",
      "CANCELLED",
    ]);
    expect((await pipeline.call("echo.sleep", { ms: 1 })).envelope.ok).toBe(true);
  });
});

describe("dangerous tools", () => {
  it("are refused unless the manifest allows them, naming the field", async () => {
    const { pipeline } = await echoPipeline();
    const outcome = await pipeline.call("echo.wipe", { target: "disk" });
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
    expect(outcome.envelope.message).toContain('add "wipe" to skills[0].allow in the manifest');
  });

  it("refuses allowing a tool that is not dangerous", async () => {
    await expect(buildRegistry(manifestOf({ skills: [{ path: ECHO, allow: ["echo"] }] }))).rejects.toThrow(
      'skills[0].allow: "echo" is not a dangerous tool of skill "echo"; its dangerous tools are wipe',
    );
  });

  it("advertise the _confirm argument only where the manifest takes operation ids", async () => {
    const fallback = async (value?: string) =>
      buildRegistry(
        manifestOf({ ...(value === undefined ? {} : { confirmation: { fallback: value } }), skills: [{ path: ECHO }] }),
      );
    const byId = await fallback("operation-id");
    expect(byId.tools.get("echo.wipe")?.listing.inputSchema.properties).toHaveProperty("_confirm");
    expect(byId.tools.get("echo.echo")?.listing.inputSchema.properties).not.toHaveProperty("_confirm");
    const byDefault = await fallback();
    expect(byDefault.tools.get("echo.wipe")?.listing.inputSchema.properties).not.toHaveProperty("_confirm");
  });

  it("need confirmation: with the operation-id fallback, an id bound to the exact arguments and caller runs once", async () => {
    let now = Date.now();
    const { pipeline, audits } = await echoPipeline(
      { allow: ["wipe"] },
      { now: () => now, ttlSeconds: 60, fallback: "operation-id" },
    );
    const { runs } = (await import(path.join(ECHO, "index.js"))) as { runs: { wipe: string[] } };
    const before = runs.wipe.length;
    const alice = { caller: { id: "alice", scopes: [] } };
    const bob = { caller: { id: "bob", scopes: [] } };

    const asked = await pipeline.call("echo.wipe", { target: "disk" }, alice);
    expect(asked.envelope).toMatchObject({ ok: false, error: { code: "CONFIRMATION_REQUIRED", retryable: true } });
    expect(asked.envelope.message).toContain("Confirm: Wipe disk");
    const id = asked.envelope.ok ? "" : (asked.envelope.error.operationId ?? "");
    expect(id).not.toBe("");
    expect(runs.wipe.length).toBe(before);

    const changed = await pipeline.call("echo.wipe", { target: "other-disk", _confirm: id }, alice);
    expect(changed.envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/_confirm" } });
    expect(changed.envelope.message).toContain("was issued for other arguments");

    const stolen = await pipeline.call("echo.wipe", { target: "disk", _confirm: id }, bob);
    expect(stolen.envelope.message).toContain("was issued to another caller");

    const ran = await pipeline.call("echo.wipe", { target: "disk", _confirm: id }, alice);
    expect(ran.envelope).toMatchObject({ ok: true, data: { wiped: "disk" } });
    expect(runs.wipe.length).toBe(before + 1);

    const reused = await pipeline.call("echo.wipe", { target: "disk", _confirm: id }, alice);
    expect(reused.envelope.message).toContain("was already used");
    expect(runs.wipe.length).toBe(before + 1);

    const second = await pipeline.call("echo.wipe", { target: "disk" }, alice);
    const secondId = second.envelope.ok ? "" : (second.envelope.error.operationId ?? "");
    now += 61_000;
    const expired = await pipeline.call("echo.wipe", { target: "disk", _confirm: secondId }, alice);
    expect(expired.envelope.message).toContain("has expired");
    const forged = await pipeline.call(
      "echo.wipe",
      { target: "disk", _confirm: `${secondId.split(".")[0]}.forged` },
      alice,
    );
    expect(forged.envelope.message).toContain("is not an operation id this server issued");
    expect(runs.wipe.length).toBe(before + 1);
    expect(audits.map((a) => a.outcome)).toEqual([
      "CONFIRMATION_REQUIRED",
      "PERMISSION_DENIED",
      "PERMISSION_DENIED",
      "OK",
      "PERMISSION_DENIED",
      "CONFIRMATION_REQUIRED",
      "PERMISSION_DENIED",
      "PERMISSION_DENIED",
    ]);
    expect(audits[3]).toMatchObject({ brief: "Wipe disk", risk: "dangerous" });
  });

  it("are refused by default when the client cannot ask its user, and take no operation id", async () => {
    const { pipeline } = await echoPipeline({ allow: ["wipe"] });
    const { runs } = (await import(path.join(ECHO, "index.js"))) as { runs: { wipe: string[] } };
    const before = runs.wipe.length;
    const refused = await pipeline.call("echo.wipe", { target: "disk" });
    expect(refused.envelope).toMatchObject({ ok: false, error: { code: "CONFIRMATION_REQUIRED", retryable: false } });
    expect(refused.envelope.ok ? undefined : refused.envelope.error.operationId).toBeUndefined();
    expect(refused.envelope.message).toContain('confirmation.fallback to "operation-id"');
    const guessed = await pipeline.call("echo.wipe", { target: "disk", _confirm: "anything" });
    expect(guessed.envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/_confirm" } });
    expect(runs.wipe.length).toBe(before);
  });

  describe("asking the user through the client", () => {
    const ask = { confirmation: { elicit: true } };
    const answer = (state: string | undefined, action: "accept" | "decline" = "accept") => ({
      confirmation: { elicit: true, answer: { action, state } },
    });

    async function setup() {
      const { pipeline, audits } = await echoPipeline({ allow: ["wipe"] });
      const { runs } = (await import(path.join(ECHO, "index.js"))) as { runs: { wipe: string[] } };
      return { pipeline, audits, runs, before: runs.wipe.length };
    }

    it("run only on accept of the question this server asked, once", async () => {
      const { pipeline, runs, before } = await setup();
      const asked = await pipeline.call("echo.wipe", { target: "tmp" }, ask);
      expect(asked.elicit?.message).toBe("echo.wipe wants to: Wipe tmp. Allow it?");
      const state = asked.elicit?.state;
      const declined = await pipeline.call("echo.wipe", { target: "tmp" }, answer(state, "decline"));
      expect(declined.envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      const accepted = await pipeline.call("echo.wipe", { target: "tmp" }, answer(state));
      expect(accepted.envelope).toMatchObject({ ok: true, data: { wiped: "tmp" } });
      const replayed = await pipeline.call("echo.wipe", { target: "tmp" }, answer(state));
      expect(replayed.envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      expect(replayed.envelope.message).toContain("already used");
      expect(runs.wipe.length).toBe(before + 1);
    });

    it("ask again instead of taking an accept that no question of theirs carries (unsolicited, other arguments, other caller, forged)", async () => {
      const { pipeline, runs, before } = await setup();
      const forVictim = (await pipeline.call("echo.wipe", { target: "victim.txt" }, ask)).elicit?.state as string;
      const attempts = [
        ["unsolicited", { target: "victim.txt" }, answer(undefined)],
        ["other arguments", { target: "victim2.txt" }, answer(forVictim)],
        ["other caller", { target: "victim.txt" }, { ...answer(forVictim), caller: { id: "bob", scopes: [] } }],
        ["forged", { target: "victim.txt" }, answer(`${forVictim.split(".")[0]}.AAAA`)],
      ] as const;
      for (const [why, args, options] of attempts) {
        const outcome = await pipeline.call("echo.wipe", args, options);
        expect(outcome.envelope, why).toMatchObject({ ok: false, error: { code: "CONFIRMATION_REQUIRED" } });
        expect(outcome.elicit?.message, why).toContain(`Wipe ${args.target}`);
      }
      expect(runs.wipe.length).toBe(before);
    });

    it("ask in process when the caller can, and run only on yes", async () => {
      const { pipeline, runs, before } = await setup();
      const questions: string[] = [];
      const no = await pipeline.call(
        "echo.wipe",
        { target: "a" },
        { confirmation: { ask: async (q) => questions.push(q.message) < 0 } },
      );
      expect(no.envelope).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      const yes = await pipeline.call("echo.wipe", { target: "b" }, { confirmation: { ask: async () => true } });
      expect(yes.envelope).toMatchObject({ ok: true });
      expect(questions).toEqual(["echo.wipe wants to: Wipe a. Allow it?"]);
      expect(runs.wipe.length).toBe(before + 1);
    });

    it("show bidirectional and invisible characters in the brief as escapes", async () => {
      const { pipeline, audits } = await setup();
      const target = "harmless\u202Etxt.exe\u2066\u200B\n\u0007";
      const asked = await pipeline.call("echo.wipe", { target }, ask);
      expect(asked.elicit?.message).toBe(
        "echo.wipe wants to: Wipe harmless\\u{202E}txt.exe\\u{2066}\\u{200B}\\u{000A}\\u{0007}. Allow it?",
      );
      expect(audits[0]?.brief).toBe("Wipe harmless\\u{202E}txt.exe\\u{2066}\\u{200B}\\u{000A}\\u{0007}");
    });
  });
});

describe("the confirmation secret", () => {
  afterAll(() => {
    delete process.env.SKILLPORT_TEST_CONFIRM_SECRET;
  });

  it.each([
    ["a short secret", "hunter2", /has 7 bytes/],
    ["a missing variable", undefined, /is not set/],
  ])("stops the host for %s, naming the field", async (_case, value, why) => {
    if (value === undefined) delete process.env.SKILLPORT_TEST_CONFIRM_SECRET;
    else process.env.SKILLPORT_TEST_CONFIRM_SECRET = value;
    const manifest = manifestOf({
      confirmation: { secret: { env: "SKILLPORT_TEST_CONFIRM_SECRET" } },
      skills: [{ path: ECHO }],
    });
    const failure = createHost({ manifest, logger: silentLogger() });
    await expect(failure).rejects.toThrow(/confirmation\.secret/);
    await expect(failure).rejects.toThrow(why);
  });

  it("signs with a long enough secret, so a second host sharing it (and the state store) verifies the first one's questions", async () => {
    process.env.SKILLPORT_TEST_CONFIRM_SECRET = "x".repeat(32);
    const manifest = manifestOf({
      confirmation: { secret: { env: "SKILLPORT_TEST_CONFIRM_SECRET" } },
      skills: [{ path: ECHO, allow: ["wipe"] }],
    });
    // As replicas share Redis: a store of its own would not vouch for what the other issued.
    const store = createMemoryStore();
    const first = await createHost({ manifest, logger: silentLogger(), state: store });
    const second = await createHost({ manifest, logger: silentLogger(), state: store });
    const asked = await first.pipeline.call("echo.wipe", { target: "shared" }, { confirmation: { elicit: true } });
    const state = asked.elicit?.state;
    const answered = await second.pipeline.call(
      "echo.wipe",
      { target: "shared" },
      { confirmation: { elicit: true, answer: { action: "accept", state } } },
    );
    expect(answered.envelope).toMatchObject({ ok: true });
    await Promise.all([first.close(), second.close()]);
  });
});

describe("schema evolution", () => {
  it("migrates a call in a legacy shape, with the note as a warning", async () => {
    const { pipeline } = await echoPipeline();
    const outcome = await pipeline.call("echo.find", { query: "agents" });
    expect(outcome.envelope).toMatchObject({
      ok: true,
      data: { found: "agents" },
      warnings: ['"query" is deprecated; send "keyword"'],
    });
    const current = await pipeline.call("echo.find", { keyword: "agents" });
    expect(current.envelope.warnings).toEqual([]);
  });

  it("reports the current schema's errors when no legacy shape fits", async () => {
    const { pipeline } = await echoPipeline();
    const outcome = await pipeline.call("echo.find", { query: 3 });
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "ARGUMENT_INVALID", field: "/keyword" } });
    expect(outcome.envelope.message).toContain("keyword is required but missing");
  });

  it("refuses arguments nested 100,000 deep before migrating them, with an audit line", async () => {
    const { pipeline, audits } = await echoPipeline();
    let deep: unknown = "bottom";
    for (let i = 0; i < 100_000; i++) deep = { query: deep };
    const outcome = await pipeline.call("echo.find", deep);
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "ARGUMENT_INVALID" } });
    expect(outcome.envelope.message).toContain("nest deeper than 64 levels");
    expect((outcome.envelope as { error: { field: string } }).error.field).toBe(`/query`.repeat(64));
    expect(audits.map((a) => a.outcome)).toEqual(["ARGUMENT_INVALID"]);
  });
});

describe("isolation in worker threads", () => {
  it("runs capabilities in a worker with the instance's config and credentials", async () => {
    process.env.SKILLPORT_TEST_CANARY = CANARY;
    const { pipeline } = await echoPipeline({
      isolation: "worker",
      config: { prefix: "w:" },
      credentials: { token: { env: "SKILLPORT_TEST_CANARY" } },
    });
    try {
      const echoed = await pipeline.call("echo.echo", { text: "hi", times: 2 });
      expect(echoed.envelope).toMatchObject({
        ok: true,
        message: "echoed",
        data: { echoed: "w:hihi" },
        evidencePaths: ["mem://echo"],
      });
      const leak = await pipeline.call("echo.leak", {});
      expect(leak.envelope).toMatchObject({ ok: true, data: { token: REDACTED, keys: ["token", "other"] } });
      const failed = await pipeline.call("echo.fail", {});
      expect(failed.envelope).toMatchObject({ ok: false, error: { code: "NOT_FOUND", field: "/thing" } });
      const who = await pipeline.call("echo.whoami", {}, { caller: { id: "alice", scopes: ["notes:read"] } });
      expect(who.envelope).toMatchObject({ ok: true, data: { auth: { id: "alice", scopes: ["notes:read"] } } });
      const boom = await pipeline.call("echo.boom", {});
      expect(boom.envelope).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
      expect(JSON.stringify(boom)).not.toContain("hunter2");
    } finally {
      await pipeline.close();
    }
  });

  it("terminates a synchronous infinite loop at the timeout; the next call gets a fresh worker", async () => {
    const { pipeline } = await echoPipeline({ isolation: "worker" });
    try {
      const stuck = await pipeline.call("echo.spin", {});
      expect(stuck.envelope).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
      const after = await pipeline.call("echo.echo", { text: "alive" });
      expect(after.envelope).toMatchObject({ ok: true, data: { echoed: "alive" } });
    } finally {
      await pipeline.close();
    }
  });

  it("answers UNAVAILABLE when a capability exhausts the worker's memory, and keeps serving", async () => {
    const { pipeline } = await echoPipeline({ isolation: "worker", memoryMb: 32 });
    try {
      const hog = await pipeline.call("echo.hog", {});
      expect(hog.envelope).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
      expect(hog.envelope.message).toContain("ran out of memory (limit 32 MiB)");
      expect((await pipeline.call("echo.echo", { text: "alive" })).envelope.ok).toBe(true);
    } finally {
      await pipeline.close();
    }
  });
});

describe("createHost", () => {
  it("builds the pipeline with audit, redaction and confirmations wired", async () => {
    const host = await createHost({ manifest: manifestOf({ skills: [{ path: ECHO }] }), logger: silentLogger() });
    expect(host.redactor.active).toBe(false);
    const outcome = await host.pipeline.call("echo.plain", {});
    expect(outcome.envelope.ok).toBe(true);
    await host.close();
  });
});
