import type { Ajv2020 } from "ajv/dist/2020.js";
import { describeAjvErrors } from "../manifest/format-ajv-errors.js";
import type { ToolEntry } from "../registry/registry.js";

/** Valid arguments (defaults filled in, legacy shapes migrated), or why they were refused. */
export type Validation =
  | { ok: true; args: Record<string, unknown>; warnings: string[] }
  | { ok: false; field: string; message: string };

/** Thrown when a tool's published input schema does not compile: the skill's fault, not the caller's. */
export class SchemaCompileError extends Error {
  override readonly name = "SchemaCompileError";
}

/**
 * Validates call arguments against the tool's published JSON Schema, compiled once per tool on its first call;
 * schema defaults are filled in. Arguments that fail it but match one of the tool's legacy inputs are migrated,
 * validated again, and carry the legacy note as a warning.
 */
export function validateArguments(ajv: Ajv2020, entry: ToolEntry, raw: unknown): Validation {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, field: "/", message: "arguments must be a JSON object" };
  }
  // Before anything recursive (cloning for migration, the validator itself) sees them.
  const deep = deeperThan(raw, MAX_ARGUMENT_DEPTH);
  if (deep !== undefined) {
    return {
      ok: false,
      field: deep,
      message: `invalid arguments for ${entry.fullName}: they nest deeper than ${MAX_ARGUMENT_DEPTH} levels (at ${deep}); flatten them`,
    };
  }
  const legacy = entry.tool.legacy;
  // Validation fills in defaults; keep the original for the legacy shapes, which may not allow them.
  const original = legacy.length > 0 ? structuredClone(raw) : raw;
  entry.validate ??= compile(ajv, entry.tool.inputSchema, entry.fullName);
  if (entry.validate(raw)) return { ok: true, args: raw as Record<string, unknown>, warnings: [] };
  const problems = describeAjvErrors(entry.validate.errors ?? [], "pointer");

  if (legacy.length > 0) {
    entry.legacyValidators ??= entry.tool.legacySchemas.map((schema) => compile(ajv, schema, entry.fullName));
    for (const [index, matches] of entry.legacyValidators.entries()) {
      const candidate = structuredClone(original);
      const shape = legacy[index];
      if (shape === undefined || !matches(candidate)) continue;
      const migrated = shape.migrate(candidate as Record<string, unknown>);
      if (entry.validate(migrated)) return { ok: true, args: migrated, warnings: [shape.note] };
    }
  }

  const first = problems[0] ?? { where: "/", message: "does not match the input schema" };
  const all = problems.map((p) => `${label(p.where)} ${p.message}`).join("; ");
  return { ok: false, field: first.where, message: `invalid arguments for ${entry.fullName}: ${all}` };
}

/** How deeply call arguments may nest: far beyond any tool's schema, far below a stack overflow. */
export const MAX_ARGUMENT_DEPTH = 64;

// --- internal ---

/** The JSON pointer of the first value nested deeper than `limit`, found without recursion; undefined if none. */
function deeperThan(root: object, limit: number): string | undefined {
  const stack: { value: unknown; depth: number; at: string }[] = [{ value: root, depth: 0, at: "" }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, depth, at } = item;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= limit) return at;
    for (const [key, child] of Object.entries(value)) {
      if (typeof child === "object" && child !== null)
        stack.push({ value: child, depth: depth + 1, at: `${at}/${escapePointer(key)}` });
    }
  }
  return undefined;
}

function compile(ajv: Ajv2020, schema: object, tool: string) {
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new SchemaCompileError(`${tool}: ${(error as Error).message}`, { cause: error });
  }
}

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

function label(pointer: string): string {
  return pointer === "/" ? "the arguments" : pointer.slice(1);
}
