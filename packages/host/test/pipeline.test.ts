import { defineSkill, defineTool } from "@skillport/core";
import pino from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { textOf } from "../src/mcp/tools-core.js";
import { CallStop } from "../src/pipeline/call-stop.js";
import type { Pipeline } from "../src/pipeline/pipeline.js";
import { createValidators } from "../src/pipeline/validators.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import type { Registry } from "../src/registry/registry.js";
import { createAjv } from "../src/schema/ajv.js";
import { ECHO, manifestOf, pipelineOf } from "./helpers.js";

describe("the call pipeline", () => {
  let registry: Registry;
  let pipeline: Pipeline;

  beforeAll(async () => {
    registry = await buildRegistry(manifestOf({ skills: [{ path: ECHO, config: { prefix: "> " } }] }));
    pipeline = pipelineOf(registry).pipeline;
  });

  it("runs a valid call with schema defaults filled in and shapes the envelope", async () => {
    const outcome = await pipeline.call("echo.echo", { text: "hi" });
    expect(outcome.isError).toBe(false);
    expect(outcome.envelope).toMatchObject({
      ok: true,
      message: "echoed",
      data: { echoed: "> hi" },
      evidencePaths: ["mem://echo"],
      warnings: [],
      meta: { tool: "echo.echo", toolVersion: "1.4.2" },
    });
    expect(outcome.envelope.meta.traceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(textOf(outcome.envelope)).toBe('echoed\n{"echoed":"> hi"}');
  });

  it("wraps plain data, and undefined as null, with a default message", async () => {
    expect((await pipeline.call("echo.plain", {})).envelope).toMatchObject({
      ok: true,
      message: "Plain: done",
      data: { n: 1 },
    });
    expect((await pipeline.call("echo.nothing", undefined)).envelope).toMatchObject({ ok: true, data: null });
  });

  it.each([
    [{ text: 3 }, "/text", "text must be a string, got number 3"],
    [{}, "/text", "text is required but missing"],
    [{ text: "x", loud: true }, "/loud", "loud is not a known field; allowed fields are text, times"],
    [{ text: "x", times: 4 }, "/times", "times must be <= 3, got number 4"],
    [{ text: "" }, "/text", "text must have at least 1 characters, got 0"],
    [[1, 2], "/", "arguments must be a JSON object"],
    ["text", "/", "arguments must be a JSON object"],
  ])("refuses %j with ARGUMENT_INVALID at %s before the capability runs", async (args, field, message) => {
    const outcome = await pipeline.call("echo.echo", args);
    expect(outcome.isError).toBe(true);
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "ARGUMENT_INVALID", field, retryable: true } });
    expect(outcome.envelope.message).toContain(message);
    expect(textOf(outcome.envelope)).toContain(`ARGUMENT_INVALID (at ${field})`);
  });

  it("compiles a tool's validators once, on first use, and reuses them", async () => {
    const runnable = await registry.tools.get("echo.echo")?.resolve();
    if (runnable === undefined) throw new Error("fixture tool missing");
    let compiles = 0;
    const ajv = createAjv({ firstError: true });
    const compile = ajv.compile.bind(ajv);
    ajv.compile = ((schema: object) => {
      compiles++;
      return compile(schema);
    }) as typeof ajv.compile;
    const validators = createValidators(ajv, ajv);
    expect(compiles).toBe(0);
    expect(validators.input(runnable)({ text: "a" })).toBeUndefined();
    expect(validators.input(runnable)({ text: 3 })).toMatchObject({ where: "/text" });
    expect(compiles).toBe(1);
    expect(await registry.tools.get("echo.echo")?.resolve()).toBe(runnable);
  });

  it("passes a SkillError's code, field and retryable through", async () => {
    const outcome = await pipeline.call("echo.fail", {});
    expect(outcome.envelope).toMatchObject({
      ok: false,
      message: "no such thing",
      error: { code: "NOT_FOUND", field: "/thing", retryable: false },
    });
  });

  it("turns any other throw into INTERNAL without its message or stack", async () => {
    const outcome = await pipeline.call("echo.boom", {});
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
    expect(JSON.stringify(outcome)).not.toMatch(/hunter2|app\.js|at secret/);
    expect(outcome.envelope.message).toContain(outcome.envelope.meta.traceId);
  });

  it("aborts ctx.signal on cancel, answers CANCELLED, and forwards progress", async () => {
    const controller = new AbortController();
    const progress: unknown[] = [];
    // echo.wait reports progress once it runs, then waits for its signal: the client cancels when it hears.
    const outcome = await pipeline.call(
      "echo.wait",
      {},
      {
        signal: controller.signal,
        onProgress: (...p) => {
          progress.push(p);
          controller.abort();
        },
      },
    );
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "CANCELLED", retryable: true } });
    expect(progress).toEqual([[1, 2, "waiting"]]);
  });

  it("cancels through a stop as through a signal: ctx.signal, read only then, aborts with the client's reason", async () => {
    const stop = new CallStop();
    const outcome = await pipeline.call(
      "echo.wait",
      {},
      { stop, onProgress: () => stop.abort(new Error("the user closed the dialog")) },
    );
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "CANCELLED", retryable: true } });
  });

  it("gives the capability the instance's validated config", async () => {
    expect((await pipeline.call("echo.config", {})).envelope).toMatchObject({ data: { prefix: "> " } });
  });

  it("answers a name not in the table at the lookup stage, naming it, with no entry", async () => {
    const outcome = await pipeline.call("echo.nope", {});
    expect(outcome).toMatchObject({ stage: "lookup", tool: undefined, isError: true });
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    expect(outcome.envelope.message).toContain('unknown tool "echo.nope"');
  });
});

