import type { JsonSchema, RegisteredSkill, RegisteredTool } from "@skillport/core";
import { escapePointer, RISKS, resolveRef } from "@skillport/core";
import type { SchemaCheck } from "@skillport/host/surface";
import { compileSchema } from "@skillport/host/surface";
import { messageOf } from "./message-of.js";
import { requireFromTooling } from "./package-files.js";

/** The rules of the spec lint, shared by `skillport check` and `testSkill()`; each says what it asks. */
export const LINT_RULES = {
  "tool-name": "tool names are <verb>_<object>: lowercase words joined by _, at most 64 characters",
  "tool-description": "a tool's description tells a model what it does and when to use it (20+ characters, 3+ words)",
  "input-compiles": "the published input schema compiles",
  "input-described": "every input property has a description",
  "input-closed": 'every input object sets additionalProperties: false (a map sets a schema and "maxProperties")',
  "input-string-bounded": "every input string is bounded: maxLength, enum, const or a fixed-size format such as date",
  "input-array-bounded": "every input array sets maxItems",
  "input-number-bounded": "every input number has a lower and an upper bound",
  "input-pattern-linear":
    "every input pattern runs in linear time: the ReDoS checker recheck finds no input that makes it backtrack",
  "example-valid": "every example is valid against the published input schema",
  "example-missing": "a tool gives at least one example (its conformance checks run on them)",
  "risk-declared": "risk is one of read_only, write, dangerous",
  "brief-required": "write and dangerous tools have a buildBrief, for confirmation and audit",
  "brief-pure": "buildBrief returns the same non-empty string for the same input and never throws",
} as const;

/** The id of a spec lint rule. */
export type LintRule = keyof typeof LINT_RULES;

/** One thing the spec lint found. Errors fail `testSkill()` and `skillport check`; warnings are advice. */
export interface LintFinding {
  rule: LintRule;
  /** The tool's name inside its skill (`search_notes`). */
  tool: string;
  /** JSON pointer of the input property at fault (`/filters/keyword`, `*` for any item); absent for the whole tool. */
  field?: string;
  message: string;
  severity: "error" | "warning";
}

/**
 * The spec lint: checks every tool of a registered skill against {@link LINT_RULES} and returns what it finds,
 * errors first within each tool. Runs each example through the input schema and each `buildBrief`, but calls
 * no capability.
 *
 * @example
 * const findings = lintSkill(register());
 * const errors = findings.filter((f) => f.severity === "error");
 */
export function lintSkill(skill: RegisteredSkill): LintFinding[] {
  const findings: LintFinding[] = [];
  for (const tool of skill.tools) {
    const own: LintFinding[] = [];
    const add = (rule: LintRule, message: string, field?: string, severity: LintFinding["severity"] = "error") => {
      own.push({ rule, tool: tool.name, ...(field === undefined ? {} : { field }), message, severity });
    };
    lintName(tool, add);
    lintDescription(tool, add);
    lintInput(tool.inputSchema, add);
    lintPatterns(tool, add);
    if (!(RISKS as readonly string[]).includes(tool.risk)) {
      add("risk-declared", `risk ${JSON.stringify(tool.risk)} is not one of ${RISKS.join(", ")}; declare one`);
    }
    const samples = lintExamples(tool, add);
    lintBrief(tool, samples, add);
    own.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === "error" ? -1 : 1));
    findings.push(...own);
  }
  return findings;
}

/** One line for a person: `error input-described search_notes /keyword: …`. */
export function formatLintFinding(finding: LintFinding): string {
  const field = finding.field === undefined ? "" : ` ${finding.field}`;
  return `${finding.severity} ${finding.rule} ${finding.tool}${field}: ${finding.message}`;
}

// --- internal ---

type Add = (rule: LintRule, message: string, field?: string, severity?: LintFinding["severity"]) => void;

const VERB_OBJECT = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
const MAX_TOOL_NAME = 64;
const MIN_DESCRIPTION = 20;
const MIN_DESCRIPTION_WORDS = 3;
const PLACEHOLDER = /^(?:todo|tbd|fixme|xxx|description|lorem ipsum)\b/i;
/** Formats whose strings have a small fixed size, so no maxLength is needed. */
const BOUNDED_FORMATS = new Set(["date", "time", "date-time", "uuid", "ipv4", "ipv6"]);

