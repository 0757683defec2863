import type { SkillContext } from "@skillport/core";
import { defineSkill, defineTool } from "@skillport/core";
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

  it("says which credentials are configured, without their values", () => {
    const ctx = mockContext({ token: "t", credentials: { empty: "" } });
    expect([ctx.hasCredential("token"), ctx.hasCredential("empty"), ctx.hasCredential("toString")]).toEqual([
      true,
      false,
      false,
    ]);
  });
});

describe("mockContext with the skill's credential declarations", () => {
  const register = defineSkill({
    name: "api",
    credentials: {
      token: { description: "an API token", fetch: { origins: (config: { api: string }) => [config.api] } },
      webhook: { description: "read by the skill", required: false },
    },
    tools: [
      defineTool({
        name: "noop",
        title: "Nothing",
        description: "Does nothing.",
        input: { type: "object", properties: {}, additionalProperties: false },
        risk: "read_only",
        run: () => ({}),
      }),
    ],
  });

  /** A stand-in network that records the Authorization each request carried. */
  function network() {
    const sent: [string, string | null][] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      sent.push([String(input), new Headers(init?.headers).get("authorization")]);
      return new Response("ok");
    };
    return { sent, fetch };
  }

  it("holds a fetch credential back from the skill and adds it for the declared origin only, as the host does", async () => {
    const net = network();
    const ctx = mockContext({
      skill: register,
      token: "test-token",
      credentials: { webhook: "w" },
      config: { api: "https://api.example" },
      fetch: net.fetch,
    });
    expect(ctx.token).toBeUndefined();
    expect(ctx.credentials).toEqual({ webhook: "w" });
    expect(ctx.hasCredential("token")).toBe(true);
    await ctx.fetch("https://api.example/user", { headers: { authorization: "Bearer forged" } });
    await ctx.fetch("https://elsewhere.example/collect");
    expect(net.sent).toEqual([
      ["https://api.example/user", "Bearer test-token"],
      ["https://elsewhere.example/collect", null],
    ]);
  });

  it("finds the held credential as a secret all the same", async () => {
    const ctx = mockContext({ skill: register(), token: "test-token-4c1d", config: { api: "https://api.example" } });
    expect(await ctx.findSecret("leaked test-token-4c1d")).toEqual({ form: "plain" });
  });
});
