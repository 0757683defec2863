import type { JsonSchema } from "@skillport/core";
import { createAjv } from "./ajv.js";
import { describeAjvErrors } from "./format-ajv-errors.js";

/** What {@link compileSchema}'s check says about one value. */
export interface SchemaCheck {
  valid: boolean;
  /** A copy of the value with the schema's defaults filled in, as the pipeline hands arguments to `run`. */
  value: unknown;
  /** The first problem, starting with the JSON pointer at fault (`/keyword must …`); empty when valid. */
  problems: string[];
}

/**
 * Compiles a JSON Schema (draft 2020-12) with the same validator setup the host uses for call arguments: formats
 * checked, defaults filled, unknown keywords tolerated. The returned check never mutates its input. Throws when
 * the schema does not compile.
 *
 * @example
 * const check = compileSchema(tool.inputSchema);
 * check({ keyword: "a" }).problems; // ["/keyword must have at least 2 characters, got 1"]
 */
export function compileSchema(schema: JsonSchema): (value: unknown) => SchemaCheck {
  const validate = createAjv({ firstError: true }).compile(schema);
  return (input) => {
    const value = input === undefined ? undefined : structuredClone(input);
    if (validate(value)) return { valid: true, value, problems: [] };
    const problems = describeAjvErrors(validate.errors ?? [], "pointer").map((p) => `${p.where} ${p.message}`);
    return { valid: false, value, problems };
  };
}
