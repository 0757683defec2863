import type { JsonSchema, RegisteredSkill, RegisteredTool, ToolAnnotations } from "@skillport/core";
import { SkillError } from "@skillport/core";

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

const PLACEHOLDER = Symbol("skillport.placeholder");

/** True for a tool of a {@link placeholderSkill}: its skill is not imported yet. */
export function isPlaceholder(tool: RegisteredTool): boolean {
  return (tool.run as unknown as Record<symbol, unknown>)[PLACEHOLDER] === true;
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

/**
 * A skill standing in for one not imported yet: its surface, with code that refuses to run. The pipeline loads
 * the real skill before it calls any code, so these never run.
 */
export function placeholderSkill(surface: SkillSurface): RegisteredSkill {
  const notLoaded = Object.assign(
    () => {
      throw new SkillError({ code: "UNAVAILABLE", message: `skill "${surface.name}" is not loaded yet` });
    },
    { [PLACEHOLDER]: true },
  );
  return {
    name: surface.name,
    version: undefined,
    description: surface.description,
    configSchema: surface.configSchema,
    credentials: surface.credentials,
    tools: surface.tools.map((t) => ({
      ...t,
      input: t.inputSchema,
      output: t.outputSchema,
      examples: [],
      buildBrief: t.hasBrief ? notLoaded : undefined,
      legacy: t.legacySchemas.map((input) => ({ input, migrate: notLoaded, note: "" })),
      run: notLoaded,
    })),
  };
}
