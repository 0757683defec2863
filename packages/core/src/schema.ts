import type { z } from "zod";
import { toJSONSchema } from "zod";

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = { [key: string]: unknown };

/** A tool input, output or config: a zod v4 schema or a plain JSON Schema object. */
export type SchemaInput = z.ZodType | JsonSchema;

export const JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

/** True for a zod v4 schema (classic or mini). */
export function isZodSchema(schema: unknown): schema is z.ZodType {
  return typeof schema === "object" && schema !== null && "_zod" in schema;
}

/**
 * The JSON Schema (draft 2020-12) published for a schema. zod schemas are converted in their input shape
 * (defaults make a field optional) or, for `io: "output"`, their output shape; plain JSON Schema objects are
 * copied. Throws when a zod schema holds something JSON Schema cannot say: a transform or preprocess in an input
 * (the host validates with the JSON Schema alone, so it would never run), a Date, a custom check; and for a
 * plain JSON Schema that declares another draft than 2020-12.
 */
export function toJsonSchema(schema: SchemaInput, io: "input" | "output" = "input"): JsonSchema {
  if (isZodSchema(schema)) {
    if (io === "input" && hasTransform(schema)) {
      throw new Error(
        "Transforms cannot be represented in JSON Schema: the host validates with the published schema alone, so a transform or preprocess in an input would never run; convert in the capability instead",
      );
    }
    return toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "throw" }) as JsonSchema;
  }
  const declared = schema.$schema;
  if (declared !== undefined && String(declared).replace(/#$/, "") !== JSON_SCHEMA_DIALECT) {
    throw new Error(
      `it declares "$schema": ${JSON.stringify(declared)}; write JSON Schema draft 2020-12 (${JSON_SCHEMA_DIALECT}) or leave "$schema" out`,
    );
  }
  return { ...structuredClone(schema), $schema: JSON_SCHEMA_DIALECT };
}

// --- internal ---

/** True when a transform (`.transform()`, `z.preprocess()`, `z.transform()`) is anywhere inside a zod schema. */
function hasTransform(schema: z.ZodType): boolean {
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): boolean => {
    if (typeof value !== "object" || value === null || seen.has(value) || depth > 200) return false;
    seen.add(value);
    if (isZodSchema(value)) {
      const def = value._zod.def as { type: string };
      return def.type === "transform" || visit(def, depth + 1);
    }
    return Object.values(value).some((child) => visit(child, depth + 1));
  };
  return visit(schema, 0);
}
