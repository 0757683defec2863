import type { SkillContext } from "@skillport/core";
import { describe, expect, expectTypeOf, it } from "vitest";
import { mockContext } from "../src/mock-context.js";

describe("mockContext", () => {
  it("is a SkillContext with a token, its credentials and a signal that never aborts", () => {
    const ctx = mockContext({ token: "test-token", credentials: { webhook: "w" }, config: { units: "metric" } });
    expectTypeOf(ctx).toMatchTypeOf<SkillContext<{ units: string }>>();
    expect(ctx.token).toBe("test-token");
    expect(ctx.credentials).toEqual({ webhook: "w", token: "test-token" });
    expect(Object.isFrozen(ctx.credentials)).toBe(true);
    expect(ctx.config).toEqual({ units: "metric" });
    expect(ctx.signal.aborted).toBe(false);
    expect(ctx.traceId).toBe("mock-trace-id");
  });

  it("takes the token from credentials when only they are given, and defaults to nothing", () => {
    expect(mockContext({ credentials: { token: "t" } }).token).toBe("t");
    expect(mockContext()).toMatchObject({ token: undefined, credentials: {}, config: {} });
  });

  it("records progress and log calls in order", () => {
    const ctx = mockContext();
    ctx.progress(1, 3, "first");
    ctx.progress(2);
    ctx.log.info("hello", { n: 1 });
    ctx.log.error("oops");
    expect(ctx.progressCalls).toEqual([
      { done: 1, total: 3, message: "first" },
      { done: 2, total: undefined, message: undefined },
    ]);
    expect(ctx.logs).toEqual([
      { level: "info", message: "hello", data: { n: 1 } },
      { level: "error", message: "oops", data: undefined },
    ]);
  });

  it("passes an already-aborted signal through", () => {
    expect(mockContext({ signal: AbortSignal.abort() }).signal.aborted).toBe(true);
  });
});
