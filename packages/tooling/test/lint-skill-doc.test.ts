import { definePrompt, defineSkill, defineTool } from "@skillport/core";
import { describe, expect, it } from "vitest";
import { lintSkillDoc } from "../src/lint-skill-doc.js";

const skill = defineSkill({
  name: "notes",
  tools: [
    defineTool({
      name: "search_notes",
      title: "Search notes",
      description: "Search the notes for a keyword.",
      input: {
        type: "object",
        properties: { keyword: { type: "string" }, max_hits: { type: "integer" } },
        additionalProperties: false,
      },
      output: { type: "object", properties: { next_page: { type: "string" } } },
      risk: "read_only",
      run: () => ({}),
    }),
    defineTool({
      name: "read_note",
      title: "Read a note",
      description: "Read one note by its path.",
      input: { type: "object", properties: { path: { type: "string" } }, additionalProperties: false },
      risk: "read_only",
      run: () => ({}),
    }),
  ],
  prompts: [definePrompt({ name: "study_plan", description: "Plan studying a note.", render: () => "Plan it." })],
})();

const doc = (frontmatter: string, body = "Use `search_notes`, then `read_note`.") =>
  `---\n${frontmatter}\n---\n\n${body}\n`;
const good = "name: notes\ndescription: Search and read the user's notes, and plan studying them.";
const rules = (text: string) => lintSkillDoc(text, skill).map((f) => f.rule);

describe("lintSkillDoc (a SKILL.md that travels with the tools must describe these tools)", () => {
  it("accepts a SKILL.md naming the skill's tools, their arguments and fields, and its prompts", () => {
    const body = "Call `search_notes` (`keyword`, `max_hits`; follow `next_page`) then `read_note`; ask `study_plan`.";
    expect(lintSkillDoc(doc(good, body), skill)).toEqual([]);
  });

  it("names a tool the skill does not have (a renamed or removed tool left in the instructions)", () => {
    const findings = lintSkillDoc(doc(good, "Use `find_notes` and then `read_note`."), skill);
    expect(findings).toEqual([
      {
        rule: "skill-md-tools",
        severity: "error",
        message: expect.stringMatching(/`find_notes`.*not a tool of notes.*search_notes, read_note/),
      },
    ]);
  });

  it.each([
    ["no frontmatter at all", "# Notes\n\nUse `search_notes`.\n", "skill-md-frontmatter"],
    ["a blank line before the frontmatter", `\n${doc(good)}`, "skill-md-frontmatter"],
    ["no name", doc("description: Search and read the user's notes."), "skill-md-name"],
    ["a name with capitals", doc("name: Notes\ndescription: Search and read notes."), "skill-md-name"],
    ["a name with a double hyphen", doc("name: my--notes\ndescription: Search and read notes."), "skill-md-name"],
    ["another skill's name", doc("name: files\ndescription: Search and read notes."), "skill-md-name"],
    ["no description", doc("name: notes"), "skill-md-description"],
    [
      "a description over 1024 characters",
      doc(`name: notes\ndescription: ${"a".repeat(1025)}`),
      "skill-md-description",
    ],
  ])("refuses %s", (_case, text, rule) => {
    expect(rules(text)).toContain(rule);
  });

  it("reads quoted values as YAML does", () => {
    expect(lintSkillDoc(doc(`name: "notes"\ndescription: 'Search: and read notes.'`), skill)).toEqual([]);
  });
});
