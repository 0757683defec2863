import type { ResourceContents } from "./content.js";
import type { SkillContext } from "./context.js";
import type { ParamsOf } from "./define-tool.js";
import type { SchemaInput } from "./schema.js";

/**
 * What reading a resource returns: text, bytes, one part with its own MIME type, or several parts. Text and bytes
 * take the resource's declared `mimeType`.
 */
export type ReadResult = string | Uint8Array | ResourceContents | readonly ResourceContents[];

/**
 * Suggests values for one argument of a prompt or one variable of a resource template, for MCP completion
 * (`completion/complete`). Receives what the user typed so far and the values already given for the others.
 * Pure of side effects; the host keeps at most 100 values.
 */
export type Completer<Config = unknown> = (
  value: string,
  ctx: SkillContext<Config>,
  context: CompletionContext,
) => readonly string[] | Promise<readonly string[]>;

/** What a {@link Completer} knows besides the value being typed. */
export interface CompletionContext {
  /** The values already given for the other arguments (or template variables), by name. */
  arguments: Readonly<Record<string, string>>;
}

/** What an author writes for a resource with a fixed URI. */
export interface ResourceSpec<Config = unknown> {
  /** A short identifier, unique among the skill's resources and templates. @example "starred" */
  name: string;
  /**
   * The resource's URI in the skill's own scheme (`scheme://…`). The host serves it under a prefix per instance
   * (see the host's README); the skill never needs to know it.
   * @example "github://user/starred"
   */
  uri: string;
  title?: string;
  /** What the resource holds, for a model deciding whether to read it. */
  description?: string;
  /** @example "application/json" */
  mimeType?: string;
  /** How long a read may run before it is stopped. @default the host's default (30000) */
  timeoutMs?: number;
  /** Reads the resource. Gets no parameters (`{}`) and the same `ctx` as a tool. */
  read: (params: Record<string, never>, ctx: SkillContext<Config>) => ReadResult | Promise<ReadResult>;
}

/** One concrete resource of a template, as its `list` names it for resources/list. */
export interface TemplateResource {
  /** The template's variables for this resource; the host writes the URI from them. */
  params: Readonly<Record<string, string>>;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** What an author writes for a family of resources: a URI template and how to read one of them. */
export interface ResourceTemplateSpec<P extends SchemaInput | undefined = undefined, Config = unknown> {
  /** A short identifier, unique among the skill's resources and templates. @example "readme" */
  name: string;
  /**
   * A URI template in the skill's own scheme: `{name}` stands for one path segment, `{+name}` for any text
   * (slashes included). Served under a prefix per instance, like a resource's URI.
   * @example "github://repos/{owner}/{repo}/readme"
   */
  uriTemplate: string;
  title?: string;
  description?: string;
  mimeType?: string;
  timeoutMs?: number;
  /**
   * The variables' schema (zod or JSON Schema, an object of strings): checked by the host before `read` runs, so a
   * `pattern` or `maxLength` here is enforced. Without it every variable is a string of at most 1024 characters.
   */
  params?: P;
  /** Suggestions for variables, by variable name. */
  complete?: Readonly<Record<string, Completer<Config>>>;
  /** Names the template's resources for resources/list (a bounded list: the host keeps the first 1000). */
  list?: (ctx: SkillContext<Config>) => readonly TemplateResource[] | Promise<readonly TemplateResource[]>;
  /** Reads one resource of the template, given its variables. */
  read: (
    params: P extends SchemaInput ? ParamsOf<P> : Record<string, string>,
    ctx: SkillContext<Config>,
  ) => ReadResult | Promise<ReadResult>;
}

/** A resource as the host reads it. */
export interface ResourceDefinition<Config = unknown> {
  kind: "resource";
  name: string;
  uri: string;
  title: string | undefined;
  description: string | undefined;
  mimeType: string | undefined;
  timeoutMs: number | undefined;
  read: (params: Record<string, unknown>, ctx: SkillContext<Config>) => ReadResult | Promise<ReadResult>;
}

/** A resource template as the host reads it. */
export interface ResourceTemplateDefinition<Config = unknown> {
  kind: "template";
  name: string;
  uriTemplate: string;
  title: string | undefined;
  description: string | undefined;
  mimeType: string | undefined;
  timeoutMs: number | undefined;
  params: SchemaInput | undefined;
  complete: Readonly<Record<string, Completer<Config>>>;
  list: ((ctx: SkillContext<Config>) => readonly TemplateResource[] | Promise<readonly TemplateResource[]>) | undefined;
  read: (params: Record<string, unknown>, ctx: SkillContext<Config>) => ReadResult | Promise<ReadResult>;
}

/**
 * Describes a resource with a fixed URI.
 *
 * @example
 * export const starredResource = defineResource({
 *   name: "starred", uri: "github://user/starred", mimeType: "application/json",
 *   description: "The repositories the token's user starred, most recent first.",
 *   read: async (_params, ctx) => JSON.stringify(await listStarred(ctx)),
 * });
 */
export function defineResource<Config = unknown>(spec: ResourceSpec<Config>): ResourceDefinition<Config> {
  return {
    kind: "resource",
    name: spec.name,
    uri: spec.uri,
    title: spec.title,
    description: spec.description,
    mimeType: spec.mimeType,
    timeoutMs: spec.timeoutMs,
    read: spec.read as ResourceDefinition<Config>["read"],
  };
}

/**
 * Describes a family of resources by URI template. With a zod `params`, `read`'s params are typed from it.
 *
 * @example
 * export const readmeTemplate = defineResourceTemplate({
 *   name: "readme", uriTemplate: "github://repos/{owner}/{repo}/readme", mimeType: "text/markdown",
 *   description: "A repository's README.",
 *   read: ({ owner, repo }, ctx) => fetchReadme(owner, repo, ctx),
 * });
 */
export function defineResourceTemplate<P extends SchemaInput | undefined = undefined, Config = unknown>(
  spec: ResourceTemplateSpec<P, Config>,
): ResourceTemplateDefinition<Config> {
  return {
    kind: "template",
    name: spec.name,
    uriTemplate: spec.uriTemplate,
    title: spec.title,
    description: spec.description,
    mimeType: spec.mimeType,
    timeoutMs: spec.timeoutMs,
    params: spec.params,
    complete: spec.complete ?? {},
    list: spec.list,
    read: spec.read as ResourceTemplateDefinition<Config>["read"],
  };
}
