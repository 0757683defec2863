import { describe, expect, it } from "vitest";
import type { ComparableSkill } from "../src/classify-changes.js";
import { classifySkillChanges } from "../src/classify-changes.js";

type Editable = { -readonly [K in keyof Required<ComparableSkill>]: NonNullable<ComparableSkill[K]>[number][] };

const skill = (): Editable => ({
  tools: [],
  resources: [
    { name: "starred", uri: "github://user/starred", description: "Starred repos.", mimeType: "application/json" },
  ],
  resourceTemplates: [
    {
      name: "readme",
      uriTemplate: "github://repos/{owner}/{repo}/readme",
      paramsSchema: {
        type: "object",
        properties: { owner: { type: "string", maxLength: 39 }, repo: { type: "string", maxLength: 100 } },
        required: ["owner", "repo"],
      },
      completes: ["repo"],
      lists: false,
    },
  ],
  prompts: [
    {
      name: "code_review",
      description: "Review a pull request.",
      argumentsSchema: {
        type: "object",
        properties: { repo: { type: "string", maxLength: 140 }, pr_number: { type: "string", maxLength: 9 } },
        required: ["repo", "pr_number"],
      },
      completes: [],
    },
  ],
});

const CASES: Array<[string, (s: Editable) => void, string, "breaking" | "minor" | "patch", string]> = [
  ["a resource removed", (s) => s.resources.pop(), "resource starred", "breaking", "resource removed or renamed"],
  [
    "a resource's URI changed",
    (s) => {
      (s.resources[0] as { uri: string }).uri = "github://me/starred";
    },
    "resource starred",
    "breaking",
    "uri changed from github://user/starred to github://me/starred",
  ],
  [
    "a template variable narrowed",
    (s) => {
      const schema = s.resourceTemplates[0]?.paramsSchema as { properties: Record<string, { maxLength: number }> };
      const properties = schema.properties;
      (properties.repo as { maxLength: number }).maxLength = 50;
    },
    "template readme",
    "breaking",
    "params /repo: maxLength lowered from 100 to 50",
  ],
  [
    "a prompt argument added as required",
    (s) => {
      const schema = s.prompts[0]?.argumentsSchema as { properties: Record<string, unknown>; required: string[] };
      schema.properties.focus = { type: "string" };
      schema.required.push("focus");
    },
    "prompt code_review",
    "breaking",
    "arguments /focus: required field added",
  ],
  ["a prompt removed", (s) => s.prompts.pop(), "prompt code_review", "breaking", "prompt removed or renamed"],
  [
    "a prompt added",
    (s) => s.prompts.push({ ...(s.prompts[0] as (typeof s.prompts)[number]), name: "issue_template" }),
    "prompt issue_template",
    "minor",
    "prompt added",
  ],
  [
    "a completion added",
    (s) => {
      (s.prompts[0] as unknown as { completes: string[] }).completes = ["repo"];
    },
    "prompt code_review",
    "minor",
    "completes repo",
  ],
  [
    "a description changed",
    (s) => {
      (s.resources[0] as { description: string }).description = "Stars.";
    },
    "resource starred",
    "patch",
    "description changed",
  ],
];

describe("classifySkillChanges: resources, templates and prompts", () => {
  it.each(CASES)("%s", (_what, edit, item, level, message) => {
    const live = skill();
    edit(live);
    expect(classifySkillChanges(skill(), live)).toEqual([{ level, tool: item, message }]);
  });

  it("finds nothing between a surface and itself, nor between a tools-only skill and one without the new fields", () => {
    expect(classifySkillChanges(skill(), skill())).toEqual([]);
    expect(classifySkillChanges({ tools: [] }, { tools: [], resources: [], prompts: [] })).toEqual([]);
  });
});
