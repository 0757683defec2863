import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { JsonSchema } from "../src/index.js";
import {
  envelopeSchema,
  isToolResult,
  JSON_SCHEMA_DIALECT,
  partialResult,
  result,
  toJsonSchema,
  withEvidence,
} from "../src/index.js";

describe("result", () => {
  it("wraps data with extras and marks it as a result", () => {
    const data = { hits: ["a.md"] };
    const value = result(data, { message: "1 note matches", evidencePaths: ["a.md"], warnings: ["w"] });
    expect(isToolResult(value)).toBe(true);
    expect(value.data).toBe(data);
    expect(value).toMatchObject({ message: "1 note matches", evidencePaths: ["a.md"], warnings: ["w"] });
    expect(value.partial).toBeUndefined();
  });

  it("wraps data without extras", () => {
    const value = result(42);
    expect(isToolResult(value)).toBe(true);
    expect(value.data).toBe(42);
    expect(value.message).toBeUndefined();
    expect(value.evidencePaths).toBeUndefined();
  });

  it("wraps falsy data", () => {
    for (const data of [null, undefined, 0, "", false]) {
      const value = result(data);
      expect(isToolResult(value)).toBe(true);
      expect(value.data).toBe(data);
    }
  });
});

describe("withEvidence", () => {
  it("attaches evidence paths and keeps other extras", () => {
    const value = withEvidence({ n: 1 }, ["AI-Agent/mcp-basics.md"], { message: "Read it", warnings: ["slow disk"] });
    expect(isToolResult(value)).toBe(true);
    expect(value).toMatchObject({
      data: { n: 1 },
      evidencePaths: ["AI-Agent/mcp-basics.md"],
      message: "Read it",
      warnings: ["slow disk"],
    });
  });

  it("lets its evidence paths win over evidencePaths in the extras", () => {
    const value = withEvidence("d", ["right.md"], { evidencePaths: ["wrong.md"] });
    expect(value.evidencePaths).toEqual(["right.md"]);
  });
});

describe("partialResult", () => {
  it("marks the result partial with its warnings", () => {
    const value = partialResult({ done: 3 }, ["2 notes could not be read"], { message: "3 of 5" });
    expect(isToolResult(value)).toBe(true);
    expect(value).toMatchObject({
      data: { done: 3 },
      partial: true,
      warnings: ["2 notes could not be read"],
      message: "3 of 5",
    });
  });

  it("lets partial and its warnings win over the extras", () => {
    const value = partialResult(1, ["real"], { partial: false, warnings: ["ignored"] });
    expect(value.partial).toBe(true);
    expect(value.warnings).toEqual(["real"]);
  });
});

describe("isToolResult", () => {
  it.each<[string, unknown]>([
    ["a plain object with a data key", { data: 1 }],
    ["a plain object with data and extras", { data: 1, message: "m", evidencePaths: [] }],
    ["an object with the brand set to a truthy non-true value", { [Symbol.for("skillport.result")]: 1, data: 1 }],
    ["an object branded with a look-alike string key", { "skillport.result": true, data: 1 }],
    ["a JSON round trip of a result", JSON.parse(JSON.stringify(result(1)))],
    ["null", null],
    ["undefined", undefined],
    ["a string", "data"],
    ["an array", [1]],
  ])("is false for %s", (_label, value) => {
    expect(isToolResult(value)).toBe(false);
  });

  it("is true for a result built by another copy of the package (same global symbol)", () => {
    expect(isToolResult({ [Symbol.for("skillport.result")]: true, data: 1 })).toBe(true);
  });
});

describe("envelopeSchema", () => {
  const dataSchema = toJsonSchema(z.object({ hits: z.array(z.string()) }));

  it("embeds the data schema without its $schema", () => {
    const envelope = envelopeSchema(dataSchema);
    const properties = envelope.properties as Record<string, JsonSchema>;
    const { $schema: _dialect, ...expected } = dataSchema;
    expect(properties.data).toEqual(expected);
    expect(properties.data).not.toHaveProperty("$schema");
    expect(dataSchema.$schema).toBe(JSON_SCHEMA_DIALECT);
  });

  it("is itself a draft 2020-12 object schema requiring ok, message and meta", () => {
    const envelope = envelopeSchema(dataSchema);
    expect(envelope.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(envelope.type).toBe("object");
    expect(envelope.required).toEqual(["ok", "message", "meta"]);
    const properties = envelope.properties as Record<string, JsonSchema>;
    expect(Object.keys(properties).sort()).toEqual(
      ["data", "error", "evidencePaths", "message", "meta", "ok", "warnings"].sort(),
    );
    expect(properties.error?.required).toEqual(["code", "retryable", "traceId"]);
  });

  it("is compact: types and required fields, no prose, the same for every tool but its data", () => {
    const envelope = envelopeSchema(dataSchema) as { properties: Record<string, JsonSchema> };
    expect(envelope.properties.error).toEqual({ type: "object", required: ["code", "retryable", "traceId"] });
    expect(envelope.properties.meta).toEqual({ type: "object" });
    expect(JSON.stringify(envelope)).not.toContain("description");
    expect(JSON.stringify(envelopeSchema(undefined)).length).toBeLessThanOrEqual(400);
  });

  it("accepts any data when the tool declared no output", () => {
    const properties = envelopeSchema(undefined).properties as Record<string, JsonSchema>;
    expect(properties.data).toEqual({});
  });
});
