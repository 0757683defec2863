import type { JsonSchema } from "@skillport/core";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { redactSecrets, register } from "../src/index.js";

/** The validator the host uses for call arguments: draft 2020-12, defaults filled, formats checked. */
function hostAjv() {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, useDefaults: true, strict: false, coerceTypes: false });
  addFormats.default(ajv);
  ajv.addFormat("path", true);
  return ajv;
}

const skill = register();
const validator = (name: string) =>
  hostAjv().compile(skill.tools.find((t) => t.name === name)?.inputSchema ?? { type: "object" });

describe("the published surface", () => {
  it("has three tools with their risks, and declares an optional token the host holds for the API's origin", () => {
    expect(skill.tools.map((t) => [t.name, t.risk])).toEqual([
      ["search_repos", "read_only"],
      ["get_issue", "read_only"],
      ["create_issue", "write"],
    ]);
    expect(skill.credentials).toEqual({
      token: {
        required: false,
        description: expect.stringContaining("token"),
        fetch: { origins: expect.any(Function), header: "authorization", scheme: "Bearer" },
      },
    });
    const origins = skill.credentials.token?.fetch?.origins as (config: unknown) => string[];
    expect(origins({ apiBaseUrl: "https://ghe.example/api/v3" })).toEqual(["https://ghe.example/api/v3"]);
  });

  it("validates a manifest config the way the host will", () => {
    const validate = hostAjv().compile(skill.configSchema ?? {});
    const config: Record<string, unknown> = { repos: ["acme/website", "acme/*"] };
    expect(validate(config)).toBe(true);
    expect(config).toMatchObject({ apiBaseUrl: "https://api.github.com", maxBodyChars: 20000 });
    expect(validate({ repos: ["acme/.."] })).toBe(false);
    expect(validate({ repos: ["*/*"] })).toBe(false);
    expect(validate({ apiBaseUrl: "ftp://x" })).toBe(false);
  });

  it.each(skill.tools.map((t) => [t.name, t] as const))("%s: every field is described and bounded", (_name, t) => {
    expect(t.inputSchema.additionalProperties).toBe(false);
    for (const [field, raw] of Object.entries(t.inputSchema.properties as Record<string, JsonSchema>)) {
      expect(raw.description, field).toEqual(expect.any(String));
      expect(raw.examples, field).toEqual(expect.any(Array));
      if (raw.type === "string" && raw.enum === undefined) expect(raw.maxLength, field).toEqual(expect.any(Number));
      if (raw.type === "integer")
        expect([raw.minimum, raw.maximum], field).toEqual([expect.any(Number), expect.any(Number)]);
      if (raw.type === "array") expect(raw.maxItems, field).toEqual(expect.any(Number));
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

  it("repo arguments cannot walk the API's paths", () => {
    const validate = validator("get_issue");
    for (const repo of ["octocat/..", "octocat/.", "../x", "a/b/c", "a", "a/b?x=1", "a/b#c", "a/%2e%2e"]) {
      expect(validate({ repo, number: 1 }), repo).toBe(false);
    }
    expect(validate({ repo: "octocat/hello.world_2-x", number: 1 })).toBe(true);
  });

  it("create_issue defaults to a dry run", () => {
    const args: Record<string, unknown> = { repo: "acme/website", title: "x" };
    expect(validator("create_issue")(args)).toBe(true);
    expect(args).toMatchObject({ dry_run: true, body: "", labels: [] });
  });

  it("the brief never shows a secret in a title", () => {
    const tool = skill.tools.find((t) => t.name === "create_issue");
    const brief = tool?.buildBrief?.({ repo: "a/b", title: "AKIAIOSFODNN7EXAMPLE", dry_run: false });
    expect(brief).toBe("Create issue “[REDACTED]” in a/b");
  });
});

describe("redactSecrets", () => {
  it("leaves ordinary text alone, and short literal secrets unredacted by value", () => {
    expect(redactSecrets("ghp_short and AKIA-not-a-key and github_pat_", ["abc"])).toEqual({
      text: "ghp_short and AKIA-not-a-key and github_pat_",
      count: 0,
    });
  });
});
