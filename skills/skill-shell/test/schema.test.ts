import type { JsonSchema } from "@skillport/core";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { register } from "../src/index.js";

/** The validator the host uses for call arguments: draft 2020-12, defaults filled, `format: "path"` known. */
function hostAjv() {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, useDefaults: true, strict: false, coerceTypes: false });
  addFormats.default(ajv);
  ajv.addFormat("path", true);
  return ajv;
}

const skill = register();

describe("the published surface", () => {
  it("has run_command, dangerous, with a brief that shows the exact arguments", () => {
    expect(skill.tools.map((t) => [t.name, t.risk])).toEqual([["run_command", "dangerous"]]);
    const tool = skill.tools[0];
    expect(tool?.mcpAnnotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(tool?.buildBrief?.({ command: "git", args: ["commit", "-m", "a; b"], cwd: "repo" })).toBe(
      'Run git commit -m "a; b" in repo',
    );
  });

  it("marks every root in the config as a path; the environment has no default beyond PATH", () => {
    const properties = skill.configSchema?.properties as Record<string, JsonSchema> | undefined;
    expect(properties?.roots).toMatchObject({ type: "array", items: { type: "string", format: "path" } });
    expect(properties?.env).toMatchObject({ type: "object", default: { PATH: "/usr/local/bin:/usr/bin:/bin" } });
    expect(skill.configSchema?.required).toEqual(["commands", "roots"]);
  });

  it.each(skill.tools.map((t) => [t.name, t] as const))("%s: every field is described and bounded", (_name, t) => {
    expect(t.inputSchema.additionalProperties).toBe(false);
    for (const [field, raw] of Object.entries(t.inputSchema.properties as Record<string, JsonSchema>)) {
      expect(raw.description, field).toEqual(expect.any(String));
      expect(raw.examples, field).toEqual(expect.any(Array));
      if (raw.type === "string") expect(raw.maxLength, field).toEqual(expect.any(Number));
      if (raw.type === "integer")
        expect([raw.minimum, raw.maximum], field).toEqual([expect.any(Number), expect.any(Number)]);
      if (raw.type === "array") {
        expect(raw.maxItems, field).toEqual(expect.any(Number));
        expect((raw.items as JsonSchema).maxLength, field).toEqual(expect.any(Number));
      }
    }
  });

  it.each(skill.tools.map((t) => [t.name, t] as const))("%s: its examples are valid and have a brief", (_name, t) => {
    const validate = hostAjv().compile(t.inputSchema);
    expect(t.examples.length).toBeGreaterThan(0);
    for (const example of t.examples) {
      expect(validate(structuredClone(example)), JSON.stringify(validate.errors)).toBe(true);
      expect(t.buildBrief?.(example)).toMatch(/\S/);
    }
  });

  it("takes a shell line as a valid string (the allowlist refuses it), but no env and no string args", () => {
    const validate = hostAjv().compile(skill.tools[0]?.inputSchema ?? {});
    expect(validate({ command: "echo hi; rm -rf /" })).toBe(true);
    expect(validate({ command: "echo", args: "hi" })).toBe(false);
    expect(validate({ command: "echo", env: { A: "1" } })).toBe(false);
  });
});
