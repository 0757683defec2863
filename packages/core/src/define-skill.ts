import type { ToolDefinition } from "./define-tool.js";
import type { ToolAnnotations } from "./risk.js";
import { riskAnnotations } from "./risk.js";
import type { JsonSchema, SchemaInput } from "./schema.js";
import { toJsonSchema } from "./schema.js";

/** What an author writes for a skill. */
export interface SkillSpec<Config = unknown> {
  /** The default MCP id, used as the tools' prefix. @example "notes" */
  name: string;
  /** Defaults to the package's own version, which the host reads from package.json. */
  version?: string;
  description?: string;
  /**
   * The instance config the manifest supplies, validated by the host. String fields with
   * `format: "path"` are resolved against the manifest's folder (and `~`).
   */
  config?: SchemaInput;
  /**
   * The credentials the skill needs, by name; the manifest says where each comes from
   * (`"credentials": { "token": { "env": "GITHUB_TOKEN" } }`). `token` reaches `ctx.token`, every one
   * reaches `ctx.credentials.<name>`.
   * @example { token: { required: true, description: "A GitHub token with repo scope" } }
   */
  credentials?: Readonly<Record<string, CredentialSpec>>;
  // biome-ignore lint/suspicious/noExplicitAny: a skill's tools share its config type, whatever their params
  tools: readonly ToolDefinition<Config | any>[];
  /**
   * What `skillport check` should tell the person writing the manifest about an instance's config: risks it
   * takes, features the machine lacks. Receives the validated config; must not change anything.
   * @example (config) => config.sandbox === "off" ? [{ severity: "warning", rule: "shell-sandbox", message: "…" }] : []
   */
  diagnose?: (config: Config) => readonly SkillDiagnostic[] | Promise<readonly SkillDiagnostic[]>;
}

/** One thing a skill's `diagnose` reports about an instance's config. */
export interface SkillDiagnostic {
  /** An error fails `skillport check`; a warning does not. */
  severity: "error" | "warning";
  /** A short, stable name for the finding. @default "diagnose" */
  rule?: string;
  /** What is wrong or risky, and what to do about it. */
  message: string;
}

/** One credential a skill declares. */
export interface CredentialSpec {
  /** What it is and where to get it, for the person writing the manifest. */
  description: string;
  /**
   * A missing required credential makes the instance's tools answer CREDENTIALS_MISSING.
   * @default true
   */
  required?: boolean;
}

/** A tool with its published JSON Schemas. */
export interface RegisteredTool extends ToolDefinition {
  inputSchema: JsonSchema;
  /** The JSON Schema of `data`, when the tool declared an output. */
  outputSchema: JsonSchema | undefined;
  /** MCP annotations derived from the risk and the tool's extras. */
  mcpAnnotations: ToolAnnotations;
  /** The JSON Schemas of the tool's legacy inputs, in the order declared. */
  legacySchemas: JsonSchema[];
}

/** A skill as `register()` hands it to the host. */
export interface RegisteredSkill {
  name: string;
  version: string | undefined;
  description: string | undefined;
  configSchema: JsonSchema | undefined;
  credentials: Readonly<Record<string, Required<CredentialSpec>>>;
  tools: RegisteredTool[];
  /** The skill's `diagnose`, when it has one: `skillport check` calls it with each instance's validated config. */
  diagnose?: (config: unknown) => Promise<readonly SkillDiagnostic[]>;
}

/** What a skill package exports as `register`. */
export type RegisterSkill = () => RegisteredSkill;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Describes a skill. Returns the `register` function the host calls; schemas are computed on the
 * first call, not at import, so importing a skill stays cheap.
 *
 * @example
 * export const register = defineSkill({ name: "notes", config: NotesConfig, tools: [searchNotesTool] });
 */
export function defineSkill<Config>(spec: SkillSpec<Config>): RegisterSkill {
  let registered: RegisteredSkill | undefined;
  return () => {
    registered ??= registerSkill(spec as SkillSpec);
    return registered;
  };
}

// --- internal ---

function registerSkill(spec: SkillSpec): RegisteredSkill {
  const seen = new Set<string>();
  const tools = spec.tools.map((tool) => {
    if (!TOOL_NAME.test(tool.name)) {
      throw new Error(
        `[skill-${spec.name}] tool name "${tool.name}" is invalid: use 1-64 letters, digits, "_" or "-" (e.g. search_notes)`,
      );
    }
    if (tool.timeoutMs !== undefined && !(Number.isInteger(tool.timeoutMs) && tool.timeoutMs > 0)) {
      throw new Error(`[skill-${spec.name}] tool "${tool.name}": timeoutMs must be a positive integer of milliseconds`);
    }
    if (seen.has(tool.name)) {
      throw new Error(
        `[skill-${spec.name}] tool "${tool.name}" is defined twice; tool names must be unique in a skill`,
      );
    }
    seen.add(tool.name);
    return {
      ...tool,
      inputSchema: schemaOf(spec.name, tool.name, "input", tool.input),
      outputSchema:
        tool.output === undefined ? undefined : schemaOf(spec.name, tool.name, "output", tool.output, "output"),
      mcpAnnotations: riskAnnotations(tool.risk, tool.annotations),
      legacySchemas: tool.legacy.map((l, i) => schemaOf(spec.name, tool.name, `legacy[${i}] input`, l.input)),
    };
  });
  return {
    name: spec.name,
    version: spec.version,
    description: spec.description,
    configSchema: spec.config === undefined ? undefined : schemaOf(spec.name, "config", "schema", spec.config),
    credentials: Object.fromEntries(
      Object.entries(spec.credentials ?? {}).map(([name, c]) => [
        name,
        { description: c.description, required: c.required ?? true },
      ]),
    ),
    tools,
    ...(spec.diagnose === undefined ? {} : { diagnose: diagnoseOf(spec.diagnose) }),
  };
}

function diagnoseOf(
  diagnose: NonNullable<SkillSpec["diagnose"]>,
): (config: unknown) => Promise<readonly SkillDiagnostic[]> {
  return async (config) => diagnose(config);
}

function schemaOf(
  skill: string,
  tool: string,
  which: string,
  schema: SchemaInput,
  io: "input" | "output" = "input",
): JsonSchema {
  let json: JsonSchema;
  try {
    json = toJsonSchema(schema, io);
  } catch (error) {
    throw new Error(
      `[skill-${skill}] ${tool} ${which} cannot be published as JSON Schema: ${(error as Error).message}`,
    );
  }
  if (which.endsWith("input") && json.type !== "object") {
    throw new Error(`[skill-${skill}] ${tool} input must be an object schema (MCP arguments are an object)`);
  }
  return json;
}