describe("pipeline.call when something under it throws at once", () => {
  it("answers with a rejected promise, never a throw from the call itself", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [{ path: ECHO, config: { prefix: "> " } }] }));
    const broken = {
      ...registry,
      tools: {
        get: () => {
          throw new Error("the tool table is broken");
        },
      },
    } as unknown as Registry;
    const { pipeline } = pipelineOf(broken);
    let answer: Promise<unknown> | undefined;
    expect(() => {
      answer = pipeline.call("echo.echo", { text: "hi" });
    }).not.toThrow();
    await expect(answer).rejects.toThrow("the tool table is broken");
  });
});

describe("a tool whose input schema cannot compile", () => {
  it("answers INTERNAL naming the tool, and keeps the host serving", async () => {
    const broken = defineSkill({
      name: "bad",
      tools: [
        defineTool({
          name: "plain",
          title: "Plain",
          description: "A tool whose published schema no validator compiles.",
          input: { type: "object", properties: { a: { type: "no-such-type" } } },
          risk: "read_only",
          run: () => ({ ran: true }),
        }),
      ],
    });
    const registry = await buildRegistry(
      manifestOf({
        skills: [
          { package: "skill-bad", mcp: "echo" },
          { path: ECHO, mcp: "ok" },
        ],
      }),
      { modules: { "skill-bad": { register: broken } } },
    );
    const pipeline = pipelineOf(registry).pipeline;
    const outcome = await pipeline.call("echo.plain", {});
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
    expect(outcome.envelope.message).toContain("echo.plain has a schema the host cannot compile");
    expect((await pipeline.call("ok.echo", { text: "still here" })).envelope.ok).toBe(true);
  });
});

