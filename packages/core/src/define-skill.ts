import type { PromptDefinition } from "./define-prompt.js";
import type { ResourceDefinition, ResourceTemplateDefinition } from "./define-resource.js";
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
   * (`"credentials": { "token": { "env": "GITHUB_TOKEN" } }`). A credential the skill reads itself reaches
   * `ctx.credentials.<name>` (and `token` also `ctx.token`); one declared with `fetch` is held by the host and only
   * `ctx.fetch` uses it.
   * @example { token: { description: "A GitHub token", fetch: { origins: (config) => [config.apiBaseUrl] } } }
   */
  credentials?: Readonly<Record<string, CredentialSpec<Config>>>;
  // biome-ignore lint/suspicious/noExplicitAny: a skill's tools share its config type, whatever their params
  tools: readonly ToolDefinition<Config | any>[];
  /**
   * Readable data: resources with a fixed URI ({@link defineResource}) and families of them by URI template
   * ({@link defineResourceTemplate}). URIs are in the skill's own scheme; the host serves them per instance.
   * @default []
   */
  // biome-ignore lint/suspicious/noExplicitAny: a skill's resources share its config type
  resources?: readonly (ResourceDefinition<Config | any> | ResourceTemplateDefinition<Config | any>)[];
  /** Parameterised message templates the user picks in the client ({@link definePrompt}). @default [] */
  // biome-ignore lint/suspicious/noExplicitAny: a skill's prompts share its config type
  prompts?: readonly PromptDefinition<Config | any>[];
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
export interface CredentialSpec<Config = unknown> {
  /** What it is and where to get it, for the person writing the manifest. */
  description: string;
  /**
   * A missing required credential makes the instance's tools answer CREDENTIALS_MISSING.
   * @default true
   */
  required?: boolean;
  /**
   * Hands the credential to the host instead of the skill: `ctx.fetch` adds it as a header to requests for the
   * declared origins, and the skill's code never sees it (`ctx.token` and `ctx.credentials` leave it out at every
   * isolation level; `ctx.hasCredential(name)` says whether it is configured). Under worker or process isolation
   * the request runs in the host, so the credential never enters the worker or the child process.
   * @default undefined (the skill reads the credential itself from `ctx.credentials`)
   * @example { origins: (config) => [config.apiBaseUrl] }
   */
  fetch?: CredentialFetch<Config>;
}

/** Where the host may send a credential through `ctx.fetch`, and how. */
export interface CredentialFetch<Config = unknown> {
  /**
   * The origins (scheme, host and port) the credential may go to, or a function of the instance's validated config
   * that returns them. Each entry is a URL; only its origin counts (`https://ghe.example/api/v3` declares
   * `https://ghe.example`). https only, except plain http on a loopback address. The credential is added to a
   * request only while its URL, and every redirect before it, is on one of these origins.
   * @example ["https://api.github.com"]
   */
  origins: readonly string[] | ((config: Config) => readonly string[]);
  /**
   * The request header that carries the credential. The host replaces any value the skill set for it on a
   * declared origin.
   * @default "authorization"
   */
  header?: string;
  /**
   * Written before the credential, with a space: `Bearer <token>`. `""` sends the credential alone (e.g. for an
   * `x-api-key` header).
   * @default "Bearer"
   */
  scheme?: string;
}

/** A declared credential as the host reads it: defaults filled in. */
export interface RegisteredCredential {
  description: string;
  required: boolean;
  /** Set when the host holds the credential and `ctx.fetch` adds it; see {@link CredentialSpec.fetch}. */
  fetch: RegisteredCredentialFetch | undefined;
}

