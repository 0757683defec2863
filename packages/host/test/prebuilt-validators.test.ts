import { createRequire } from "node:module";
import type { ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { compileSchema as compileFromSources } from "../src/schema/compile-schema.js";

// The build's compiled copies (scripts/generate-validators.mjs) stand in for work ajv does at run time: they must
// say exactly what ajv says.
const requireDist = createRequire(new URL("../dist/", import.meta.url));

/** Schemas a skill could publish, well-formed and not. */
const SCHEMAS: unknown[] = [
  { type: "object", properties: { text: { type: "string", maxLength: 100 } }, required: ["text"] },
  { type: "object", properties: { when: { type: "string", format: "date" } }, additionalProperties: false },
  { $schema: "https://json-schema.org/draft/2020-12/schema", type: "array", items: { enum: [1, "a", null] } },
  true,
  { type: "strin" },
  { type: "object", properties: { a: { minLength: -1 } } },
  { type: "object", required: "text" },
  { properties: { a: { type: ["string", 3] } }, $defs: { x: { pattern: 5 } } },
  { anyOf: [] },
  { type: "object", properties: { deep: { items: { prefixItems: { type: "string" } } } } },
  { $ref: 7 },
  { format: ["date"], minimum: "1" },
];

/** ajv's own verdict on a schema, with its meta-schema compiled now, and the message it throws when invalid. */
function ajvVerdict(schema: unknown, allErrors: boolean): string {
  const ajv = new Ajv2020({ allErrors, verbose: true, strict: false, validateSchema: true });
  addFormats.default(ajv);
  return ajv.validateSchema(schema as object) ? "valid" : `schema is invalid: ${ajv.errorsText(ajv.errors)}`;
}

describe("the build's compiled checks", () => {
  for (const [file, allErrors] of [
    ["schema-validator.cjs", true],
    ["schema-validator-first-error.cjs", false],
  ] as const) {
    it(`dist/${file} judges every schema as ajv does, with ajv's errors`, () => {
      const check = requireDist(`./${file}`) as ValidateFunction;
      const ajv = new Ajv2020();
      for (const schema of SCHEMAS) {
        const verdict = check(schema) ? "valid" : `schema is invalid: ${ajv.errorsText(check.errors)}`;
        expect(verdict, JSON.stringify(schema)).toBe(ajvVerdict(schema, allErrors));
      }
    });
  }

  it("the built host refuses the schemas ajv refuses, in the same words, and compiles the others", async () => {
    const built = (await import(new URL("../dist/surface.js", import.meta.url).href)) as {
      compileSchema: typeof compileFromSources;
    };
    const outcome = (compile: typeof compileFromSources, schema: unknown): string => {
      try {
        compile(schema as never);
        return "compiled";
      } catch (error) {
        return (error as Error).message;
      }
    };
    const refused = SCHEMAS.filter((schema) => outcome(compileFromSources, schema) !== "compiled");
    expect(refused.length).toBeGreaterThan(4);
    for (const schema of SCHEMAS) {
      expect(outcome(built.compileSchema, schema), JSON.stringify(schema)).toBe(outcome(compileFromSources, schema));
    }
  });

  it("dist/ajv.cjs is ajv's 2020 class with ajv-formats: formats are checked", () => {
    const { Ajv2020: Bundled, addFormats: add } = requireDist("./ajv.cjs") as {
      Ajv2020: typeof Ajv2020;
      addFormats: typeof addFormats.default;
    };
    const ajv = new Bundled({ strict: false });
    add(ajv);
    const validate = ajv.compile({ type: "string", format: "date" });
    expect([validate("2026-02-28"), validate("2026-02-30")]).toEqual([true, false]);
  });
});
