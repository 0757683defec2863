import type { PatternEngine } from "@skillport/host/surface";
import { upstreamPatterns } from "@skillport/host/surface";
import { checkPattern } from "./lint-skill.js";
import { messageOf } from "./message-of.js";

/** One pattern of an upstream tool's schemas worth a person's attention. */
export interface UpstreamPatternFinding {
  /** An error: the tool can never be called. A warning: it can, but the pattern is a hazard elsewhere. */
  severity: "error" | "warning";
  /** JSON pointer into the tool as listed: `/inputSchema/properties/text/pattern`. */
  pointer: string;
  message: string;
}

/**
 * The patterns of an upstream tool's input and output schemas, as `skillport check` and `skillport lock` report
 * them: each one `linear` (RE2) cannot compile is an error (the host refuses calls to the tool), and each one the
 * ReDoS checker recheck finds super-linear is a warning (the host runs it in linear time, but a client checking it
 * with a backtracking engine can be frozen by one string).
 *
 * @example
 * const { linearRegExp } = await import("@skillport/client/node");
 * lintUpstreamPatterns(tool, linearRegExp); // [{ severity: "warning", pointer: "/inputSchema/properties/q/pattern", … }]
 */
export function lintUpstreamPatterns(
  tool: { inputSchema: unknown; outputSchema?: unknown },
  linear: PatternEngine,
): UpstreamPatternFinding[] {
  const findings: UpstreamPatternFinding[] = [];
  for (const { pattern, pointer } of upstreamPatterns(tool)) {
    try {
      linear(pattern, "u");
    } catch (error) {
      findings.push({
        severity: "error",
        pointer,
        message: `${messageOf(error)}; the host refuses every call to this tool (UNAVAILABLE): leave it out with tools.exclude, or have the server rewrite the pattern`,
      });
      continue;
    }
    const verdict = checkPattern(pattern);
    if (verdict.status === "vulnerable") {
      findings.push({
        severity: "warning",
        pointer,
        message: `the pattern ${JSON.stringify(pattern)} takes ${verdict.complexity} time on inputs like ${verdict.attack} in a backtracking engine; the host runs it with RE2 (linear time), but a client checking it with JavaScript's RegExp can be frozen by one string`,
      });
    }
  }
  return findings;
}