/** {@link CredentialFetch} with its defaults filled in. */
export interface RegisteredCredentialFetch {
  // biome-ignore lint/suspicious/noExplicitAny: the skill's config type is erased once registered
  origins: readonly string[] | ((config: any) => readonly string[]);
  header: string;
  scheme: string;
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

/** A resource as registered: its URI's scheme noted. */
export interface RegisteredResource extends ResourceDefinition {
  /** The URI's scheme (`github` for `github://user/starred`). */
  scheme: string;
}

/** A resource template as registered: its variables and their published schema. */
export interface RegisteredResourceTemplate extends ResourceTemplateDefinition {
  scheme: string;
  /** The template's variables, in order. */
  variables: string[];
  /** The JSON Schema the variables are checked against (an object of strings). */
  paramsSchema: JsonSchema;
}

/** One argument of a prompt, as MCP lists it. */
export interface PromptArgumentListing {
  name: string;
  description?: string;
  required: boolean;
}

/** A prompt as registered: its arguments' JSON Schema and MCP listing. */
export interface RegisteredPrompt extends PromptDefinition {
  argumentsSchema: JsonSchema;
  argumentList: PromptArgumentListing[];
}

/** A skill as `register()` hands it to the host. */
export interface RegisteredSkill {
  name: string;
  version: string | undefined;
  description: string | undefined;
  configSchema: JsonSchema | undefined;
  credentials: Readonly<Record<string, RegisteredCredential>>;
  tools: RegisteredTool[];
  /** Resources with a fixed URI. Absent from skills registered by an older `@skillport/core`. */
  resources?: RegisteredResource[];
  resourceTemplates?: RegisteredResourceTemplate[];
  prompts?: RegisteredPrompt[];
  /** The skill's `diagnose`, when it has one: `skillport check` calls it with each instance's validated config. */
  diagnose?: (config: unknown) => Promise<readonly SkillDiagnostic[]>;
}

/** What a skill package exports as `register`. */
export type RegisterSkill = () => RegisteredSkill;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const RESOURCE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** `scheme://rest`: what a skill's resource URIs look like before the host prefixes them. */
const SKILL_URI = /^([a-z][a-z0-9+.-]{0,31}):\/\/([^\s{}]{1,1024})$/;
const TEMPLATE = /^([a-z][a-z0-9+.-]{0,31}):\/\/(\S{1,1024})$/;
const VARIABLE = /\{(\+?)([A-Za-z_][A-Za-z0-9_]{0,63})\}/g;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** An auth scheme: a token, or nothing. */
const SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{0,64}$/;

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
    if (tool.task !== undefined && tool.task !== "optional" && tool.task !== "required") {
      throw new Error(`[skill-${spec.name}] tool "${tool.name}": task must be "optional" or "required"`);
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
  const { resources, resourceTemplates } = registerResources(spec);
  return {
    name: spec.name,
    version: spec.version,
    description: spec.description,
    resources,
    resourceTemplates,
    prompts: registerPrompts(spec),
    configSchema: spec.config === undefined ? undefined : schemaOf(spec.name, "config", "schema", spec.config),
    credentials: Object.fromEntries(
      Object.entries(spec.credentials ?? {}).map(([name, c]) => [
        name,
        { description: c.description, required: c.required ?? true, fetch: fetchOf(spec.name, name, c.fetch) },
      ]),
    ),
    tools,
    ...(spec.diagnose === undefined ? {} : { diagnose: diagnoseOf(spec.diagnose) }),
  };
}

function registerResources(spec: SkillSpec): {
  resources: RegisteredResource[];
  resourceTemplates: RegisteredResourceTemplate[];
} {
  const where = (name: string) => `[skill-${spec.name}] resource "${name}"`;
  const resources: RegisteredResource[] = [];
  const resourceTemplates: RegisteredResourceTemplate[] = [];
  const names = new Set<string>();
  for (const definition of spec.resources ?? []) {
    const { name } = definition;
    if (typeof name !== "string" || !RESOURCE_NAME.test(name)) {
      throw new Error(`${where(String(name))}: the name is invalid; use 1-64 letters, digits, ".", "_" or "-"`);
    }
    if (names.has(name)) throw new Error(`${where(name)} is defined twice; resource names must be unique in a skill`);
    names.add(name);
    checkTimeout(where(name), definition.timeoutMs);
    if (definition.kind === "template") {
      resourceTemplates.push(registerTemplate(spec, definition, where(name)));
      continue;
    }
    const match = SKILL_URI.exec(definition.uri);
    if (match === null) {
      throw new Error(
        `${where(name)}: uri "${definition.uri}" must be "scheme://…" without spaces or braces (for a URI with variables, use defineResourceTemplate)`,
      );
    }
    resources.push({ ...definition, scheme: match[1] as string });
  }
  return { resources, resourceTemplates };
}

function registerTemplate(
  spec: SkillSpec,
  definition: ResourceTemplateDefinition,
  where: string,
): RegisteredResourceTemplate {
  const match = TEMPLATE.exec(definition.uriTemplate);
  if (match === null) throw new Error(`${where}: uriTemplate "${definition.uriTemplate}" must be "scheme://…"`);
  const variables: string[] = [];
  const rest = (match[2] as string).replace(VARIABLE, (_all, _plus, variable: string) => {
    if (variables.includes(variable)) throw new Error(`${where}: variable {${variable}} appears twice`);
    variables.push(variable);
    return "";
  });
  if (/[{}]/.test(rest)) {
    throw new Error(
      `${where}: uriTemplate "${definition.uriTemplate}" has a brace that is not a variable; write {name} or {+name}`,
    );
  }
  if (variables.length === 0) throw new Error(`${where}: uriTemplate has no {variable}; use defineResource instead`);
  if (/\}\{/.test(definition.uriTemplate)) {
    throw new Error(`${where}: two variables touch in "${definition.uriTemplate}"; put a separator between them`);
  }
  const paramsSchema =
    definition.params === undefined
      ? {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: Object.fromEntries(variables.map((v) => [v, { type: "string", minLength: 1, maxLength: 1024 }])),
          required: variables,
          additionalProperties: false,
        }
      : schemaOf(spec.name, `resource "${definition.name}"`, "params", definition.params);
  const properties = (paramsSchema.properties ?? {}) as Record<string, JsonSchema>;
  for (const variable of variables) {
    if (properties[variable]?.type !== "string") {
      throw new Error(`${where}: params must declare the variable "${variable}" as a string`);
    }
  }
  checkCompleters(where, definition.complete, variables, "variable");
  return { ...definition, scheme: match[1] as string, variables, paramsSchema };
}

function registerPrompts(spec: SkillSpec): RegisteredPrompt[] {
  const seen = new Set<string>();
  return (spec.prompts ?? []).map((prompt) => {
    const where = `[skill-${spec.name}] prompt "${prompt.name}"`;
    if (typeof prompt.name !== "string" || !TOOL_NAME.test(prompt.name)) {
      throw new Error(`${where}: the name is invalid; use 1-64 letters, digits, "_" or "-" (e.g. code_review)`);
    }
    if (seen.has(prompt.name)) throw new Error(`${where} is defined twice; prompt names must be unique in a skill`);
    seen.add(prompt.name);
    checkTimeout(where, prompt.timeoutMs);
    const argumentsSchema =
      prompt.arguments === undefined
        ? {
            $schema: "https://json-schema.org/draft/2020-12/schema",
            type: "object",
            properties: {},
            additionalProperties: false,
          }
        : schemaOf(spec.name, `prompt "${prompt.name}"`, "arguments", prompt.arguments);
    const properties = (argumentsSchema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(argumentsSchema.required) ? (argumentsSchema.required as string[]) : []);
    const argumentList = Object.entries(properties).map(([name, schema]) => {
      if (schema.type !== "string") {
        throw new Error(`${where}: argument "${name}" must be a string (MCP sends prompt arguments as strings)`);
      }
      return {
        name,
        ...(typeof schema.description === "string" ? { description: schema.description } : {}),
        required: required.has(name),
      };
    });
    checkCompleters(
      where,
      prompt.complete,
      argumentList.map((a) => a.name),
      "argument",
    );
    return { ...prompt, argumentsSchema, argumentList };
  });
}

function checkCompleters(where: string, complete: object, names: readonly string[], what: string): void {
  for (const [name, completer] of Object.entries(complete)) {
    if (!names.includes(name)) throw new Error(`${where}: complete names "${name}", which is not one of its ${what}s`);
    if (typeof completer !== "function") throw new Error(`${where}: complete.${name} must be a function`);
  }
}

function checkTimeout(where: string, timeoutMs: number | undefined): void {
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new Error(`${where}: timeoutMs must be a positive integer of milliseconds`);
  }
}

function fetchOf(
  skill: string,
  name: string,
  fetch: CredentialFetch | undefined,
): RegisteredCredentialFetch | undefined {
  if (fetch === undefined) return undefined;
  const where = `[skill-${skill}] credential "${name}": fetch`;
  if (!(typeof fetch.origins === "function" || Array.isArray(fetch.origins))) {
    throw new Error(`${where}.origins must be a list of origins or a function of the config that returns one`);
  }
  const header = fetch.header ?? "authorization";
  if (!HEADER_NAME.test(header)) throw new Error(`${where}.header "${header}" is not an HTTP header name`);
  const scheme = fetch.scheme ?? "Bearer";
  if (!SCHEME.test(scheme)) {
    throw new Error(`${where}.scheme "${scheme}" is not an auth scheme (a single word such as "Bearer", or "")`);
  }
  return { origins: fetch.origins, header: header.toLowerCase(), scheme };
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
  if ((which.endsWith("input") || which === "params" || which === "arguments") && json.type !== "object") {
    throw new Error(`[skill-${skill}] ${tool} input must be an object schema (MCP arguments are an object)`);
  }
  return json;
}
