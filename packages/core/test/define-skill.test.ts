import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { JsonSchema, Risk, ToolAnnotations, ToolDefinition } from "../src/index.js";
import { defineSkill, defineTool, JSON_SCHEMA_DIALECT } from "../src/index.js";

const SearchInput = z
  .object({
    keyword: z.string().min(2).describe("Text to find"),
    limit: z.number().int().min(1).max(20).default(5).describe("Most hits to return"),
  })
  .strict();

function tool(overrides: Partial<Parameters<typeof defineTool>[0]> = {}): ToolDefinition {
  return defineTool({
    name: "search_notes",
    title: "Search notes",
    description: "Search notes by keyword.",
    input: SearchInput,
    risk: "read_only",
    run: () => null,
    ...overrides,
  });
}

describe("defineSkill register()", () => {
  it("publishes a zod input as a draft 2020-12 JSON Schema with defaults, descriptions and no extra keys", () => {
    const skill = defineSkill({ name: "notes", version: "1.2.3", description: "Notes.", tools: [tool()] })();
    expect(skill).toMatchObject({ name: "notes", version: "1.2.3", description: "Notes.", configSchema: undefined });
    const [registered] = skill.tools;
    expect(registered?.inputSchema).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        keyword: { type: "string", minLength: 2, description: "Text to find" },
        limit: { type: "integer", minimum: 1, maximum: 20, default: 5, description: "Most hits to return" },
      },
      required: ["keyword"],
      additionalProperties: false,
    });
    expect(registered?.outputSchema).toBeUndefined();
  });

  it("keeps the tool's own fields next to the schemas", () => {
    const run = () => "ran";
    const [registered] = defineSkill({ name: "notes", tools: [tool({ run })] })().tools;
    expect(registered).toMatchObject({
      name: "search_notes",
      title: "Search notes",
      description: "Search notes by keyword.",
      risk: "read_only",
      input: SearchInput,
      run,
    });
  });

  it("publishes the output and config schemas when given", () => {
    const skill = defineSkill({
      name: "notes",
      config: z.object({ vault: z.string().describe("The vault folder") }).strict(),
      tools: [tool({ output: z.object({ hits: z.array(z.string()) }) })],
    })();
    expect(skill.configSchema).toEqual({
      $schema: JSON_SCHEMA_DIALECT,
      type: "object",
      properties: { vault: { type: "string", description: "The vault folder" } },
      required: ["vault"],
      additionalProperties: false,
    });
    expect(skill.tools[0]?.outputSchema).toMatchObject({
      $schema: JSON_SCHEMA_DIALECT,
      type: "object",
      properties: { hits: { type: "array", items: { type: "string" } } },
      required: ["hits"],
    });
  });

  it("lists the declared credentials, required unless said otherwise", () => {
    const skill = defineSkill({
      name: "github",
      credentials: {
        token: { description: "A GitHub token with repo scope" },
        proxy: { description: "An optional proxy password", required: false },
      },
      tools: [tool()],
    })();
    expect(skill.credentials).toEqual({
      token: { description: "A GitHub token with repo scope", required: true },
      proxy: { description: "An optional proxy password", required: false },
    });
    expect(defineSkill({ name: "notes", tools: [tool()] })().credentials).toEqual({});
  });

  it("registers a credential declared with fetch, its header and scheme defaulted", () => {
    const origins = (config: { apiBaseUrl: string }) => [config.apiBaseUrl];
    const skill = defineSkill({
      name: "github",
      credentials: {
        token: { description: "A GitHub token", fetch: { origins } },
        key: {
          description: "An API key",
          fetch: { origins: ["https://api.example"], header: "X-Api-Key", scheme: "" },
        },
      },
      tools: [tool()],
    })();
    expect(skill.credentials.token?.fetch).toEqual({ origins, header: "authorization", scheme: "Bearer" });
    expect(skill.credentials.key?.fetch).toEqual({ origins: ["https://api.example"], header: "x-api-key", scheme: "" });
  });

  it.each([
    [{ origins: "https://api.example" }, "fetch.origins must be a list of origins"],
    [{ origins: [], header: "Authorization: x" }, 'fetch.header "Authorization: x" is not an HTTP header name'],
    [{ origins: [], scheme: "Bearer x" }, 'fetch.scheme "Bearer x" is not an auth scheme'],
  ])("refuses a fetch declaration it cannot honour: %j", (fetch, message) => {
    const register = defineSkill({
      name: "api",
      credentials: { token: { description: "t", fetch: fetch as never } },
      tools: [tool()],
    });
    expect(register).toThrow(`[skill-api] credential "token": ${message}`);
  });

  it("computes the schemas once: a second call returns the same objects", () => {
    const register = defineSkill({ name: "notes", tools: [tool()] });
    const first = register();
    const second = register();
    expect(second).toBe(first);
    expect(second.tools[0]?.inputSchema).toBe(first.tools[0]?.inputSchema);
  });

  it("keeps a skill's tools apart from another skill built from the same spec shape", () => {
    const a = defineSkill({ name: "a", tools: [tool()] })();
    const b = defineSkill({ name: "b", tools: [tool()] })();
    expect(a).not.toBe(b);
    expect(a.name).toBe("a");
    expect(b.name).toBe("b");
  });
});

