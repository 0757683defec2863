import type { z } from "zod";
import type { SkillContext } from "./context.js";
import type { ToolResult } from "./result.js";
import type { Risk, ToolAnnotations } from "./risk.js";
import type { SchemaInput } from "./schema.js";

/** The parameters `run` receives: zod's output type (defaults applied), or a plain object for JSON Schema input. */
export type ParamsOf<I> = I extends z.ZodType ? z.output<I> : Record<string, unknown>;

/** The data a tool returns: typed from a zod output schema, else anything. */
export type DataOf<O> = O extends z.ZodType ? z.output<O> : unknown;

/** A capability: plain params in, plain data (or a {@link ToolResult}) out. */
export type Capability<P, D, Config> = (
  params: P,
  ctx: SkillContext<Config>,
) => D | ToolResult<D> | Promise<D | ToolResult<D>>;

/** What an author writes for one tool. */
export interface ToolSpec<I extends SchemaInput, O extends SchemaInput | undefined, Config> {
  /** `<verb>_<object>`, stable: renaming a tool is a breaking change. @example "search_notes" */
  name: string;
  /** Short title for people. @example "Search notes" */
  title: string;
  /** What the tool does and when to use it, for the model. */
  description: string;
  /** The arguments: a zod v4 object schema or a JSON Schema object. */
  input: I;
  /** The shape of `data` in the envelope; advertised inside the tool's outputSchema. */
  output?: O;
  /** read_only | write | dangerous, mapped to MCP annotations. */
  risk: Risk;
  /** Hints added to the risk's annotations (idempotentHint, openWorldHint). */
  annotations?: Omit<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "title">;
  /** One line saying what this call will do, for confirmation and audit. Pure: no I/O, no throw. */
  buildBrief?: (params: ParamsOf<I>) => string;
  /** Example arguments, valid against `input`. */
  examples?: ParamsOf<I>[];
  /**
   * How long a call may run before its signal aborts and it answers TIMEOUT. The manifest may override it
   * per instance.
   * @default 30000 (the host's default)
   */
  timeoutMs?: number;
  /**
   * Earlier shapes of `input` still accepted: a call that fails `input` but matches a legacy input is migrated
   * and runs, with `note` as a warning in the envelope.
   * @example [{ input: z.object({ query: z.string() }), migrate: (old) => ({ keyword: old.query }), note: "\"query\" is now \"keyword\"" }]
   */
  legacy?: readonly LegacyInput[];
  /**
   * Whether a call may run as a task (the MCP Tasks extension, SEP-2663): the host answers at once with a task
   * the client polls, and the run goes on after the request ends. `"optional"`: a task when the client declared
   * the extension, else a plain call; `"required"`: a client that did not declare it is refused (-32021). For
   * tools that may run for minutes (a build, a long search, a report): give them a `timeoutMs` that fits, which
   * still bounds the run. The capability is the same either way; `ctx.signal` aborts when the client cancels the task.
   * @default undefined (never a task)
   * @example task: "optional"
   */
  task?: TaskSupport;
  run: Capability<ParamsOf<I>, DataOf<O>, Config>;
}

/** How a tool runs as a task: see {@link ToolSpec.task}. */
export type TaskSupport = "optional" | "required";

/** An earlier input shape of a tool and how to turn a call in that shape into the current one. */
export interface LegacyInput {
  /** The old input schema (zod v4 or JSON Schema). */
  input: SchemaInput;
  /** Turns old arguments into current ones; the result is validated against the current input. Pure. */
  migrate(old: Record<string, unknown>): Record<string, unknown>;
  /** Said to the caller as a warning, e.g. what to send instead. */
  note: string;
}

/** A tool as the host reads it. */
export interface ToolDefinition<Config = unknown> {
  name: string;
  title: string;
  description: string;
  input: SchemaInput;
  output: SchemaInput | undefined;
  risk: Risk;
  annotations: Omit<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "title">;
  buildBrief: ((params: Record<string, unknown>) => string) | undefined;
  examples: Record<string, unknown>[];
  timeoutMs: number | undefined;
  legacy: readonly LegacyInput[];
  task: TaskSupport | undefined;
  run: Capability<Record<string, unknown>, unknown, Config>;
}

/**
 * Describes one tool over a capability. With a zod input, `run`'s params are typed from it.
 *
 * @example
 * export const searchNotesTool = defineTool({
 *   name: "search_notes", title: "Search notes", description: "Search allowed notes by keyword.",
 *   input: z.object({ keyword: z.string().min(2) }), risk: "read_only",
 *   run: searchNotes,
 * });
 */
export function defineTool<I extends SchemaInput, O extends SchemaInput | undefined = undefined, Config = unknown>(
  spec: ToolSpec<I, O, Config>,
): ToolDefinition<Config> {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: spec.input,
    output: spec.output,
    risk: spec.risk,
    annotations: spec.annotations ?? {},
    buildBrief: spec.buildBrief as ToolDefinition["buildBrief"],
    examples: (spec.examples ?? []) as Record<string, unknown>[],
    timeoutMs: spec.timeoutMs,
    legacy: spec.legacy ?? [],
    task: spec.task,
    run: spec.run as ToolDefinition<Config>["run"],
  };
}
