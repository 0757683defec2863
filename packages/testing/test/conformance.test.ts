import { describe, expect, it } from "vitest";
import type { TestSkillOptions } from "../src/conformance.js";
import { ConformanceError, planConformance } from "../src/conformance.js";
import { BROKEN, good, skillOf } from "./fixtures/skills.js";

/** Runs every check of a plan and returns the failures. */
async function failuresOf(register: Parameters<typeof planConformance>[0], options: TestSkillOptions = {}) {
  const plan = planConformance(register, { numRuns: 300, ...options });
  const failures: { title: string; error: unknown }[] = [];
  try {
    await plan.prepare();
  } catch (error) {
    failures.push({ title: "prepare", error });
  }
  for (const check of plan.checks) {
    try {
      await check.run();
    } catch (error) {
      failures.push({ title: check.title, error });
    }
  }
  await plan.dispose();
  return failures;
}

describe("the conformance suite", () => {
  it("passes a skill that follows every rule, with a check per tool and rule group", async () => {
    const plan = planConformance(good);
    expect(plan.checks.map((c) => `${c.group}: ${c.title}`)).toEqual([
      "spec lint: find_items follows the spec lint",
      "buildBrief: find_items: buildBrief is pure",
      "spec parity: find_items: zod and the published JSON Schema accept the same arguments",
      "runtime: find_items respects an already-aborted signal",
      "runtime: find_items: a thrown non-SkillError answers INTERNAL without its message",
      "runtime: find_items never shows the credential (a canary token) in its result",
    ]);
    expect(await failuresOf(good)).toEqual([]);
  });

  it("passes a dangerous tool that follows every rule: the normalise check allows it and confirms the call", async () => {
    expect(await failuresOf(skillOf({ risk: "dangerous" }))).toEqual([]);
  });

  it.each(Object.entries(BROKEN))(
    "catches a skill that breaks %s, naming the rule and the tool",
    async (key, fixture) => {
      const rule = key.split("/")[0] as string;
      const failures = await failuresOf(fixture.register, { strict: fixture.strict ?? false });
      expect(failures.length, JSON.stringify(failures.map((f) => String(f.error)))).toBeGreaterThan(0);
      for (const { error } of failures) {
        expect(error).toBeInstanceOf(ConformanceError);
        expect((error as ConformanceError).rule).toBe(rule);
        const tool =
          rule === "register" || rule === "config" ? undefined : key === "tool-name" ? "findItems" : "find_items";
        expect((error as ConformanceError).tool).toBe(tool);
        expect((error as Error).message.startsWith(`[${rule}]${tool === undefined ? "" : ` ${tool}:`}`)).toBe(true);
      }
    },
  );

  it("explains a parity failure with the sample both sides judged", async () => {
    const [failure] = await failuresOf((BROKEN["spec-parity"] as { register: never }).register);
    expect(String((failure as { error: unknown }).error)).toMatch(
      /zod rejects but the published JSON Schema accepts .*no spaces around.*seed/s,
    );
  });

  it("says which I/O a buildBrief did", async () => {
    const [failure] = await failuresOf((BROKEN["brief-pure/io"] as { register: never }).register);
    expect(String((failure as { error: unknown }).error)).toContain("it called fs.readFileSync");
  });

  it("with examples skipped, never calls the capability", async () => {
    const plan = planConformance((BROKEN.abort as { register: never }).register, { examples: "skip" });
    expect(plan.checks.map((c) => c.group)).toEqual(["spec lint", "buildBrief", "spec parity", "runtime"]);
    expect(await failuresOf((BROKEN.abort as { register: never }).register, { examples: "skip" })).toEqual([]);
  });

  it("runs a setup hook once and its teardown after", async () => {
    const events: string[] = [];
    const plan = planConformance(good, {
      setup: () => {
        events.push("setup");
        return { teardown: () => void events.push("teardown") };
      },
    });
    await plan.prepare();
    for (const check of plan.checks) await check.run();
    await plan.dispose();
    expect(events).toEqual(["setup", "teardown"]);
  });
});

describe("the conformance suite without examples", () => {
  it("needs no config when the examples are skipped", async () => {
    expect(await failuresOf((BROKEN.config as { register: never }).register, { examples: "skip" })).toEqual([]);
  });
});
