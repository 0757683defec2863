// The upstream pattern report `skillport check` and `skillport lock` print: with a stand-in for the client's linear
// engine (throws for what it cannot run, a RangeError for a text too long).
import type { PatternEngine } from "@skillport/host/surface";
import { standInPatternEngine } from "@skillport/test-utils";
import { describe, expect, it } from "vitest";
import { lintUpstreamPatterns } from "../src/lint-upstream.js";

const engine: PatternEngine = standInPatternEngine();

describe("lintUpstreamPatterns", () => {
  it("errs on a pattern the engine cannot run and warns on a super-linear one, in input and output schemas", () => {
    const findings = lintUpstreamPatterns(
      {
        inputSchema: { properties: { a: { pattern: "^(a+)+$" }, b: { pattern: "^[a-z]+$" } } },
        outputSchema: { properties: { c: { pattern: "^(?=a)a$" } } },
      },
      engine,
    );
    expect(findings).toEqual([
      expect.objectContaining({ severity: "warning", pointer: "/inputSchema/properties/a/pattern" }),
      expect.objectContaining({ severity: "error", pointer: "/outputSchema/properties/c/pattern" }),
    ]);
    expect(findings[0]?.message).toContain("exponential");
    expect(findings[1]?.message).toContain("lookahead");
  });
});