function lintName(tool: RegisteredTool, add: Add): void {
  if (tool.name.length > MAX_TOOL_NAME) {
    add("tool-name", `"${tool.name}" has ${tool.name.length} characters; several model APIs refuse more than 64`);
  } else if (!VERB_OBJECT.test(tool.name)) {
    add(
      "tool-name",
      `"${tool.name}" is not <verb>_<object>: use lowercase words joined by "_", the verb first (e.g. search_notes)`,
    );
  }
}

function lintDescription(tool: RegisteredTool, add: Add): void {
  const text = typeof tool.description === "string" ? tool.description.trim() : "";
  const words = text.split(/\s+/).filter((w) => w !== "").length;
  // Chinese and Japanese descriptions have no spaces between words: count characters instead.
  const enoughWords = words >= MIN_DESCRIPTION_WORDS || /[\u3040-\u30ff\u4e00-\u9fff]{6}/u.test(text);
  if (
    text.length < MIN_DESCRIPTION ||
    !enoughWords ||
    PLACEHOLDER.test(text) ||
    text.toLowerCase() === (typeof tool.title === "string" ? tool.title.trim().toLowerCase() : "")
  ) {
    add(
      "tool-description",
      `the description ${JSON.stringify(text)} says too little for a model to choose this tool: say what it does, what it returns and when to use it`,
    );
  }
}

function lintInput(root: JsonSchema, add: Add): void {
  const seenRefs = new Set<string>();
  const visit = (schema: unknown, field: string, isProperty: boolean, isRoot: boolean): void => {
    if (typeof schema !== "object" || schema === null) return;
    let node = schema as JsonSchema;
    if (typeof node.$ref === "string") {
      if (seenRefs.has(node.$ref)) return; // a recursive schema: each definition is linted once
      seenRefs.add(node.$ref);
      const target = resolveRef(root, node.$ref);
      if (target === undefined) return;
      node = { ...target, ...withoutRef(node) };
    }
    const where = isRoot ? "the input" : field;
    if (isProperty && !(typeof node.description === "string" && node.description.trim() !== "")) {
      add("input-described", `${field} has no description; say what it is for the model (zod: .describe("…"))`, field);
    }
    const types = typesOf(node);
    const fixed = Array.isArray(node.enum) || "const" in node;
    if (types.has("string") && !fixed && typeof node.maxLength !== "number" && !isBoundedFormat(node.format)) {
      add(
        "input-string-bounded",
        `${where} is a string without maxLength; bound it (zod: .max(n)) or use an enum`,
        field || undefined,
      );
    }
    if (types.has("array") && !fixed && typeof node.maxItems !== "number") {
      add("input-array-bounded", `${where} is an array without maxItems; bound it (zod: .max(n))`, field || undefined);
    }
    if ((types.has("number") || types.has("integer")) && !fixed) {
      const low = isBound(node.minimum) || isBound(node.exclusiveMinimum);
      const high = isBound(node.maximum) || isBound(node.exclusiveMaximum);
      if (!low || !high) {
        add(
          "input-number-bounded",
          `${where} is a number without ${low ? "an upper" : high ? "a lower" : "a lower or an upper"} bound; bound it (zod: .min(a).max(b))`,
          field || undefined,
        );
      }
    }
    if (types.has("object")) {
      const extra = node.additionalProperties;
      const closed = extra === false || node.unevaluatedProperties === false;
      const boundedMap = typeof extra === "object" && extra !== null && typeof node.maxProperties === "number";
      if (!closed && !boundedMap) {
        add(
          "input-closed",
          typeof extra === "object" && extra !== null
            ? `${where} is a map without maxProperties; bound it`
            : `${where} accepts unknown fields; set additionalProperties: false (zod: .strict()) so a typo is refused, not ignored`,
          field || undefined,
        );
      }
    }
    const properties = node.properties;
    if (typeof properties === "object" && properties !== null) {
      for (const [name, child] of Object.entries(properties as Record<string, unknown>)) {
        visit(child, `${field}/${escapePointer(name)}`, true, false);
      }
    }
    if (typeof node.additionalProperties === "object") visit(node.additionalProperties, `${field}/*`, false, false);
    if (typeof node.items === "object") visit(node.items, `${field}/*`, false, false);
    for (const keyword of ["anyOf", "oneOf", "allOf"] as const) {
      const branches = node[keyword];
      if (Array.isArray(branches)) for (const branch of branches) visit(branch, field, false, isRoot);
    }
  };
  visit(root, "", false, true);
}

