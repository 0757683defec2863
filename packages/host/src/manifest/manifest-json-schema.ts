// Build time only: turns the manifest's zod schemas into the published manifest.schema.json text.
// scripts/generate-manifest-schema.mjs writes it; test/manifest-schema.test.ts checks the committed file matches.
import { z } from "zod";
import { ManifestSchema } from "./manifest-schema.js";

/** The file generated from {@link ManifestSchema}, beside the package.json of @skillport/host. */
export const MANIFEST_SCHEMA_FILE = "manifest.schema.json";

/**
 * The text of manifest.schema.json: the manifest's JSON Schema (draft 2020-12) as zod emits it from
 * {@link ManifestSchema} for what a person writes (`io: "input"`: defaulted fields optional), tidied of what zod adds
 * but the schema says anyway (see {@link tidy}), keys in a fixed order, laid out as the repository's formatter does.
 */
export function manifestSchemaText(): string {
  const schema = z.toJSONSchema(ManifestSchema, { target: "draft-2020-12", io: "input", unrepresentable: "throw" });
  return `${layout(tidy(schema as Record<string, unknown>), 0, 0)}\n`;
}

// --- internal ---

/**
 * JSON laid out as Biome (and Prettier) format a .json file: every object one key a line; an array on one line when
 * it holds no object and fits in the line width, else one item a line. `value` starts `used` characters into a line
 * indented by `indent`.
 */
function layout(value: unknown, indent: number, used: number): string {
  const pad = " ".repeat(indent + 2);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const line = oneLine(value);
    // `used` counts what precedes the value on its line; 1 more for the comma that may follow it.
    if (line !== undefined && used + line.length + 1 <= LINE_WIDTH) return line;
    const items = value.map((item) => `${pad}${layout(item, indent + 2, pad.length)}`);
    return `[\n${items.join(",\n")}\n${" ".repeat(indent)}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    const lines = entries.map(([key, item]) => {
      const head = `${pad}${JSON.stringify(key)}: `;
      return `${head}${layout(item, indent + 2, head.length)}`;
    });
    return `{\n${lines.join(",\n")}\n${" ".repeat(indent)}}`;
  }
  return JSON.stringify(value);
}

/** Biome's line width for this repository (biome.json). */
const LINE_WIDTH = 120;

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

/** An array of values and arrays on one line, as `["a", 1]`; undefined when it holds an object. */
function oneLine(value: unknown): string | undefined {
  if (!Array.isArray(value)) return isObject(value) ? undefined : JSON.stringify(value);
  const items = value.map(oneLine);
  return items.includes(undefined) ? undefined : `[${items.join(", ")}]`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