describe("risk → MCP annotations", () => {
  it.each<[Risk, ToolAnnotations]>([
    ["read_only", { readOnlyHint: true, destructiveHint: false }],
    ["write", { readOnlyHint: false, destructiveHint: false }],
    ["dangerous", { readOnlyHint: false, destructiveHint: true }],
  ])("maps %s", (risk, expected) => {
    const [registered] = defineSkill({ name: "notes", tools: [tool({ risk })] })().tools;
    expect(registered?.mcpAnnotations).toEqual(expected);
  });

  it("keeps the author's extra hints", () => {
    const [registered] = defineSkill({
      name: "notes",
      tools: [tool({ risk: "write", annotations: { idempotentHint: true, openWorldHint: false } })],
    })().tools;
    expect(registered?.mcpAnnotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it.each<[Risk, boolean, boolean]>([
    ["read_only", true, false],
    ["write", false, false],
    ["dangerous", false, true],
  ])("lets the %s risk win over contradicting hints", (risk, readOnlyHint, destructiveHint) => {
    // The types forbid these two hints; a JavaScript author can still pass them.
    const contradicting: ToolAnnotations = {
      readOnlyHint: !readOnlyHint,
      destructiveHint: !destructiveHint,
      idempotentHint: true,
    };
    const [registered] = defineSkill({ name: "notes", tools: [tool({ risk, annotations: contradicting })] })().tools;
    expect(registered?.mcpAnnotations).toEqual({ readOnlyHint, destructiveHint, idempotentHint: true });
  });
});

describe("register() refuses a broken skill, naming the skill and the tool", () => {
  it.each(["", "search notes", "search.notes", "notes/search", "ünïcode", "a".repeat(65)])(
    "refuses the tool name %j",
    (name) => {
      const register = defineSkill({ name: "notes", tools: [tool({ name })] });
      expect(register).toThrow(`[skill-notes] tool name "${name}" is invalid`);
    },
  );

  it.each(["a", "search_notes", "search-notes", "Tool2", "a".repeat(64)])("accepts the tool name %j", (name) => {
    expect(defineSkill({ name: "notes", tools: [tool({ name })] })().tools[0]?.name).toBe(name);
  });

  it("refuses a tool name used twice", () => {
    const register = defineSkill({ name: "notes", tools: [tool(), tool({ title: "Again" })] });
    expect(register).toThrow('[skill-notes] tool "search_notes" is defined twice');
  });

  it.each<[string, JsonSchema | z.ZodType]>([
    ["a zod string", z.string()],
    ["a zod array", z.array(z.string())],
    ["a nullable zod object", z.object({ a: z.string() }).nullable()],
    ["a JSON Schema string", { type: "string" }],
    ["a JSON Schema without a type", { properties: { a: { type: "string" } } }],
  ])("refuses %s as input", (_label, input) => {
    const register = defineSkill({ name: "notes", tools: [tool({ input })] });
    expect(register).toThrow("[skill-notes] search_notes input must be an object schema");
  });

  it("refuses a zod transform in the input", () => {
    const input = z.object({ keyword: z.transform((value: unknown) => String(value)) });
    const register = defineSkill({ name: "notes", tools: [tool({ input })] });
    expect(register).toThrow(/^\[skill-notes\] search_notes input cannot be published as JSON Schema: .*Transforms/);
  });

  it.each<[string, z.ZodType]>([
    ["a field's .transform()", z.object({ keyword: z.string().transform((s) => s.length) })],
    ["a z.preprocess()", z.object({ keyword: z.preprocess((v) => String(v), z.string()) })],
    ["a transform of the whole object", z.object({ keyword: z.string() }).transform((o) => ({ ...o, n: 1 }))],
  ])("refuses %s in the input: the host validates with JSON Schema alone, so it would never run", (_label, input) => {
    const register = defineSkill({ name: "notes", tools: [tool({ input })] });
    expect(register).toThrow(/^\[skill-notes\] search_notes input cannot be published as JSON Schema: .*Transforms/);
  });

  it("refuses a plain JSON Schema input declaring another draft", () => {
    const input = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: {} };
    const register = defineSkill({ name: "notes", tools: [tool({ input })] });
    expect(register).toThrow('search_notes input cannot be published as JSON Schema: it declares "$schema"');
  });

  it.each<[string, z.ZodType]>([
    ["a Date", z.object({ when: z.date() })],
    ["a custom check", z.object({ anything: z.custom<string>(() => true) })],
  ])("refuses %s in the input", (_label, input) => {
    const register = defineSkill({ name: "notes", tools: [tool({ input })] });
    expect(register).toThrow("[skill-notes] search_notes input cannot be published as JSON Schema");
  });

  it("names the output when the output cannot be published", () => {
    const register = defineSkill({ name: "notes", tools: [tool({ output: z.object({ when: z.date() }) })] });
    expect(register).toThrow("[skill-notes] search_notes output cannot be published as JSON Schema");
  });

  it("names the config when the config cannot be published", () => {
    const register = defineSkill({ name: "notes", config: z.object({ since: z.date() }), tools: [tool()] });
    expect(register).toThrow("[skill-notes] config schema cannot be published as JSON Schema");
  });
});

describe("plain JSON Schema input", () => {
  it("is accepted, labelled draft 2020-12 and copied", () => {
    const input: JsonSchema = {
      type: "object",
      properties: { text: { type: "string", description: "What to echo" } },
      required: ["text"],
      additionalProperties: false,
    };
    const [registered] = defineSkill({ name: "echo", tools: [tool({ name: "echo", input })] })().tools;
    expect(registered?.inputSchema).toEqual({ $schema: JSON_SCHEMA_DIALECT, ...input });
    expect(registered?.inputSchema).not.toBe(input);
    expect(input).not.toHaveProperty("$schema");

    (input.properties as Record<string, JsonSchema>).text = { type: "number" };
    (input.required as string[]).push("other");
    input.additionalProperties = true;
    expect(registered?.inputSchema).toEqual({
      $schema: JSON_SCHEMA_DIALECT,
      type: "object",
      properties: { text: { type: "string", description: "What to echo" } },
      required: ["text"],
      additionalProperties: false,
    });
  });
});

describe("diagnose", () => {
  it("hands check the skill's findings for a config, sync or async, and is absent when not declared", async () => {
    const sync = defineSkill({
      name: "shell",
      tools: [tool()],
      diagnose: (config: { sandbox: string }) =>
        config.sandbox === "off" ? [{ severity: "warning", rule: "shell-sandbox", message: "no sandbox" }] : [],
    })();
    expect(await sync.diagnose?.({ sandbox: "off" })).toEqual([
      { severity: "warning", rule: "shell-sandbox", message: "no sandbox" },
    ]);
    expect(await sync.diagnose?.({ sandbox: "auto" })).toEqual([]);
    const later = defineSkill({
      name: "later",
      tools: [tool()],
      diagnose: async () => [{ severity: "error" as const, message: "broken" }],
    })();
    expect(await later.diagnose?.({})).toEqual([{ severity: "error", message: "broken" }]);
    expect(defineSkill({ name: "plain", tools: [tool()] })()).not.toHaveProperty("diagnose");
  });
});
