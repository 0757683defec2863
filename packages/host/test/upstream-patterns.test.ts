// The host's side of an upstream server's patterns: where each one is (JSON pointers), and the validators
// compiling an upstream input schema with the engine the client gives (here a stand-in with the client's contract:
// throws for what it cannot run, a RangeError for a text too long, and no toString of its own, which the host's ajv
// setup must not need). The report `skillport check` prints of them is tested in @skillport/tooling.
import { standInPatternEngine } from "@skillport/test-utils";
import { describe, expect, it } from "vitest";
import type { Runnable } from "../src/entries/tool-entry.js";
import { createValidators } from "../src/pipeline/validators.js";
import type { PatternEngine } from "../src/schema/ajv.js";
import { lazyAjv } from "../src/schema/ajv.js";
import { schemaPatterns } from "../src/schema/schema-patterns.js";

const engine: PatternEngine = standInPatternEngine();

describe("schemaPatterns", () => {
  it("finds every pattern and patternProperties key, in the order written, with its JSON pointer", () => {
    const schema = {
      type: "object",
      properties: {
        id: { type: "string", pattern: "^[a-z]+$" },
        "a/b": { type: "array", items: { type: "string", pattern: "^x" } },
        pattern: { type: "string", description: "a property named pattern", default: { pattern: "data" } },
      },
      patternProperties: { "^x-": { type: "string" } },
      $defs: { tag: { anyOf: [{ pattern: "^t" }] } },
      examples: [{ pattern: "not a schema" }],
    };
    expect(schemaPatterns(schema, "/inputSchema")).toEqual([
      { pattern: "^x-", pointer: "/inputSchema/patternProperties/^x-" },
      { pattern: "^[a-z]+$", pointer: "/inputSchema/properties/id/pattern" },
      { pattern: "^x", pointer: "/inputSchema/properties/a~1b/items/pattern" },
      { pattern: "^t", pointer: "/inputSchema/$defs/tag/anyOf/0/pattern" },
    ]);
  });

  it("walks a deeply nested schema without overflowing", () => {
    let schema: Record<string, unknown> = { pattern: "^deep$" };
    for (let i = 0; i < 20_000; i++) schema = { items: schema };
    expect(schemaPatterns(schema)).toHaveLength(1);
  });
});

describe("the validators on an upstream input schema", () => {
  // One compiler for every server's schemas, as openServers makes it.
  const compiler = lazyAjv({ firstError: true, foreign: { regExp: engine } });
  const runnableWith = (inputSchema: Record<string, unknown>): Runnable => ({
    risk: "read_only",
    title: "t",
    inputSchema,
    outputSchema: undefined,
    legacy: [],
    compiler,
    brief: () => undefined,
    run: async () => undefined,
  });
  const validators = createValidators(lazyAjv({ firstError: true }), lazyAjv({ firstError: true }));

  it("compile its patterns with the runnable's engine: a text too long is refused, saying why", () => {
    const check = validators.input(
      runnableWith({ type: "object", properties: { text: { type: "string", pattern: "^a+$" } } }),
    );
    expect(check({ text: "aaa" })).toBeUndefined();
    expect(check({ text: "ab" })).toMatchObject({ where: "/text" });
    expect(check({ text: "a".repeat(21) })).toEqual({ where: "/", message: "a string of 21 characters is too long" });
  });

  it("refuse to compile a pattern the engine cannot run, and share no $id between servers' schemas", () => {
    expect(() => validators.input(runnableWith({ type: "object", pattern: "(?=a)" }))).toThrow("lookahead");
    const a = validators.input(runnableWith({ $id: "https://x.test/s", type: "object", required: ["a"] }));
    const b = validators.input(runnableWith({ $id: "https://x.test/s", type: "object", required: ["b"] }));
    expect(a({ b: 1 })).toMatchObject({ where: "/a" });
    expect(b({ a: 1 })).toMatchObject({ where: "/b" });
  });

  it("test the url format (quadratic in ajv-formats) on 8,000 characters at most", () => {
    const check = validators.input(
      runnableWith({ type: "object", properties: { u: { type: "string", format: "url" } } }),
    );
    expect(check({ u: "https://example.com/a" })).toBeUndefined();
    const started = performance.now();
    expect(check({ u: `ftp://172.30.3.56${"4.1.6.7:155".repeat(16_000)}\u0000` })).toMatchObject({ where: "/u" });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
