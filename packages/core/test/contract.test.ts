// What @skillport/testing and the host rely on from the contract: error and result branding that survives
// a second copy of this package, risk → annotations, and register() refusing what cannot be served.
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  defineSkill,
  defineTool,
  isSkillError,
  isToolResult,
  type ParamsOf,
  result,
  riskAnnotations,
  SkillError,
} from "../src/index.js";

const none = { type: "object", properties: {}, additionalProperties: false };
const tool = (name: string) =>
  defineTool({ name, title: "T", description: "A tool.", input: none, risk: "read_only", run: () => 1 });

describe("the skill contract", () => {
  it("recognises a SkillError and a result from another copy of the package", () => {
    const foreign = Object.assign(new Error("gone"), { name: "SkillError", code: "NOT_FOUND" });
    expect(isSkillError(foreign)).toBe(true);
    expect(isSkillError(Object.assign(new Error("x"), { name: "SkillError", code: "NOPE" }))).toBe(false);
    expect(isToolResult({ [Symbol.for("skillport.result")]: true, data: 1 })).toBe(true);
    expect(isToolResult(result(1))).toBe(true);
    expect(isToolResult({ data: 1 })).toBe(false);
  });

  it("makes retryable the default only for codes a retry can fix", () => {
    expect(new SkillError({ code: "RATE_LIMITED", message: "slow down" }).retryable).toBe(true);
    expect(new SkillError({ code: "NOT_FOUND", message: "gone" }).retryable).toBe(false);
  });

  it("maps each risk to annotations, the risk winning over extras", () => {
    expect(riskAnnotations("read_only", { readOnlyHint: false, idempotentHint: true })).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(riskAnnotations("dangerous")).toEqual({ readOnlyHint: false, destructiveHint: true });
  });

  it("refuses invalid and duplicate tool names, and inputs that are not objects, when registered", () => {
    expect(() => defineSkill({ name: "x", tools: [tool("has space")] })()).toThrow(/tool name "has space" is invalid/);
    expect(() => defineSkill({ name: "x", tools: [tool("a_b"), tool("a_b")] })()).toThrow(/defined twice/);
    const scalar = defineTool({
      name: "a_b",
      title: "T",
      description: "d",
      input: z.string(),
      risk: "write",
      run: () => 1,
    });
    expect(() => defineSkill({ name: "x", tools: [scalar] })()).toThrow(/input must be an object schema/);
  });

  it("types run's params from a zod input, defaults applied", () => {
    const Input = z.object({ n: z.number().default(1) });
    expectTypeOf<ParamsOf<typeof Input>>().toEqualTypeOf<{ n: number }>();
  });
});