/**
 * Every regular expression a client's argument meets (`pattern`, `patternProperties`, in the input schema and the
 * legacy inputs, wherever they nest) is checked by recheck, a maintained ReDoS checker: a super-linear one lets a
 * single request hold the server's only thread for seconds or minutes.
 */
function lintPatterns(tool: RegisteredTool, add: Add): void {
  const schemas = [tool.inputSchema, ...(tool.legacySchemas ?? [])];
  for (const [index, schema] of schemas.entries()) {
    for (const { pattern, field } of patternsOf(schema)) {
      const verdict = checkPattern(pattern);
      if (verdict.status === "safe") continue;
      const which = index === 0 ? "" : ` (legacy input ${index})`;
      if (verdict.status === "vulnerable") {
        add(
          "input-pattern-linear",
          `the pattern ${JSON.stringify(pattern)}${which} takes ${verdict.complexity} time on inputs like ${verdict.attack}; rewrite it so no two parts can match the same characters (or check the rule in the capability)`,
          field || undefined,
        );
      } else {
        add(
          "input-pattern-linear",
          `the pattern ${JSON.stringify(pattern)}${which} could not be checked for ReDoS (${verdict.reason}); simplify it`,
          field || undefined,
          "warning",
        );
      }
    }
  }
}

/** Every `pattern` and `patternProperties` key in a schema, with the JSON pointer of where it sits. */
function patternsOf(schema: JsonSchema): { pattern: string; field: string }[] {
  const found: { pattern: string; field: string }[] = [];
  const stack: { node: unknown; at: string }[] = [{ node: schema, at: "" }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, at } = item;
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (const child of node) stack.push({ node: child, at });
      continue;
    }
    const record = node as Record<string, unknown>;
    if (typeof record.pattern === "string") found.push({ pattern: record.pattern, field: at });
    const patternProperties = record.patternProperties;
    if (typeof patternProperties === "object" && patternProperties !== null) {
      for (const key of Object.keys(patternProperties)) found.push({ pattern: key, field: `${at}/*` });
    }
    for (const [key, child] of Object.entries(record)) {
      if (VALUE_KEYWORDS.has(key)) continue; // data, not schemas: a "pattern" inside an example is not one
      if (key === "properties" && typeof child === "object" && child !== null) {
        for (const [name, sub] of Object.entries(child)) stack.push({ node: sub, at: `${at}/${escapePointer(name)}` });
      } else if (key === "items" || key === "prefixItems" || key === "additionalProperties") {
        stack.push({ node: child, at: `${at}/*` });
      } else stack.push({ node: child, at });
    }
  }
  return found;
}

/** Keywords whose values are data rather than schemas. */
const VALUE_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/** What recheck says of one pattern. */
type PatternVerdict =
  | { status: "safe" }
  | { status: "vulnerable"; complexity: string; attack: string }
  | { status: "unknown"; reason: string };

/** Verdicts by pattern: the same pattern appears in many tools (and every conformance run asks again). */
const verdicts = new Map<string, PatternVerdict>();