describe("a capability's ctx", () => {
  it("keeps signal and log when a skill spreads or destructures it, and the copy's signal still aborts", async () => {
    const seen: Record<string, unknown> = {};
    const context = defineSkill({
      name: "ctx",
      tools: [
        defineTool({
          name: "copy",
          title: "Copy",
          description: "Copies its ctx, as a skill passing it on with one part changed would.",
          input: { type: "object", properties: {}, additionalProperties: false },
          risk: "read_only",
          run: async (_p, ctx) => {
            const copy = { ...ctx, token: "other" };
            const { signal, log } = ctx;
            seen.keys = Object.keys(copy).sort();
            seen.same = copy.signal === signal && copy.log === log;
            copy.log.info("from the copy");
            await new Promise<void>((resolve) => copy.signal.addEventListener("abort", () => resolve()));
            return { aborted: signal.aborted };
          },
        }),
      ],
    });
    const registry = await buildRegistry(manifestOf({ skills: [{ package: "skill-ctx", mcp: "ctx" }] }), {
      modules: { "skill-ctx": { register: context } },
    });
    const lines: unknown[] = [];
    const stop = new CallStop();
    // The copy logs before it waits for its signal: the stop comes when the line does.
    const pending = pipelineOf(registry).pipeline.call(
      "ctx.copy",
      {},
      {
        stop,
        onLog: (level, message) => {
          lines.push([level, message]);
          stop.abort();
        },
      },
    );
    expect((await pending).envelope).toMatchObject({ ok: false, error: { code: "CANCELLED" } });
    expect(seen.keys).toEqual(expect.arrayContaining(["log", "signal", "token", "traceId", "elicit", "progress"]));
    expect(seen.same).toBe(true);
    expect(lines).toEqual([["info", "from the copy"]]);
  });
});

describe("results checked against the output schema", () => {
  const drifting = defineSkill({
    name: "drift",
    tools: [
      defineTool({
        name: "get_item",
        title: "Get item",
        description: "Answers an item; `shape` says whether the data keeps to the declared output.",
        input: {
          type: "object",
          properties: { shape: { type: "string", enum: ["right", "drifted", "deep"] } },
          required: ["shape"],
          additionalProperties: false,
        },
        output: {
          type: "object",
          properties: { id: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
          required: ["id"],
        },
        risk: "read_only",
        run: (p) => {
          if (p.shape === "right") return { id: 1, tags: ["a"] };
          if (p.shape === "drifted") return { id: "1", tags: ["a", 2] };
          let deep: unknown = { id: 1 };
          for (let i = 0; i < 3000; i++) deep = { id: 1, tags: [], next: deep };
          return deep;
        },
      }),
    ],
  });

  async function setup() {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: "error" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const registry = await buildRegistry(manifestOf({ skills: [{ package: "skill-drift" }] }), {
      modules: { "skill-drift": { register: drifting } },
    });
    return { pipeline: pipelineOf(registry, {}, logger).pipeline, lines };
  }

  it("passes data that matches, and answers INTERNAL with the JSON path in the log for data that drifted", async () => {
    const { pipeline, lines } = await setup();
    expect((await pipeline.call("drift.get_item", { shape: "right" })).envelope).toMatchObject({
      ok: true,
      data: { id: 1, tags: ["a"] },
    });
    const drifted = await pipeline.call("drift.get_item", { shape: "drifted" });
    expect(drifted).toMatchObject({ stage: "shape", envelope: { ok: false, error: { code: "INTERNAL" } } });
    expect(drifted.envelope.message).toContain("does not match its output schema");
    expect(JSON.stringify(drifted.envelope)).not.toContain('"1"'); // the drifted data is not sent
    expect(lines).toEqual([
      expect.objectContaining({ tool: "drift.get_item", at: "/data/id", problem: expect.stringContaining("integer") }),
    ]);
  });

  it("answers INTERNAL for data nested too deeply for any transport to send", async () => {
    const { pipeline } = await setup();
    const deep = await pipeline.call("drift.get_item", { shape: "deep" });
    expect(deep).toMatchObject({ stage: "shape", envelope: { ok: false, error: { code: "INTERNAL" } } });
    expect(deep.envelope.message).toContain("nested deeper than 2048 levels");
  });
});
