import type { JsonSchema, McpTool, Risk, SkillContext, SkillLogger, TaskSupport } from "@skillport/core";
import type { CallerSlot } from "../credentials/caller-slot.js";
import type { SchemaCompiler } from "../schema/ajv.js";
import type { CallTrace } from "../tracing/tracing.js";
import type { Caller } from "./check-scopes.js";
import type { UriMount } from "./uri-template.js";

/**
 * A tool as this host's tools/list shows it: MCP's tool listing with every field set, both schemas object schemas.
 */
export type ToolListing = Required<Pick<McpTool, "name" | "title" | "description" | "annotations">> & {
  inputSchema: JsonSchema & { type: "object" };
  outputSchema: JsonSchema & { type: "object" };
  /**
   * How a call may run as a task (the Tasks extension, SEP-2663): `optional` or `required`, as the tool declares
   * it. Absent for a tool that never runs as a task.
   */
  execution?: { taskSupport: TaskSupport };
  /**
   * The manifest's discovery hints, as Claude Code reads them: `"anthropic/alwaysLoad": true` (the tool is listed
   * up front) and `"anthropic/searchHint"` (words to find it by). Absent when the manifest gives none.
   */
  _meta?: ToolHints;
};

/** The discovery hints a listing carries (see {@link ToolListing._meta}). */
export interface ToolHints {
  [key: string]: unknown;
  "anthropic/alwaysLoad"?: true;
  "anthropic/searchHint"?: string;
}

/** The `_meta` key that lists a tool up front (under discovery "search": in tools/list). */
export const ALWAYS_LOAD = "anthropic/alwaysLoad";

/** The `_meta` key of the words a tool is found by, beyond its name and description. */
export const SEARCH_HINT = "anthropic/searchHint";

/**
 * What a tool entry comes from, as far as the pipeline needs it: a skill instance or an upstream MCP server. Its
 * limits, `allow` list and names for messages and audit lines.
 */
export interface ToolOwner {
  /** The mcp id, the prefix of its tool names. */
  readonly id: string;
  /** Its position in the manifest's `skills` or `servers`. */
  readonly index: number;
  /** Where the manifest configures it, for messages that say what to change: `skills[0]` or `servers[1]`. */
  readonly where: string;
  /** How messages name it: `skills[0] (@skillport/skill-notes as "notes")`. */
  readonly source: string;
  /** The skill's package, or the name an upstream server gives itself (its `serverInfo`), for list and audit lines. */
  readonly packageName: string;
  /** The installed package version, or the version an upstream server reports in its `serverInfo`. */
  readonly version: string;
  /** Required credentials that were not found, each saying what to set. Non-empty → CREDENTIALS_MISSING. */
  readonly missingCredentials: readonly string[];
  /**
   * The credentials each caller brings (the manifest's `perCaller`): resolved per call, before it runs, into
   * {@link RunCall.credentials}. Empty for most.
   */
  readonly perCaller: readonly CallerSlot[];
  /** Dangerous tools the manifest allows it to run. */
  readonly allow: ReadonlySet<string>;
  readonly concurrency: number;
  readonly queue: number;
}

/**
 * One row of the tool table: what tools/list shows, known at start-up without running anything, and how to get
 * the code that answers a call. A tool of an in-process skill, of a worker- or process-isolated skill, and of an
 * upstream MCP server are kinds of it; the pipeline knows only this interface.
 */