/** recheck's verdict on a pattern (ECMA-262, the u flag), remembered per pattern. */
export function checkPattern(pattern: string): PatternVerdict {
  const known = verdicts.get(pattern);
  if (known !== undefined) return known;
  let verdict: PatternVerdict;
  try {
    new RegExp(pattern, "u"); // ajv compiles patterns with the u flag; an invalid one is input-compiles' finding
    // Loaded on first use: the checker is large, and only check and the conformance suite lint.
    const { checkSync } = requireFromTooling("recheck") as typeof import("recheck");
    const result = checkSync(pattern, "u", { timeout: 10_000 });
    if (result.status === "safe") verdict = { status: "safe" };
    else if (result.status === "vulnerable") {
      verdict = {
        status: "vulnerable",
        complexity:
          result.complexity.type === "exponential" ? "exponential" : `polynomial (degree ${result.complexity.degree})`,
        attack: result.attack.pattern,
      };
    } else verdict = { status: "unknown", reason: result.error.kind };
  } catch (error) {
    verdict = { status: "unknown", reason: messageOf(error) };
  }
  verdicts.set(pattern, verdict);
  return verdict;
}

/** Checks the examples; returns them with defaults filled in, as `run` and `buildBrief` would receive them. */
function lintExamples(tool: RegisteredTool, add: Add): unknown[] {
  let check: (value: unknown) => SchemaCheck;
  try {
    check = compileSchema(tool.inputSchema);
  } catch (error) {
    add("input-compiles", `the input schema does not compile: ${messageOf(error)}`);
    return [];
  }
  const examples = Array.isArray(tool.examples) ? tool.examples : [];
  if (examples.length === 0) {
    add(
      "example-missing",
      "no examples: add one or more valid arguments under `examples`; the conformance checks run on them",
      undefined,
      "warning",
    );
  }
  const valid: unknown[] = [];
  examples.forEach((example, index) => {
    const result = check(example);
    if (result.valid) valid.push(result.value);
    else {
      add(
        "example-valid",
        `example ${index + 1} ${JSON.stringify(example)} does not match the input schema: ${result.problems.join("; ")}`,
        result.problems[0]?.split(" ")[0],
      );
    }
  });
  return valid;
}

function lintBrief(tool: RegisteredTool, samples: unknown[], add: Add): void {
  if (tool.buildBrief === undefined) {
    if (tool.risk === "write" || tool.risk === "dangerous") {
      add(
        "brief-required",
        `a ${tool.risk} tool needs a buildBrief: one line saying what this call will do, shown for confirmation and audit`,
      );
    }
    return;
  }
  for (const [index, sample] of samples.entries()) {
    const label = `example ${index + 1}`;
    let first: unknown;
    let second: unknown;
    try {
      first = tool.buildBrief(structuredClone(sample) as Record<string, unknown>);
      second = tool.buildBrief(structuredClone(sample) as Record<string, unknown>);
    } catch (error) {
      add("brief-pure", `buildBrief throws on ${label}: ${messageOf(error)}`);
      continue;
    }
    if (typeof first !== "string" || first.trim() === "") {
      add(
        "brief-pure",
        `buildBrief returns ${describe(first)} on ${label}; return one non-empty line, synchronously, with no I/O`,
      );
    } else if (first !== second) {
      add(
        "brief-pure",
        `buildBrief returns different text for the same input (${label}): ${JSON.stringify(first)} then ${JSON.stringify(second)}; it must not read clocks, randomness or state`,
      );
    }
  }
}

function typesOf(node: JsonSchema): Set<string> {
  const type = node.type;
  if (typeof type === "string") return new Set([type]);
  if (Array.isArray(type)) return new Set(type.filter((t): t is string => typeof t === "string"));
  return new Set();
}

/** zod's `.int()` publishes ±Number.MAX_SAFE_INTEGER: that is the type's range, not a bound the author chose. */
function isBound(value: unknown): boolean {
  return typeof value === "number" && Math.abs(value) < Number.MAX_SAFE_INTEGER;
}

function isBoundedFormat(format: unknown): boolean {
  return typeof format === "string" && BOUNDED_FORMATS.has(format);
}

function withoutRef(node: JsonSchema): JsonSchema {
  const { $ref: _ref, ...rest } = node;
  return rest;
}

function describe(value: unknown): string {
  if (value instanceof Promise) return "a Promise";
  if (typeof value === "string") return "an empty string";
  return value === null ? "null" : typeof value;
}
