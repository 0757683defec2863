import type { JsonSchema } from "@skillport/core";
import { resolveRef } from "@skillport/core";
import fc from "fast-check";

/**
 * Values near a JSON Schema, for property-based checks: mostly shaped like the schema, probing its edges (lengths
 * and numbers at and just past each bound, missing required fields, unknown fields, enum values, dates that do not
 * exist) and now and then of another type entirely. Valid and invalid values both come out; every value is plain
 * JSON, as arguments arrive over the wire.
 *
 * Strings use characters of the Basic Multilingual Plane only: JSON Schema counts a string's length in code points
 * and zod in UTF-16 units, so an emoji near a bound would differ by design, not by a skill's mistake.
 */
export function nearSchema(schema: JsonSchema): fc.Arbitrary<unknown> {
  return shaped(schema, schema, 0).map((value) => wire(value ?? null));
}

// --- internal ---

/**
 * The value as it arrives over the wire, what `JSON.parse(JSON.stringify(value))` gives, without copying strings
 * (a string bound of millions of characters would be copied twice per sample): `undefined` fields dropped, array
 * holes and non-finite numbers as null, -0 as 0.
 */
function wire(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? value + 0 : null;
  if (typeof value === "string" || typeof value === "boolean" || value === null) return value;
  if (Array.isArray(value)) return Array.from(value, (item) => (item === undefined ? null : wire(item)));
  if (typeof value === "object") {
    // fromEntries defines own properties, so a "__proto__" key stays a plain field, as JSON.parse makes it.
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, wire(item)]),
    );
  }
  return null;
}

const MAX_DEPTH = 4;

/** A value of any other shape: the mutation every node may take. */
const otherType: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
);

const char: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom(" ", "\t", "\n", "\u00a0", "\u3000") },
  { weight: 2, arbitrary: fc.integer({ min: 0x4e00, max: 0x9fff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0x2fff }).map((c) => String.fromCharCode(c)) },
);

function near(schema: unknown, root: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (typeof schema !== "object" || schema === null) return fc.jsonValue({ maxDepth: 1 });
  return fc.oneof(
    { weight: 20, arbitrary: shaped(schema as JsonSchema, root, depth) },
    { weight: 1, arbitrary: otherType },
  );
}

function shaped(schema: JsonSchema, root: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant(null);
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    return target === undefined ? fc.jsonValue({ maxDepth: 1 }) : shaped({ ...target }, root, depth + 1);
  }
  const options: fc.Arbitrary<unknown>[] = [];
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    options.push(fc.constantFrom(...(schema.enum as unknown[])));
  if ("const" in schema) options.push(fc.constant(schema.const));
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches) && branches.length > 0) {
      options.push(fc.oneof(...branches.map((b) => shaped(b as JsonSchema, root, depth + 1))));
    }
  }
  if (Array.isArray(schema.allOf)) {
    const merged = Object.assign({}, ...(schema.allOf as JsonSchema[]), { allOf: undefined }) as JsonSchema;
    options.push(shaped(merged, root, depth + 1));
  }
  for (const type of typesOf(schema)) options.push(ofType(type, schema, root, depth));
  if (options.length === 0) options.push(fc.jsonValue({ maxDepth: 2 }));
  return options.length === 1 ? (options[0] as fc.Arbitrary<unknown>) : fc.oneof(...options);
}

function ofType(type: string, schema: JsonSchema, root: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return stringNear(schema);
    case "integer":
    case "number":
      return numberNear(schema, type === "integer");
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return arrayNear(schema, root, depth);
    case "object":
      return objectNear(schema, root, depth);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function stringNear(schema: JsonSchema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : min + 24;
  const edges = [min - 1, min, min + 1, max - 1, max, max + 1].filter((n) => n >= 0);
  const length = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
    { weight: 2, arbitrary: fc.integer({ min, max: Math.max(min, Math.min(max, min + 64)) }) },
  );
  const options: fc.Arbitrary<string>[] = [length.chain(stringOfLength)];
  if (typeof schema.pattern === "string") {
    try {
      options.push(fc.stringMatching(new RegExp(schema.pattern, "u"), { size: "small" }));
    } catch {
      // a pattern fast-check cannot generate from: the other strings still probe it
    }
  }
  const format = typeof schema.format === "string" ? FORMATS[schema.format] : undefined;
  if (format !== undefined) options.push(format, format);
  return fc.oneof(...options);
}

/** Strings longer than this repeat a random run of this many characters: a bound in the millions stays cheap. */
const RUN = 256;

