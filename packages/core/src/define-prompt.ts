import type { PromptMessage } from "./content.js";
import type { SkillContext } from "./context.js";
import type { Completer } from "./define-resource.js";
import type { ParamsOf } from "./define-tool.js";
import type { SchemaInput } from "./schema.js";

/**
 * What rendering a prompt returns: one user message as text, a list of messages, or messages with a description.
 */
export type PromptResult =
  | string
  | readonly PromptMessage[]
  | { description?: string; messages: readonly PromptMessage[] };

/** What an author writes for a prompt: a parameterised message template for the user to pick. */
export interface PromptSpec<A extends SchemaInput | undefined = undefined, Config = unknown> {
  /** `<verb>_<object>` or a noun, like a tool's name; stable. @example "code_review" */
  name: string;
  title?: string;
  /** What the prompt is for, shown to the user choosing it. */
  description: string;
  /**
   * The arguments: an object schema (zod or JSON Schema) whose properties are strings, as MCP sends prompt
   * arguments. Each property's `description` is published; required properties are required arguments. The host
   * checks the arguments against it before `render` runs.
   * @example z.object({ repo: z.string().max(140).describe("owner/name"), pr_number: z.string().regex(/^\d{1,9}$/) })
   */
  arguments?: A;
  /** Suggestions for arguments, by argument name. */
  complete?: Readonly<Record<string, Completer<Config>>>;
  timeoutMs?: number;
  render: (
    args: A extends SchemaInput ? ParamsOf<A> : Record<string, never>,
    ctx: SkillContext<Config>,
  ) => PromptResult | Promise<PromptResult>;
}

/** A prompt as the host reads it. */
export interface PromptDefinition<Config = unknown> {
  name: string;
  title: string | undefined;
  description: string;
  arguments: SchemaInput | undefined;
  complete: Readonly<Record<string, Completer<Config>>>;
  timeoutMs: number | undefined;
  render: (args: Record<string, unknown>, ctx: SkillContext<Config>) => PromptResult | Promise<PromptResult>;
}

/**
 * Describes a prompt. With a zod `arguments`, `render`'s arguments are typed from it.
 *
 * @example
 * export const issueTemplatePrompt = definePrompt({
 *   name: "issue_template", description: "Draft a well-formed GitHub issue.",
 *   arguments: z.object({ title: z.string().min(1).max(256).describe("the issue's title") }),
 *   render: ({ title }) => `Write a GitHub issue titled “${title}” with steps to reproduce, …`,
 * });
 */
export function definePrompt<A extends SchemaInput | undefined = undefined, Config = unknown>(
  spec: PromptSpec<A, Config>,
): PromptDefinition<Config> {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    arguments: spec.arguments,
    complete: spec.complete ?? {},
    timeoutMs: spec.timeoutMs,
    render: spec.render as PromptDefinition<Config>["render"],
  };
}
