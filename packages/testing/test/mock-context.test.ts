import os from "node:os";
import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { defineSkill, defineTool } from "@skillport/core";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
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
    config: z.object({ api: z.string().max(200).describe("The API's base URL") }).strict(),
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

describe("mockContext with the skill's config schema", () => {
  const Config = z
    .object({
      vault: z.string().min(1).meta({ format: "path" }).describe("The notes folder"),
      roots: z
        .array(z.string().meta({ format: "path" }))
        .max(5)
        .default(["."])
        .describe("Folders it may read"),
      limits: z
        .object({ max: z.number().int().default(10) })
        .prefault({})
        .describe("Limits"),
    })
    .strict();
  const register = defineSkill({
    name: "vaulty",
    config: Config,
    tools: [
      defineTool({
        name: "read_vault",
        title: "Read",
        description: "Reads the vault.",
        input: { type: "object", properties: {}, additionalProperties: false },
        risk: "read_only",
        run: (_params: Record<string, unknown>, ctx: SkillContext<z.output<typeof Config>>) => ctx.config.limits.max,
      }),
    ],
  });

  it("builds the config as the host does: defaults filled in, paths resolved against dir (or the cwd), ~ at home", () => {
    const written = { vault: "./notes" };
    const ctx = mockContext({ skill: register, config: written, dir: "/srv/project" });
    expect(ctx.config).toEqual({ vault: "/srv/project/notes", roots: ["/srv/project"], limits: { max: 10 } });
    expect(written).toEqual({ vault: "./notes" }); // the test's object is left as written
    expect(mockContext({ skill: register, config: { vault: "~/n", roots: ["a"] } }).config).toMatchObject({
      vault: path.join(os.homedir(), "n"),
      roots: [path.resolve("a")],
    });
  });

  it("throws on an invalid config, naming every field at fault, before any capability runs", () => {
    expect(() => mockContext({ skill: register, config: { roots: "x", extra: 1 } })).toThrow(
      /config is invalid for skill "vaulty":[\s\S]*config\.vault: is required but missing[\s\S]*config\.roots/,
    );
    expect(() => mockContext({ skill: register })).toThrow("config.vault: is required but missing");
  });

  it("refuses a config for a skill that takes none, as the host does", () => {
    const bare = defineSkill({ name: "bare", tools: [] });
    expect(() => mockContext({ skill: bare, config: { a: 1 } })).toThrow('skill "bare" takes no config; remove it');
    expect(mockContext({ skill: bare }).config).toEqual({});
  });

  it("hands the capability a context it accepts, typed by the capability", async () => {
    const tool = register().tools[0];
    const ctx = mockContext({ skill: register, config: { vault: "v" } });
    expect(await tool?.run({}, ctx)).toBe(10);
  });
});
