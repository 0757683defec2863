import type { JsonSchema } from "@skillport/core";
import type { ValidateFunction } from "ajv";
import type { Runnable } from "../entries/tool-entry.js";
import { messageOf } from "../errors/host-error.js";
import type { SchemaCompiler } from "../schema/ajv.js";
import { describeAjvErrors } from "../schema/format-ajv-errors.js";

/** Thrown when a tool's published schema does not compile: the skill's fault, not the caller's. */
export class SchemaCompileError extends Error {
  override readonly name = "SchemaCompileError";
}

/** A compiled check of one schema: the first problem, or undefined when the value passes (defaults filled in). */
type Check = (value: unknown) => { where: string; message: string } | undefined;

/** A runnable's checks, each compiled on first use and then reused for every call. */
export interface Validators {
  input(runnable: Runnable): Check;
  /** The legacy shapes' checks, in the order declared. */
  legacy(runnable: Runnable): readonly Check[];
  /** The check of `data` against the tool's output schema; undefined when it declares none. */
  output(runnable: Runnable): Check | undefined;
  /** The check of any published schema (a template's variables, a prompt's arguments), compiled once per schema. */
  schema(schema: JsonSchema, which: string): Check;
}

/**
 * The host's validators for calls: ajv with the first error winning (an oversized string is refused before its
 * pattern runs), filling defaults into arguments but never into results, and a cache per runnable, so each schema
 * compiles once, on the first call that needs it.
 */
export function createValidators(ajv: SchemaCompiler, outputAjv: SchemaCompiler): Validators {
  const inputs = new WeakMap<Runnable, Check>();
  const legacies = new WeakMap<Runnable, readonly Check[]>();
  const outputs = new WeakMap<Runnable, Check | undefined>();
  const schemas = new WeakMap<JsonSchema, Check>();
  const compile = (schema: JsonSchema, which: string, using: SchemaCompiler = ajv): Check => {
    let validate: ValidateFunction;
    try {
      validate = using.compile(schema);
    } catch (error) {
      throw new SchemaCompileError(`${which}: ${messageOf(error)}`, { cause: error });
    }
    return (value) => {
      try {
        if (validate(value)) return undefined;
      } catch (error) {
        // An upstream schema's pattern refuses a string too long to search (or the value is too deep to walk).
        if (error instanceof RangeError) return { where: "/", message: messageOf(error) };
        throw error;
      }
      const [first] = describeAjvErrors(validate.errors ?? [], "pointer");
      return first ?? { where: "/", message: "does not match the schema" };
    };
  };
  return {
    input(runnable) {
      let check = inputs.get(runnable);
      if (check === undefined) {
        check = compile(runnable.inputSchema, "input schema", runnable.compiler);
        inputs.set(runnable, check);
      }
      return check;
    },
    legacy(runnable) {
      let checks = legacies.get(runnable);
      if (checks === undefined) {
        checks = runnable.legacy.map((shape, index) =>
          compile(shape.schema, `legacy input ${index + 1}`, runnable.compiler),
        );
        legacies.set(runnable, checks);
      }
      return checks;
    },
    output(runnable) {
      if (!outputs.has(runnable)) {
        outputs.set(
          runnable,
          runnable.outputSchema === undefined ? undefined : compile(runnable.outputSchema, "output schema", outputAjv),
        );
      }
      return outputs.get(runnable);
    },
    schema(schema, which) {
      let check = schemas.get(schema);
      if (check === undefined) {
        check = compile(schema, which);
        schemas.set(schema, check);
      }
      return check;
    },
  };
}
