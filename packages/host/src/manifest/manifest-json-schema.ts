// Build time only: turns the manifest's zod schemas into the published manifest.schema.json text.
// scripts/generate-manifest-schema.mjs writes it; test/manifest-schema.test.ts checks the committed file matches.
import { z } from "zod";
import { formatJson } from "../json/format-json.js";
import { ManifestSchema } from "./manifest-schema.js";

/** The file generated from {@link ManifestSchema}, beside the package.json of @skillport/host. */
export const MANIFEST_SCHEMA_FILE = "manifest.schema.json";

/**
 * The text of manifest.schema.json: the manifest's JSON Schema (draft 2020-12) as zod emits it from
 * {@link ManifestSchema} for what a person writes (`io: "input"`: defaulted fields optional), tidied of what zod adds
 * but the schema says anyway (see {@link tidy}), keys in a fixed order, laid out as the repository's formatter does
 * ({@link formatJson}).
 */
export function manifestSchemaText(): string {
  const schema = z.toJSONSchema(ManifestSchema, { target: "draft-2020-12", io: "input", unrepresentable: "throw" });
  return formatJson(tidy(schema as Record<string, unknown>));
}

// --- internal ---

/** Keys a reader looks for first, and keys that hold large nested schemas, last; the rest keep zod's order. */
const FIRST = ["$schema", "$id", "title", "description", "$ref", "type", "required", "additionalProperties"];
const LAST = ["default", "examples", "propertyNames", "items", "properties", "oneOf", "anyOf", "allOf", "not", "$defs"];

/** Keywords whose value is a schema, or a list or map of schemas: where {@link tidy} recurses. */
const SCHEMA = ["additionalProperties", "propertyNames", "items", "not"];
const SCHEMA_LISTS = ["oneOf", "anyOf", "allOf"];
const SCHEMA_MAPS = ["properties", "$defs"];

/**
 * What zod writes that the schema already says, removed, so the published file reads as written by hand:
 * - `type` beside `enum` (the values say it; ajv would report a wrong type twice);
 * - the ±2^53-1 bounds of every `z.int()` (the type's range, not a bound anyone chose);
 * - `propertyNames: { type: "string" }` and `additionalProperties: {}` (every key is a string; anything is allowed).
 */
function tidy(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schema };
  if ("enum" in out) delete out.type;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (isObject(out.propertyNames) && sameJson(out.propertyNames, { type: "string" })) delete out.propertyNames;
  if (isObject(out.additionalProperties) && sameJson(out.additionalProperties, {})) delete out.additionalProperties;
  for (const key of SCHEMA) if (isObject(out[key])) out[key] = tidy(out[key] as Record<string, unknown>);
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(out[key])) out[key] = (out[key] as Record<string, unknown>[]).map(tidy);
  }
  for (const key of SCHEMA_MAPS) {
    if (isObject(out[key])) {
      out[key] = Object.fromEntries(
        Object.entries(out[key] as Record<string, Record<string, unknown>>).map(([name, s]) => [name, tidy(s)]),
      );
    }
  }
  const keys = Object.keys(out);
  const rank = (key: string) => (FIRST.includes(key) ? FIRST.indexOf(key) - 100 : LAST.indexOf(key));
  return Object.fromEntries(keys.sort((a, b) => rank(a) - rank(b)).map((key) => [key, out[key]]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
