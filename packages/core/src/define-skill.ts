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

/** A skill as `register()` hands it to the host. */
export interface RegisteredSkill {
  name: string;
  version: string | undefined;
  description: string | undefined;
  configSchema: JsonSchema | undefined;
  credentials: Readonly<Record<string, RegisteredCredential>>;
  tools: RegisteredTool[];
  /** The skill's `diagnose`, when it has one: `skillport check` calls it with each instance's validated config. */
  diagnose?: (config: unknown) => Promise<readonly SkillDiagnostic[]>;
}

/** What a skill package exports as `register`. */
export type RegisterSkill = () => RegisteredSkill;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
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
        { description: c.description, required: c.required ?? true, fetch: fetchOf(spec.name, name, c.fetch) },
      ]),
    ),
    tools,
    ...(spec.diagnose === undefined ? {} : { diagnose: diagnoseOf(spec.diagnose) }),
  };
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
  if (which.endsWith("input") && json.type !== "object") {
    throw new Error(`[skill-${skill}] ${tool} input must be an object schema (MCP arguments are an object)`);
  }
  return json;
}