export interface ToolEntry {
  /** The name clients call, `<mcp><separator><tool>` (`notes.search_notes`). */
  readonly fullName: string;
  /** The tool's own name in its skill, before a manifest rename. */
  readonly toolName: string;
  readonly listing: ToolListing;
  /** The risk the tool publishes (from the lock or the skill): for listings and audit lines, never for a decision. */
  readonly risk: Risk;
  /** The manifest entry it comes from: its id, limits, `allow`, credentials. */
  readonly instance: ToolOwner;
  /** Scopes an HTTP caller must hold to call it (manifest `skills[i].scopes`); empty when none. */
  readonly scopes: readonly string[];
  /** The call's time limit: the instance's override, else the tool's own, else the host default. */
  readonly timeoutMs: number;
  /** How the URIs of the instance's resources are served: resource links in results are rewritten with it. */
  readonly mount: UriMount;
  /**
   * The code behind the listing, imported (or started) on the first call and the same object for every call
   * after; rejects with the cause when it cannot be had (the call answers UNAVAILABLE, other entries keep working).
   */
  resolve(): Promise<Runnable>;
  /** What `resolve()` settled with, once it has and for good (a skill's tool; an upstream's may change): read first. */
  readonly resolved?: Runnable | undefined;
}

/** What answers a call: the tool as its code defines it (never as a lock described it), and a way to run it. */
export interface Runnable {
  readonly risk: Risk;
  readonly title: string;
  /** The published input schema: calls are validated against it. */
  readonly inputSchema: JsonSchema;
  /** The schema of the envelope's `data`, when the tool declares one: results are checked against it. */
  readonly outputSchema: JsonSchema | undefined;
  /** Older argument shapes the tool still takes, each with its JSON Schema and how to migrate it. */
  readonly legacy: readonly LegacyShape[];
  /**
   * Compiles its input schemas when the host did not write them (an upstream server's): patterns in linear time
   * (RE2). An upstream's output schema is checked by the client, also with RE2.
   * @default the host's validators
   */
  readonly compiler?: SchemaCompiler;
  /**
   * What these arguments will do: one line (a skill's buildBrief), or lines (a heading, then one line for each
   * argument; see createArgumentBrief); undefined when the tool has no brief (or it throws). The validate stage
   * escapes every invisible character of a line, so only the breaks between lines remain.
   */
  brief(args: Record<string, unknown>): string | readonly string[] | undefined;
  /** Runs the call. Resolves with what the capability returned; rejects with what it threw or the abort reason. */
  run(args: Record<string, unknown>, call: RunCall): Promise<unknown>;
}

/** An older argument shape: its JSON Schema, how to turn it into the current one, and the note that says so. */
interface LegacyShape {
  schema: JsonSchema;
  migrate(old: Record<string, unknown>): Record<string, unknown>;
  note: string;
}

/** What the pipeline gives a call to run with; the entry turns it into the capability's `ctx`. */
export interface RunCall {
  /** Aborted on the client's cancel or the timeout. */
  signal: AbortSignal;
  traceId: string;
  caller: Caller | undefined;
  progress: SkillContext["progress"];
  /** The skill's log lines, already bound to the call and redacted. */
  log: SkillLogger;
  findSecret: SkillContext["findSecret"];
  /** How the capability asks the client for input (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`). */
  input: InputChannel;
  /** The call's trace when it is traced: an upstream request opens its span under the running stage's. */
  trace?: CallTrace | undefined;
  /** The caller's own credentials for its owner's per-caller slots, by credential name (see ToolOwner.perCaller). */
  credentials?: Readonly<Record<string, string>> | undefined;
}

/** What a capability can ask the client for: the user (elicitation), its model (sampling), its roots. */
export type InputFeature = "elicitation" | "sampling" | "roots";

/** One question to the client, as MCP's multi-round-trip requests carry it. */
export type InputRequest =
  | { method: "elicitation/create"; params: { message: string; requestedSchema: JsonSchema } }
  | { method: "sampling/createMessage"; params: Record<string, unknown> }
  | { method: "roots/list"; params: Record<string, never> };

/**
 * How a run asks the client for input. An answer the client already gave (in this round or an earlier one)
 * resolves `ask` at once; otherwise the question is noted, the pipeline ends the run (its signal aborts, and the
 * promise rejects with the abort reason) and answers the client with every question noted, to run again with the
 * answers.
 */
export interface InputChannel {
  supports(feature: InputFeature): boolean;
  /** Resolves with the client's bare answer to `key` (checked: an elicitation's content against its schema). */
  ask(key: string, request: InputRequest): Promise<unknown>;
}