/** A string of exactly `n` characters (UTF-16 units and code points alike: every char is in the BMP). */
function stringOfLength(n: number): fc.Arbitrary<string> {
  if (n <= RUN) return fc.array(char, { minLength: n, maxLength: n }).map((cs) => cs.join(""));
  const repeats = Math.ceil(n / RUN);
  return fc.array(char, { minLength: RUN, maxLength: RUN }).map((cs) => cs.join("").repeat(repeats).slice(0, n));
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");
const dateLike = fc
  .tuple(fc.integer({ min: 1899, max: 2101 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m)}-${pad(d)}`);
const timeLike = fc
  .tuple(fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }))
  .map(([h, m, s]) => `${pad(h)}:${pad(m)}:${pad(s)}`);

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  date: dateLike,
  time: fc.tuple(timeLike, fc.constantFrom("", "Z", "+02:00")).map(([t, z]) => t + z),
  "date-time": fc
    .tuple(dateLike, fc.constantFrom("T", " ", "t"), timeLike, fc.constantFrom("", "Z", ".5Z", "+01:00"))
    .map((parts) => parts.join("")),
  email: fc.oneof(
    fc.emailAddress(),
    fc.string({ maxLength: 12 }).map((s) => `${s}@`),
  ),
  uri: fc.oneof(fc.webUrl(), fc.string({ maxLength: 12 })),
  url: fc.oneof(fc.webUrl(), fc.string({ maxLength: 12 })),
  uuid: fc.oneof(fc.uuid(), fc.string({ maxLength: 36 })),
};

function numberNear(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const num = (k: string) => (typeof schema[k] === "number" ? (schema[k] as number) : undefined);
  const bounds = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
    .map(num)
    .filter((v): v is number => v !== undefined);
  const low = num("minimum") ?? num("exclusiveMinimum") ?? -1000;
  const high = Math.max(low, num("maximum") ?? num("exclusiveMaximum") ?? 1000);
  const inside = integer
    ? fc.integer({ min: Math.ceil(low), max: Math.floor(high) })
    : fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true });
  const wide = fc.integer({ min: Math.ceil(low) - 1000, max: Math.floor(high) + 1000 });
  const edges = [0, -1, 1, 0.5, ...bounds.flatMap((b) => [b - 1, b, b + 1, b - 0.5, b + 0.5])];
  const options: fc.WeightedArbitrary<number>[] = [
    { weight: 4, arbitrary: inside },
    { weight: 2, arbitrary: fc.constantFrom(...edges) },
    { weight: 1, arbitrary: wide },
  ];
  if (typeof schema.multipleOf === "number") {
    const step = schema.multipleOf;
    options.push({ weight: 2, arbitrary: fc.integer({ min: -20, max: 20 }).map((k) => k * step) });
  }
  return fc.oneof(...options);
}

function arrayNear(schema: JsonSchema, root: JsonSchema, depth: number): fc.Arbitrary<unknown[]> {
  const min = typeof schema.minItems === "number" ? schema.minItems : 0;
  const max = typeof schema.maxItems === "number" ? schema.maxItems : min + 3;
  const item = schema.items === undefined ? fc.jsonValue({ maxDepth: 1 }) : near(schema.items, root, depth + 1);
  return fc.array(item, { minLength: Math.max(0, min - 1), maxLength: Math.min(max + 1, min + 8) });
}

function objectNear(schema: JsonSchema, root: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (
    typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {}
  ) as Record<string, unknown>;
  const required = (Array.isArray(schema.required) ? schema.required : []).filter(
    (k): k is string => typeof k === "string" && k in properties,
  );
  const model = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, near(s, root, depth + 1)]));
  const complete = fc.record(model, { requiredKeys: required });
  const anySubset = fc.record(model, { requiredKeys: [] });
  const base = fc.oneof({ weight: 8, arbitrary: complete }, { weight: 1, arbitrary: anySubset });
  const extraValue =
    typeof schema.additionalProperties === "object" && schema.additionalProperties !== null
      ? near(schema.additionalProperties, root, depth + 1)
      : fc.jsonValue({ maxDepth: 1 });
  const extraKey = fc.stringMatching(/^[a-z][a-z_]{0,7}$/).filter((k) => !(k in properties));
  const withExtra = fc
    .tuple(base, fc.dictionary(extraKey, extraValue, { minKeys: 1, maxKeys: 3 }))
    .map(([object, extra]) => ({ ...extra, ...object }));
  return fc.oneof({ weight: 8, arbitrary: base }, { weight: 1, arbitrary: withExtra });
}

function typesOf(schema: JsonSchema): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  if (typeof schema.properties === "object") return ["object"];
  return [];
}
