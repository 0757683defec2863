import type { JsonSchema, RegisteredSkill, RegisteredTool, ToolAnnotations } from "@skillport/core";

/** A tool as published: everything but its code. What the lock stores and `check` compares. */
export interface ToolSurface {
  name: string;
  title: string;
  description: string;
  risk: RegisteredTool["risk"];
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | undefined;
  annotations: RegisteredTool["annotations"];
  mcpAnnotations: ToolAnnotations;
  timeoutMs: number | undefined;
  hasBrief: boolean;
  legacySchemas: JsonSchema[];
}

/** A skill as published: its name, config schema, declared credentials and tool surfaces. */
export interface SkillSurface {
  name: string;
  description: string | undefined;
  configSchema: JsonSchema | undefined;
  credentials: RegisteredSkill["credentials"];
  tools: ToolSurface[];
}

/** The published surface of a registered skill. */
export function surfaceOf(skill: RegisteredSkill): SkillSurface {
  return {
    name: skill.name,
    description: skill.description,
    configSchema: skill.configSchema,
    credentials: skill.credentials,
    tools: skill.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      risk: t.risk,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
      mcpAnnotations: t.mcpAnnotations,
      timeoutMs: t.timeoutMs,
      hasBrief: t.buildBrief !== undefined,
      legacySchemas: t.legacySchemas,
    })),
  };
}
