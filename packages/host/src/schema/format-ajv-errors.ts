import { escapePointer } from "@skillport/core";
import type { ErrorObject } from "ajv";

/**
 * Turns ajv errors into one line each: where (as `skills[1].mcp`, or a JSON pointer for tool arguments), what is
 * wrong, and what is allowed. Duplicates (ajv repeats itself under `anyOf`) are dropped.
 */
export function describeAjvErrors(errors: readonly ErrorObject[], style: "path" | "pointer", root = ""): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  // A value matching none of several forms gets one line naming the forms, not one per failed branch.
  const alternatives = errors.filter((e) => e.keyword === "oneOf" || e.keyword === "anyOf");
  for (const error of errors) {
    if (error.keyword === "if") continue; // the failing "then" branch says what is wrong
    if (error.keyword === "propertyNames") continue; // the error about the name itself says what is wrong
    if (alternatives.some((a) => a !== error && error.schemaPath.startsWith(`${a.schemaPath}/`))) continue;
    const problem = describeAjvError(error, style, root);
    const key = `${problem.where}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

export interface Problem {
  /** A JSON pointer (`/keyword`) or a path (`skills[1].mcp`). */
  where: string;
  /** What is wrong, without the location. */
  message: string;
}

/** A JSON pointer as a person reads it: `/skills/1/mcp` → `skills[1].mcp`. */
function pointerToPath(pointer: string, root = ""): string {
  let out = root;
  for (const raw of pointer.split("/").slice(1)) {
    const segment = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === "" ? "(root)" : out;
}

// --- internal ---

function describeAjvError(error: ErrorObject, style: "path" | "pointer", root: string): Problem {
  let pointer = error.instancePath;
  let message: string;
  const p = error.params as Record<string, unknown>;
  // An error about a key of an object (propertyNames) points at the key, and says it is the name that is wrong.
  const name = error.propertyName;
  if (name !== undefined) {
    pointer += `/${escapePointer(name)}`;
    if (error.keyword === "not") {
      const reason = (error.parentSchema as { description?: string } | undefined)?.description;
      return {
        where: style === "pointer" ? pointer : pointerToPath(pointer, root),
        message: `${JSON.stringify(name)} is not allowed as a name${reason ? ` (${reason})` : ""}`,
      };
    }
  }
  switch (error.keyword) {
    case "required":
      pointer += `/${escapePointer(String(p.missingProperty))}`;
      message = "is required but missing";
      break;
    case "additionalProperties": {
      pointer += `/${escapePointer(String(p.additionalProperty))}`;
      const allowed = allowedProperties(error);
      message = `is not a known field${allowed ? `; allowed fields are ${allowed}` : ""}`;
      break;
    }
    case "type":
      message = `must be ${article(String(p.type))}, got ${describeValue(error.data)}`;
      break;
    case "enum":
      message = `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}, got ${describeValue(error.data)}`;
      break;
    case "const":
      message = `must be ${JSON.stringify(p.allowedValue)}`;
      break;
    case "minLength":
      message = `must have at least ${String(p.limit)} characters, got ${lengthOf(error.data)}`;
      break;
    case "maxLength":
      message = `must have at most ${String(p.limit)} characters, got ${lengthOf(error.data)}`;
      break;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      message = `must be ${String(p.comparison)} ${String(p.limit)}, got ${describeValue(error.data)}`;
      break;
    case "minItems":
      message = `must have at least ${String(p.limit)} items`;
      break;
    case "maxItems":
      message = `must have at most ${String(p.limit)} items`;
      break;
    case "format":
      message = `must be a valid ${String(p.format)}${p.format === "date" ? " (a real calendar date, YYYY-MM-DD)" : ""}, got ${describeValue(error.data)}`;
      break;
    case "pattern":
      message = `must match the pattern ${String(p.pattern)}, got ${describeValue(error.data)}`;
      break;
    case "oneOf":
    case "anyOf": {
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      message = `matches none of the allowed forms${description ? ` (${description})` : ""}, got ${describeValue(error.data)}`;
      break;
    }
    default:
      message = error.message ?? `fails the "${error.keyword}" rule`;
  }
  if (name !== undefined) message = `the name ${message}`;
  return { where: style === "pointer" ? pointer || "/" : pointerToPath(pointer, root), message };
}

function allowedProperties(error: ErrorObject): string | undefined {
  const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties === undefined ? undefined : Object.keys(properties).join(", ");
}

/** A string's length as JSON Schema counts it, in code points (a surrogate pair is one), without copying it. */
function lengthOf(value: unknown): string {
  if (typeof value !== "string") return describeValue(value);
  return String(value.length - (value.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0));
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
