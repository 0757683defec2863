import type { Ajv2020 } from "ajv/dist/2020.js";
import { describeAjvErrors } from "../manifest/format-ajv-errors.js";
import type { ToolEntry } from "../registry/registry.js";

/** Why arguments were refused: the first field at fault and a message listing every problem. */
export interface ArgumentProblem {
  field: string;
  message: string;
}

/**
 * Validates call arguments against the tool's published JSON Schema, compiled once per tool on its first call.
 * Defaults from the schema are filled into `args`. Returns undefined when the arguments are valid.
 */
export function validateArguments(ajv: Ajv2020, entry: ToolEntry, args: unknown): ArgumentProblem | undefined {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { field: "/", message: "arguments must be a JSON object" };
  }
  entry.validate ??= compile(ajv, entry);
  if (entry.validate(args)) return undefined;
  const problems = describeAjvErrors(entry.validate.errors ?? [], "pointer");
  const first = problems[0] ?? { where: "/", message: "does not match the input schema" };
  const all = problems.map((p) => `${label(p.where)} ${p.message}`).join("; ");
  return { field: first.where, message: `invalid arguments for ${entry.fullName}: ${all}` };
}

/** Thrown when a tool's published input schema does not compile: the skill's fault, not the caller's. */
export class SchemaCompileError extends Error {
  override readonly name = "SchemaCompileError";
}

// --- internal ---

function compile(ajv: Ajv2020, entry: ToolEntry) {
  try {
    return ajv.compile(entry.tool.inputSchema);
  } catch (error) {
    throw new SchemaCompileError(`${entry.fullName}: ${(error as Error).message}`, { cause: error });
  }
}

function label(pointer: string): string {
  return pointer === "/" ? "the arguments" : pointer.slice(1);
}
