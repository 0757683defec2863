import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { RegisterSkill } from "@skillport/core";
import { defineSkill, defineTool } from "@skillport/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { LintFinding } from "../src/lint-skill.js";
import { formatLintFinding, LINT_RULES, lintSkill } from "../src/lint-skill.js";

/** A skill written as the bundled ones are (zod inputs, bounds, patterns, briefs). */
// The host's notebook fixture, one copy for both packages' tests.
const NOTEBOOK = fileURLToPath(new URL("../../host/test/fixtures/skill-notebook/", import.meta.url));

const good = {
  name: "search_items",
  title: "Search items",
  description: "Search the items by keyword and return the best matches first.",
  input: z.object({ keyword: z.string().min(1).max(40).describe("What to look for") }).strict(),
  risk: "read_only" as const,
  examples: [{ keyword: "lamp" }],
  run: () => ({}),
};

function lint(tool: Record<string, unknown>): LintFinding[] {
  return lintSkill(defineSkill({ name: "demo", tools: [defineTool({ ...good, ...tool } as never)] })());
}

const rules = (findings: LintFinding[]) => findings.map((f) => [f.rule, f.field ?? ""]);

describe("lintSkill", () => {
  it("finds nothing wrong with a skill written as the bundled ones are (zod inputs, bounds, patterns, briefs)", async () => {
    const { register } = (await import(pathToFileURL(path.join(NOTEBOOK, "index.js")).href)) as {
      register: RegisterSkill;
    };
    expect(lintSkill(register()).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("finds nothing wrong with a small well-described tool", () => {
    expect(lint({})).toEqual([]);
  });

  it.each([
    ["a camelCase name", { name: "searchItems" }, "tool-name"],
    ["a single word", { name: "search" }, "tool-name"],
    ["a short description", { description: "Search." }, "tool-description"],
    ["a placeholder description", { description: "TODO write a description of this tool" }, "tool-description"],
    ["an unknown risk", { risk: "harmless" }, "risk-declared"],
    ["a write tool without a brief", { risk: "write" }, "brief-required"],
    ["a dangerous tool without a brief", { risk: "dangerous" }, "brief-required"],
    ["a brief that throws", { buildBrief: () => JSON.parse("{") }, "brief-pure"],
    ["a brief that is not a string", { buildBrief: () => Promise.resolve("x") }, "brief-pure"],
    [
      "a brief that reads the clock",
      {
        buildBrief: (() => {
          let n = 0;
          return () => `call ${n++}`;
        })(),
      },
      "brief-pure",
    ],
    ["an invalid example", { examples: [{ keyword: "" }] }, "example-valid"],
  ])("reports %s", (_case, tool, rule) => {
    const findings = lint(tool);
    expect(findings.map((f) => f.rule)).toEqual([rule]);
    expect(findings[0]).toMatchObject({ tool: (tool as { name?: string }).name ?? "search_items", severity: "error" });
  });

  describe("input-pattern-linear", () => {
    const withPattern = (
      pattern: string,
      where: "property" | "nested" | "legacy" | "patternProperties" = "property",
    ) => {
      const keyword = { type: "string", maxLength: 40, description: "What to look for", pattern };
      if (where === "legacy") {
        return {
          legacy: [
            {
              input: {
                type: "object",
                properties: { query: keyword },
                required: ["query"],
                additionalProperties: false,
              },
              migrate: (old: { query: string }) => ({ keyword: old.query }),
              note: "send keyword",
            },
          ],
        };
      }
      const property =
        where === "nested"
          ? {
              type: "object",
              description: "filters",
              additionalProperties: false,
              properties: { anyOf: { anyOf: [keyword] } },
            }
          : where === "patternProperties"
            ? {
                type: "object",
                description: "labels",
                maxProperties: 4,
                patternProperties: { [pattern]: { type: "string", maxLength: 4 } },
                additionalProperties: { type: "string", maxLength: 4 },
              }
            : keyword;
      return {
        input: { type: "object", properties: { keyword: property }, additionalProperties: false },
        examples: [],
      };
    };

    it.each([
      ["an exponential pattern", "^(a+)+$", "property", "/keyword"],
      ["a polynomial pattern (the old notes title)", "^[^\\p{Cc}]*[^\\p{Cc}\\s][^\\p{Cc}]*$", "property", "/keyword"],
      ["a pattern inside anyOf", "^(\\w+\\s?)*$", "nested", "/keyword/anyOf"],
      ["a patternProperties key", "^(a|a)*$", "patternProperties", "/keyword/*"],
      ["a legacy input's pattern", "^(a+)+$", "legacy", "/query"],
    ] as const)("rejects %s, naming the field and an input that triggers it", (_case, pattern, where, field) => {
      const findings = lint(withPattern(pattern, where)).filter((f) => f.rule === "input-pattern-linear");
      expect(findings).toEqual([expect.objectContaining({ severity: "error", field })]);
      expect(findings[0]?.message).toMatch(/takes (exponential|polynomial \(degree \d+\)) time on inputs like/);
    });

    it.each([
      ["an anchored character class", "^[A-Za-z0-9+#._ -]+$"],
      ["the linear notes title", "^[^\\S\\p{Cc}]*[^\\p{Cc}\\s][^\\p{Cc}]*$"],
      ["base64's alphabet", "^[A-Za-z0-9+/]*={0,2}$"],
    ])("accepts %s", (_case, pattern) => {
      expect(lint(withPattern(pattern)).filter((f) => f.rule === "input-pattern-linear")).toEqual([]);
    });

    it("ignores strings that are data, not schemas", () => {
      const input = {
        type: "object",
        properties: { keyword: { type: "string", maxLength: 9, description: "x", default: "a", examples: ["(a+)+"] } },
        additionalProperties: false,
        examples: [{ pattern: "^(a+)+$" }],
      };
      expect(lint({ input, examples: [{ keyword: "lamp" }] })).toEqual([]);
    });
  });

  it("reports a tool without examples as a warning", () => {
    expect(lint({ examples: [] })).toEqual([expect.objectContaining({ rule: "example-missing", severity: "warning" })]);
  });

  it("walks the input schema, naming each field by its JSON pointer", () => {
    const input = {
      type: "object",
      properties: {
        text: { type: "string", description: "free text" },
        count: { type: "integer", minimum: 0, description: "how many" },
        tags: { type: "array", items: { type: "string", maxLength: 10 }, description: "labels" },
        filter: {
          type: "object",
          properties: { from: { type: "string", format: "date" } },
          description: "a filter",
        },
        mode: { enum: ["a", "b"] },
        meta: { type: "object", additionalProperties: { type: "string", maxLength: 5 }, description: "extras" },
      },
    };
    expect(rules(lint({ input, examples: [{}] }))).toEqual([
      ["input-closed", ""],
      ["input-string-bounded", "/text"],
      ["input-number-bounded", "/count"],
      ["input-array-bounded", "/tags"],
      ["input-closed", "/filter"],
      ["input-described", "/filter/from"],
      ["input-described", "/mode"],
      ["input-closed", "/meta"],
    ]);
  });

  it("accepts bounded strings by enum, const or a fixed-size format, and bounded maps", () => {
    const input = z
      .object({
        day: z.iso.date().optional().describe("a day"),
        kind: z.enum(["x", "y"]).describe("a kind"),
        fixed: z.literal("v1").describe("a version"),
        when: z.number().gt(0).lt(1).optional().describe("a fraction"),
      })
      .strict();
    expect(lint({ input, examples: [{ kind: "x", fixed: "v1" }] })).toEqual([]);
  });

  it("reports an input schema that does not compile", () => {
    const input = {
      type: "object",
      properties: { a: { type: "no-such-type", description: "x" } },
      additionalProperties: false,
    };
    expect(rules(lint({ input }))).toContainEqual(["input-compiles", ""]);
  });

  it("formats a finding naming the rule, the tool and the field", () => {
    const [finding] = lint({ input: z.object({ q: z.string().describe("query") }).strict(), examples: [{ q: "a" }] });
    expect(formatLintFinding(finding as LintFinding)).toBe(
      "error input-string-bounded search_items /q: /q is a string without maxLength; bound it (zod: .max(n)) or use an enum",
    );
  });

  it("documents every rule", () => {
    expect(Object.keys(LINT_RULES)).toHaveLength(14);
  });
});

describe("lintSkill on numbers", () => {
  it("does not take zod's safe-integer range for a bound", () => {
    const input = z.object({ n: z.number().int().min(1).describe("how many") }).strict();
    expect(rules(lint({ input, examples: [{ n: 1 }] }))).toEqual([["input-number-bounded", "/n"]]);
  });
});
