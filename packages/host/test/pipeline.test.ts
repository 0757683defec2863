import { beforeAll, describe, expect, it } from "vitest";
import type { Pipeline } from "../src/pipeline/pipeline.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import type { Registry } from "../src/registry/registry.js";
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
    expect(outcome.text).toBe('echoed\n{"echoed":"> hi"}');
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
    expect(outcome.text).toContain(`ARGUMENT_INVALID (at ${field})`);
  });

  it("compiles a tool's validator once and reuses it", async () => {
    await pipeline.call("echo.echo", { text: "a" });
    const compiled = registry.tools.get("echo.echo")?.validate;
    expect(compiled).toBeTypeOf("function");
    await pipeline.call("echo.echo", { text: "b" });
    expect(registry.tools.get("echo.echo")?.validate).toBe(compiled);
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
    const pending = pipeline.call(
      "echo.wait",
      {},
      { signal: controller.signal, onProgress: (...p) => progress.push(p) },
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const outcome = await pending;
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "CANCELLED", retryable: true } });
    expect(progress).toEqual([[1, 2, "waiting"]]);
  });

  it("gives the capability the instance's validated config", async () => {
    expect((await pipeline.call("echo.config", {})).envelope).toMatchObject({ data: { prefix: "> " } });
  });

  it("throws UNKNOWN_TOOL for a name not in the table", async () => {
    await expect(pipeline.call("echo.nope", {})).rejects.toMatchObject({ code: "UNKNOWN_TOOL" });
  });
});

describe("a tool whose input schema cannot compile", () => {
  it("answers INTERNAL naming the tool, and keeps the host serving", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [{ path: ECHO }] }));
    const entry = registry.tools.get("echo.plain");
    if (entry === undefined) throw new Error("fixture tool missing");
    entry.tool = { ...entry.tool, inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } } };
    const pipeline = pipelineOf(registry).pipeline;
    const outcome = await pipeline.call("echo.plain", {});
    expect(outcome.envelope).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
    expect(outcome.envelope.message).toContain("echo.plain has an input schema the host cannot compile");
    expect((await pipeline.call("echo.echo", { text: "still here" })).envelope.ok).toBe(true);
  });
});
