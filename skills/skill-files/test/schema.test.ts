import type { JsonSchema, RegisteredTool } from "@skillport/core";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { AppendFileInput, ListDirectoryInput, register, WriteFileInput } from "../src/index.js";

/** The validator the host uses for call arguments: draft 2020-12, defaults filled, `format: "path"` known. */
function hostAjv() {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, useDefaults: true, strict: false, coerceTypes: false });
  addFormats.default(ajv);
  ajv.addFormat("path", true);
  return ajv;
}

const skill = register();
const tool = (name: string) => skill.tools.find((t) => t.name === name) as RegisteredTool;
const validator = (name: string) => hostAjv().compile(tool(name).inputSchema);

describe("the published surface", () => {
  it("has the seven tools, named <verb>_<object>, with the declared risks", () => {
    expect(skill.tools.map((t) => [t.name, t.risk])).toEqual([
      ["read_file", "read_only"],
      ["write_file", "write"],
      ["append_file", "write"],
      ["list_directory", "read_only"],
      ["move_file", "write"],
      ["file_info", "read_only"],
      ["delete_file", "dangerous"],
    ]);
    for (const t of skill.tools) expect(t.name).toMatch(/^[a-z]+_[a-z]+$/);
    expect(tool("delete_file").mcpAnnotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
  });

  it("marks every root in the config as a path, for the host to resolve against the manifest's folder", () => {
    const roots = (skill.configSchema?.properties as Record<string, JsonSchema> | undefined)?.roots;
    expect(roots).toMatchObject({ type: "array", minItems: 1, items: { type: "string", format: "path" } });
  });

  it.each(skill.tools.map((t) => [t.name, t] as const))("%s: every field is described and bounded", (_name, t) => {
    const schema = t.inputSchema;
    expect(schema.additionalProperties).toBe(false);
    for (const [field, raw] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      expect(raw.description, field).toEqual(expect.any(String));
      expect(raw.examples, field).toEqual(expect.any(Array));
      if (raw.type === "string" && raw.enum === undefined) expect(raw.maxLength, field).toEqual(expect.any(Number));
      if (raw.type === "integer" || raw.type === "number") {
        expect(raw.minimum, field).toEqual(expect.any(Number));
        expect(raw.maximum, field).toEqual(expect.any(Number));
      }
      if (raw.type === "array") expect(raw.maxItems, field).toEqual(expect.any(Number));
    }
  });

  it.each(skill.tools.map((t) => [t.name, t] as const))("%s: its examples are valid and have a brief", (_name, t) => {
    expect(t.examples.length).toBeGreaterThan(0);
    const validate = hostAjv().compile(t.inputSchema);
    for (const example of t.examples) {
      expect(validate(structuredClone(example)), JSON.stringify(validate.errors)).toBe(true);
      if (t.risk !== "read_only") expect(t.buildBrief?.(example)).toMatch(/\S/);
    }
  });
});

describe("conditional rules in the JSON Schema (if/then), checked by the host before a call runs", () => {
  it("write_file and append_file: base64 content must use the base64 alphabet", () => {
    for (const name of ["write_file", "append_file"]) {
      const validate = validator(name);
      expect(validate({ path: "a.bin", content: "aGVsbG8K", encoding: "base64" })).toBe(true);
      expect(validate({ path: "a.bin", content: "not base64!", encoding: "base64" })).toBe(false);
      expect(validate.errors?.some((e) => e.keyword === "pattern" && e.instancePath === "/content")).toBe(true);
      // the same text is fine as utf-8, the default
      expect(validate({ path: "a.txt", content: "not base64!" })).toBe(true);
    }
  });

  it("write_file: utf-8 content has a lower length bound than base64 content", () => {
    const validate = validator("write_file");
    const long = "A".repeat(8 * 1024 * 1024 + 4);
    expect(validate({ path: "a.txt", content: long })).toBe(false);
    expect(validate.errors?.some((e) => e.keyword === "maxLength" && e.instancePath === "/content")).toBe(true);
    expect(validate({ path: "a.bin", content: long, encoding: "base64" })).toBe(true);
  });

  it("list_directory: depth needs recursive: true", () => {
    const validate = validator("list_directory");
    expect(validate({ path: ".", recursive: true, depth: 2 })).toBe(true);
    // ajv checks the condition before it fills the default, so a missing recursive is reported as missing
    expect(validate({ path: ".", depth: 2 })).toBe(false);
    expect(validate.errors?.some((e) => e.keyword === "required" && e.params.missingProperty === "recursive")).toBe(
      true,
    );
    expect(validate({ path: ".", recursive: false, depth: 2 })).toBe(false);
    expect(validate.errors?.some((e) => e.keyword === "const" && e.instancePath === "/recursive")).toBe(true);
    expect(validate({ path: "." })).toBe(true);
  });

  it("the zod inputs check the same rules, so zod and the published schema agree", () => {
    for (const input of [WriteFileInput, AppendFileInput]) {
      expect(input.safeParse({ path: "a.bin", content: "aGVsbG8K", encoding: "base64" }).success).toBe(true);
      const refused = input.safeParse({ path: "a.bin", content: "not base64!", encoding: "base64" });
      expect(refused.success).toBe(false);
      expect(refused.error?.issues[0]?.path).toEqual(["content"]);
      expect(input.safeParse({ path: "a.txt", content: "not base64!" }).success).toBe(true);
    }
    const long = "A".repeat(8 * 1024 * 1024 + 4);
    expect(WriteFileInput.safeParse({ path: "a.txt", content: long }).success).toBe(false);
    expect(WriteFileInput.safeParse({ path: "a.bin", content: long, encoding: "base64" }).success).toBe(true);
    // a surrogate pair is one character, as JSON Schema counts it
    expect(WriteFileInput.safeParse({ path: "a.txt", content: "😀".repeat(8 * 1024 * 1024) }).success).toBe(true);
    expect(ListDirectoryInput.safeParse({ path: ".", recursive: true, depth: 2 }).success).toBe(true);
    expect(ListDirectoryInput.safeParse({ path: ".", depth: 2 }).success).toBe(false);
    expect(ListDirectoryInput.safeParse({ path: ".", recursive: false, depth: 2 }).success).toBe(false);
  });

  it("read_file: offset has a real upper bound", () => {
    const offset = (tool("read_file").inputSchema.properties as Record<string, JsonSchema>).offset;
    expect(offset).toMatchObject({ minimum: 0, maximum: 2 ** 50 });
    expect(validator("read_file")({ path: "a", offset: 2 ** 50 + 1 })).toBe(false);
  });

  it("fills defaults the way the capability expects them", () => {
    const args: Record<string, unknown> = { path: "x.txt", content: "hi" };
    expect(validator("write_file")(args)).toBe(true);
    expect(args).toEqual({
      path: "x.txt",
      content: "hi",
      encoding: "utf-8",
      overwrite: false,
      create_directories: false,
    });
  });
});
