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
 * (defaults make a field optional); plain JSON Schema objects are copied as they are.
 * Throws when a zod schema holds something JSON Schema cannot say (a transform, a custom check).
 */
export function toJsonSchema(schema: SchemaInput): JsonSchema {
  if (isZodSchema(schema)) {
    return toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "throw" }) as JsonSchema;
  }
  return { $schema: JSON_SCHEMA_DIALECT, ...structuredClone(schema) };
}
