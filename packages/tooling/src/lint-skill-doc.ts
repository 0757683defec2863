import type { JsonSchema, RegisteredSkill } from "@skillport/core";
import { parseSkillHead } from "@skillport/host/surface";

/** The rules a skill package's SKILL.md is checked against, shared by `skillport check` and `testSkill()`. */
export const SKILL_DOC_RULES = {
  "skill-md-frontmatter": "SKILL.md opens with YAML frontmatter (--- on its first line) holding name and description",
  "skill-md-name":
    "the frontmatter name is the skill's name and follows the Agent Skills rules: 1-64 lowercase letters, digits and single hyphens",
  "skill-md-description":
    "the frontmatter description says what the skill does and when to use it, in at most 1024 characters",
  "skill-md-tools":
    "every tool SKILL.md names in code (`search_notes`) is a tool of the skill (or an argument, field, prompt or resource of it)",
} as const;

/** The id of a SKILL.md rule. */
export type SkillDocRule = keyof typeof SKILL_DOC_RULES;

/** One thing the SKILL.md lint found; errors fail `testSkill()` and `skillport check`. */
export interface SkillDocFinding {
  rule: SkillDocRule;
  message: string;
  severity: "error" | "warning";
}

/**
 * Checks a skill's SKILL.md (its text) against {@link SKILL_DOC_RULES}: the frontmatter an agent reads to pick the
 * skill, and the tool names the instructions tell it to call. A code span that reads like a tool name
 * (`lowercase_words`) must be one of the skill's tools, or an argument or field of one, or one of its prompts,
 * resources or templates: instructions naming a tool that was renamed or removed send the agent to call nothing.
 *
 * @example
 * const findings = lintSkillDoc(await readFile("SKILL.md", "utf8"), register());
 */
export function lintSkillDoc(text: string, skill: RegisteredSkill): SkillDocFinding[] {
  const findings: SkillDocFinding[] = [];
  const add = (rule: SkillDocRule, message: string) => findings.push({ rule, message, severity: "error" });
  const head = parseSkillHead(text);
  if (head === undefined) {
    add(
      "skill-md-frontmatter",
      'SKILL.md must open with a frontmatter block: "---" on the first line, then name: and description:, then "---"',
    );
  } else {
    if (head.name === undefined) add("skill-md-name", `the frontmatter has no name; write name: ${skill.name}`);
    else if (!AGENT_SKILL_NAME.test(head.name) || head.name.includes("--")) {
      add(
        "skill-md-name",
        `the frontmatter name "${head.name}" breaks the Agent Skills rules (1-64 lowercase letters, digits and single hyphens, none at either end)`,
      );
    } else if (head.name !== skill.name) {
      add(
        "skill-md-name",
        `the frontmatter name "${head.name}" is not the skill's name "${skill.name}"; the host serves the file as skill://<mcp>/${head.name}/SKILL.md beside the tools of ${skill.name}`,
      );
    }
    if (head.description === undefined) {
      add("skill-md-description", "the frontmatter has no description: say what the skill does and when to use it");
    } else if (head.description.length > MAX_DESCRIPTION) {
      add(
        "skill-md-description",
        `the frontmatter description has ${head.description.length} characters; keep it to ${MAX_DESCRIPTION}`,
      );
    }
  }
  const known = knownNames(skill);
  const tools = skill.tools.map((t) => t.name);
  const unknown = [...new Set(codeSpans(text).filter((span) => TOOL_LIKE.test(span) && !known.has(span)))];
  for (const name of unknown) {
    add(
      "skill-md-tools",
      `SKILL.md names \`${name}\`, which is not a tool of ${skill.name} (its tools: ${tools.join(", ") || "none"}); name the tool it means, or take it out`,
    );
  }
  return findings;
}

// --- internal ---

const AGENT_SKILL_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const MAX_DESCRIPTION = 1024;
/** What a tool name looks like in prose: lowercase words joined by `_`. */
const TOOL_LIKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** The text of each inline code span outside fenced blocks, trimmed. */
function codeSpans(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => (m[1] as string).trim());
}

/** Every name an instruction may rightly mention: tools, their arguments and fields, prompts, resources. */
function knownNames(skill: RegisteredSkill): Set<string> {
  const names = new Set<string>();
  for (const tool of skill.tools) {
    names.add(tool.name);
    for (const schema of [tool.inputSchema, tool.outputSchema, ...tool.legacySchemas]) propertyNames(schema, names);
  }
  for (const prompt of skill.prompts ?? []) {
    names.add(prompt.name);
    propertyNames(prompt.argumentsSchema, names);
  }
  for (const resource of skill.resources ?? []) names.add(resource.name);
  for (const template of skill.resourceTemplates ?? []) {
    names.add(template.name);
    for (const variable of template.variables) names.add(variable);
  }
  return names;
}

function propertyNames(schema: JsonSchema | undefined, into: Set<string>, depth = 0): void {
  if (typeof schema !== "object" || schema === null || depth > 32) return;
  const node = schema as Record<string, unknown>;
  const properties = node.properties;
  if (typeof properties === "object" && properties !== null) {
    for (const [name, child] of Object.entries(properties)) {
      into.add(name);
      propertyNames(child as JsonSchema, into, depth + 1);
    }
  }
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const item of value) propertyNames(item as JsonSchema, into, depth + 1);
    else if (typeof value === "object" && value !== null && value !== properties) {
      propertyNames(value as JsonSchema, into, depth + 1);
    }
  }
}
