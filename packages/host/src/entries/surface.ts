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
  /** Whether a call may run as a task; absent for a tool that never does (so its lock hash is unchanged). */
  task?: "optional" | "required";
}

/** A resource as published: its URI in the skill's own scheme and what it says about itself. */
export interface ResourceSurface {
  name: string;
  uri: string;
  title: string | undefined;
  description: string | undefined;
  mimeType: string | undefined;
  timeoutMs: number | undefined;
}

/** A resource template as published: its URI template, variables' schema and which variables complete. */
export interface ResourceTemplateSurface {
  name: string;
  uriTemplate: string;
  title: string | undefined;
  description: string | undefined;
  mimeType: string | undefined;
  timeoutMs: number | undefined;
  paramsSchema: JsonSchema;
  completes: string[];
  lists: boolean;
}

/** A prompt as published: its arguments' schema and which arguments complete. */
export interface PromptSurface {
  name: string;
  title: string | undefined;
  description: string;
  timeoutMs: number | undefined;
  argumentsSchema: JsonSchema;
  completes: string[];
}

/**
 * A skill as published: its name, config schema, declared credentials and tool surfaces, and its resources,
 * templates and prompts (present only when the skill has some, so a tools-only skill's lock hash is unchanged).
 */
export interface SkillSurface {
  name: string;
  description: string | undefined;
  configSchema: JsonSchema | undefined;
  credentials: RegisteredSkill["credentials"];
  tools: ToolSurface[];
  resources?: ResourceSurface[];
  resourceTemplates?: ResourceTemplateSurface[];
  prompts?: PromptSurface[];
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
      // Older cores register no `task`; a tool that never runs as a task publishes nothing new.
      ...(t.task === undefined ? {} : { task: t.task }),
    })),
    ...nonEmpty(
      "resources",
      (skill.resources ?? []).map((r) => ({
        name: r.name,
        uri: r.uri,
        title: r.title,
        description: r.description,
        mimeType: r.mimeType,
        timeoutMs: r.timeoutMs,
      })),
    ),
    ...nonEmpty(
      "resourceTemplates",
      (skill.resourceTemplates ?? []).map((t) => ({
        name: t.name,
        uriTemplate: t.uriTemplate,
        title: t.title,
        description: t.description,
        mimeType: t.mimeType,
        timeoutMs: t.timeoutMs,
        paramsSchema: t.paramsSchema,
        completes: Object.keys(t.complete).sort(),
        lists: t.list !== undefined,
      })),
    ),
    ...nonEmpty(
      "prompts",
      (skill.prompts ?? []).map((p) => ({
        name: p.name,
        title: p.title,
        description: p.description,
        timeoutMs: p.timeoutMs,
        argumentsSchema: p.argumentsSchema,
        completes: Object.keys(p.complete).sort(),
      })),
    ),
  };
}

// --- internal ---

function nonEmpty<K extends string, T>(key: K, list: T[]): { [k in K]?: T[] } {
  return (list.length === 0 ? {} : { [key]: list }) as { [k in K]?: T[] };
}
