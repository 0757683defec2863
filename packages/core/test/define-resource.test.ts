import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePrompt, defineResource, defineResourceTemplate, defineSkill } from "../src/index.js";

const read = () => "text";

describe("defineSkill registers resources, templates and prompts", () => {
  it("notes each resource's scheme and each template's variables, with a default schema of bounded strings", () => {
    const skill = defineSkill({
      name: "gh",
      tools: [],
      resources: [
        defineResource({ name: "starred", uri: "github://user/starred", mimeType: "application/json", read }),
        defineResourceTemplate({ name: "readme", uriTemplate: "github://repos/{owner}/{repo}/readme", read }),
      ],
    })();
    expect(skill.resources).toMatchObject([{ name: "starred", scheme: "github", uri: "github://user/starred" }]);
    expect(skill.resourceTemplates?.[0]).toMatchObject({ scheme: "github", variables: ["owner", "repo"] });
    expect(skill.resourceTemplates?.[0]?.paramsSchema).toMatchObject({
      type: "object",
      properties: { owner: { type: "string", maxLength: 1024 }, repo: { type: "string", maxLength: 1024 } },
      required: ["owner", "repo"],
      additionalProperties: false,
    });
  });

  it("takes a template's params schema, and refuses one that leaves a variable out or not a string", () => {
    const params = z.object({ path: z.string().max(200).describe("a note path") }).strict();
    const skill = defineSkill({
      name: "notes",
      tools: [],
      resources: [defineResourceTemplate({ name: "note", uriTemplate: "notes://{+path}", params, read })],
    })();
    expect(skill.resourceTemplates?.[0]?.paramsSchema).toMatchObject({ properties: { path: { maxLength: 200 } } });
    const wrong = z.object({ path: z.number() });
    expect(() =>
      defineSkill({
        name: "notes",
        tools: [],
        resources: [defineResourceTemplate({ name: "note", uriTemplate: "notes://{+path}", params: wrong, read })],
      })(),
    ).toThrow(/params must declare the variable "path" as a string/);
  });

  it.each([
    ["a URI without a scheme", defineResource({ name: "r", uri: "starred", read }), /must be "scheme:\/\/…"/],
    ["braces in a fixed URI", defineResource({ name: "r", uri: "gh://{x}", read }), /defineResourceTemplate/],
    [
      "a stray brace",
      defineResourceTemplate({ name: "r", uriTemplate: "gh://{a}/{b", read }),
      /brace that is not a variable/,
    ],
    ["a repeated variable", defineResourceTemplate({ name: "r", uriTemplate: "gh://{a}/{a}", read }), /twice/],
    ["touching variables", defineResourceTemplate({ name: "r", uriTemplate: "gh://{a}{b}", read }), /touch/],
    ["a template without variables", defineResourceTemplate({ name: "r", uriTemplate: "gh://x", read }), /no \{var/],
    [
      "a completer for no variable",
      defineResourceTemplate({ name: "r", uriTemplate: "gh://{a}", complete: { b: () => [] }, read }),
      /complete names "b"/,
    ],
    ["a bad name", defineResource({ name: "a b", uri: "gh://x", read }), /name is invalid/],
  ])("refuses %s, naming the resource", (_what, definition, message) => {
    expect(() => defineSkill({ name: "gh", tools: [], resources: [definition] })()).toThrow(message);
  });

  it("refuses two resources of one name", () => {
    const twice = [
      defineResource({ name: "r", uri: "gh://a", read }),
      defineResource({ name: "r", uri: "gh://b", read }),
    ];
    expect(() => defineSkill({ name: "gh", tools: [], resources: twice })()).toThrow(/defined twice/);
  });

  it("lists a prompt's arguments from its schema: descriptions, and which are required", () => {
    const skill = defineSkill({
      name: "gh",
      tools: [],
      prompts: [
        definePrompt({
          name: "code_review",
          description: "Review a pull request.",
          arguments: z.object({
            repo: z.string().max(140).describe("owner/name"),
            pr_number: z
              .string()
              .regex(/^\d{1,9}$/)
              .describe("the pull request's number"),
            focus: z.string().max(200).optional(),
          }),
          complete: { repo: () => ["octo/hello"] },
          render: ({ repo }) => `Review ${repo}`,
        }),
      ],
    })();
    expect(skill.prompts?.[0]?.argumentList).toEqual([
      { name: "repo", description: "owner/name", required: true },
      { name: "pr_number", description: "the pull request's number", required: true },
      { name: "focus", required: false },
    ]);
  });

  it("refuses a prompt argument that is not a string: MCP sends prompt arguments as strings", () => {
    const prompt = definePrompt({
      name: "p",
      description: "A prompt.",
      arguments: z.object({ n: z.number() }),
      render: () => "x",
    });
    expect(() => defineSkill({ name: "gh", tools: [], prompts: [prompt] })()).toThrow(/argument "n" must be a string/);
  });

  it("gives a prompt without arguments an empty closed schema", () => {
    const prompt = definePrompt({ name: "p", description: "A prompt.", render: () => "x" });
    const [registered] = defineSkill({ name: "gh", tools: [], prompts: [prompt] })().prompts ?? [];
    expect(registered?.argumentsSchema).toMatchObject({ type: "object", properties: {}, additionalProperties: false });
    expect(registered?.argumentList).toEqual([]);
  });
});
