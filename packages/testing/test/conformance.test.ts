import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { TestSkillOptions } from "../src/conformance.js";
import { planConformance } from "../src/conformance.js";
import { ConformanceError } from "../src/conformance-error.js";
import { BROKEN, good, skillOf, unanswered } from "./fixtures/skills.js";

/** Runs every check of a plan and returns the failures (and, in `skipped`, the checks that had nothing to check). */
async function outcomesOf(register: Parameters<typeof planConformance>[0], options: TestSkillOptions = {}) {
  const plan = planConformance(register, { numRuns: 300, ...options });
  const failures: { title: string; group: string; error: unknown }[] = [];
  const skipped: { title: string; reason: string }[] = [];
  try {
    await plan.prepare();
  } catch (error) {
    failures.push({ title: "prepare", group: "prepare", error });
  }
  for (const check of plan.checks) {
    try {
      await check.run((reason) => skipped.push({ title: check.title, reason }));
    } catch (error) {
      failures.push({ title: check.title, group: check.group, error });
    }
  }
  await plan.dispose();
  return { failures, skipped };
}

async function failuresOf(register: Parameters<typeof planConformance>[0], options: TestSkillOptions = {}) {
  return (await outcomesOf(register, options)).failures;
}

describe("the conformance suite", () => {
  it("passes a skill that follows every rule, with a check per tool and rule group", async () => {
    const plan = planConformance(good);
    expect(plan.checks.map((c) => `${c.group}: ${c.title}`)).toEqual([
      "spec lint: find_items follows the spec lint",
      "spec parity: find_items: zod and the published JSON Schema accept the same arguments",
      "runtime: find_items respects an already-aborted signal",
      "runtime: find_items: a thrown non-SkillError answers INTERNAL without its message",
      "runtime: find_items never shows the credential (a canary token) in its result",
      "runtime: find_items: each example's data matches its output schema",
    ]);
    expect(await outcomesOf(good)).toEqual({ failures: [], skipped: [] });
  });

  it("passes a dangerous tool that follows every rule: the normalise check allows it and confirms the call", async () => {
    expect(await failuresOf(skillOf({ risk: "dangerous" }))).toEqual([]);
  });

  it.each(Object.entries(BROKEN))(
    "catches a skill that breaks %s in one group, naming the rule and the tool",
    async (key, fixture) => {
      const rule = key.split("/")[0] as string;
      const failures = await failuresOf(fixture.register, { strict: fixture.strict ?? false });
      const said = failures.map((f) => `${f.group}: ${String(f.error)}`).join("\n");
      expect(failures.length, said).toBeGreaterThan(0);
      expect(new Set(failures.filter((f) => f.group !== "prepare").map((f) => f.group)).size, said).toBe(1);
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

  it("fails an impure buildBrief in the spec lint alone, with one message", async () => {
    const failures = await failuresOf((BROKEN["brief-pure"] as { register: never }).register);
    expect(failures.map((f) => f.title)).toEqual(["find_items follows the spec lint"]);
    expect(String(failures[0]?.error)).toMatch(
      /^ConformanceError: \[brief-pure\] find_items: breaks a spec lint rule:\n {2}- error brief-pure find_items: buildBrief returns different text for the same input \(example 1\)/,
    );
  });

  it("explains a parity failure with the sample both sides judged", async () => {
    const [failure] = await failuresOf((BROKEN["spec-parity"] as { register: never }).register);
    expect(String((failure as { error: unknown }).error)).toMatch(
      /zod rejects but the published JSON Schema accepts .*no spaces around.*seed/s,
    );
  });

  it("says which I/O a buildBrief did, in the spec lint", async () => {
    const failures = await failuresOf((BROKEN["brief-pure/io"] as { register: never }).register);
    expect(failures.map((f) => f.title)).toEqual(["find_items follows the spec lint"]);
    expect(String(failures[0]?.error)).toContain(
      "error brief-pure find_items: buildBrief throws on example 1: it called fs.readFileSync, and a buildBrief must do no I/O",
    );
  });

  it("with examples skipped, never calls the capability", async () => {
    const plan = planConformance((BROKEN.abort as { register: never }).register, { examples: "skip" });
    expect(plan.checks.map((c) => c.group)).toEqual(["spec lint", "spec parity", "runtime"]);
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
    for (const check of plan.checks) await check.run(() => undefined);
    await plan.dispose();
    expect(events).toEqual(["setup", "teardown"]);
  });
});

describe("the conformance suite without examples", () => {
  it("needs no config when the examples are skipped", async () => {
    expect(await failuresOf((BROKEN.config as { register: never }).register, { examples: "skip" })).toEqual([]);
  });
});

describe("the output check", () => {
  it("names the tool, the example and the JSON path of data that breaks the output schema", async () => {
    const failures = await failuresOf((BROKEN["output-valid"] as { register: never }).register);
    expect(failures.map((f) => f.title)).toEqual(["find_items: each example's data matches its output schema"]);
    const error = failures[0]?.error as ConformanceError;
    expect(error).toBeInstanceOf(ConformanceError);
    expect(error.message).toMatch(
      /^\[output-valid\] find_items: example 2 \{"keyword":"desk"\} answered data that breaks the output schema: \/items\/1 must be a string, got number 7\. /,
    );
  });

  it("does not let a default in the output schema fill a field the data lacks, as clients fill none", async () => {
    const output = z.object({ items: z.array(z.string()), total: z.number().int().default(0) }).strict();
    const failures = await failuresOf(skillOf({ output }));
    expect(String(failures[0]?.error)).toMatch(
      /example 1 \{"keyword":"lamp"\} answered data that breaks the output schema: \/total is required but missing\. /,
    );
    const named = z.object({ properties: z.object({ default: z.string() }).strict() }).strict();
    const run = async (_p: unknown, ctx: { signal: AbortSignal }) => {
      ctx.signal.throwIfAborted();
      return { properties: { default: "kept" } };
    };
    expect(await failuresOf(skillOf({ output: named, run }))).toEqual([]);
  });

  it("checks data as a client receives it: JSON", async () => {
    const failures = await failuresOf((BROKEN["output-valid/json"] as { register: never }).register);
    expect(String(failures[0]?.error)).toMatch(/example 1 \{"keyword":"lamp"\} answered data that is not JSON/);
  });

  it("skips a tool without an output schema", () => {
    const plan = planConformance(skillOf({ output: undefined }));
    expect(plan.checks.some((c) => c.title.includes("output schema"))).toBe(false);
  });

  it("says it checked nothing when every example ended in an error", async () => {
    const { failures, skipped } = await outcomesOf(unanswered);
    expect(failures).toEqual([]);
    expect(skipped).toEqual([
      {
        title: "find_items: each example's data matches its output schema",
        reason: expect.stringMatching(
          /^no example answered with data \(NOT_FOUND\), so the output schema was not checked/,
        ),
      },
    ]);
  });

  it("runs each example once, for the canary and the output checks together", async () => {
    let calls = 0;
    const counted = skillOf({
      examples: [{ keyword: "lamp" }, { keyword: "desk" }],
      run: async (p: { keyword: string }, ctx: { signal: AbortSignal }) => {
        ctx.signal.throwIfAborted();
        calls += 1;
        return { items: [p.keyword] };
      },
    });
    expect(await failuresOf(counted)).toEqual([]);
    expect(calls).toBe(2);
  });
});
