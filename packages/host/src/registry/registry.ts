import type { JsonSchema, RegisteredSkill, RegisteredTool, ToolAnnotations } from "@skillport/core";
import type { ValidateFunction } from "ajv";

/** One skill instance from the manifest, loaded and configured. */
export interface SkillInstance {
  /** The instance's mcp id, the prefix of its tool names. */
  id: string;
  /** Its position in the manifest's `skills`. */
  index: number;
  /** How messages name it: `skills[0] (@skillport/skill-notes as "notes")`. */
  source: string;
  packageName: string;
  /** The installed package version. */
  version: string;
  /** The skill; until `loaded`, its published surface from the lock, with code that refuses to run. */
  skill: RegisteredSkill;
  /** False while the instance was started from the lock and not imported yet. */
  loaded: boolean;
  /**
   * Imports the skill on first use (once, however many calls wait for it) and swaps in its real tools.
   * Rejects with the cause when the import or register() fails; only this instance's tools are affected.
   */
  load(): Promise<RegisteredSkill>;
  /** The validated config, defaults filled in and paths resolved. */
  config: unknown;
  /** The module the skill was imported from (a worker imports it again); undefined for an in-memory module. */
  entryUrl: string | undefined;
  /** This instance's credentials by name, read by the host at start-up. Never shared with another instance. */
  credentials: Readonly<Record<string, string | undefined>>;
  /** Required credentials that were not found, each saying what to set. Non-empty → CREDENTIALS_MISSING. */
  missingCredentials: readonly string[];
  /** Dangerous tools the manifest allows this instance to run. */
  allow: ReadonlySet<string>;
  timeoutMs: number | undefined;
  concurrency: number;
  queue: number;
  /**
   * Where the instance's capabilities run: in the host's process, in worker threads (memory and CPU limits; a
   * thread shares the host's process, environment included), or in child processes (their own environment,
   * sandboxed with bubblewrap where it works).
   */
  isolation: "in-process" | "worker" | "process";
  /** With worker or process isolation: each isolate's heap limit in MiB. */
  memoryMb: number | undefined;
  /**
   * The paths the instance's config names (fields with `format: "path"`), resolved: what a process-isolated
   * instance may read and write besides its own code.
   */
  configPaths: readonly string[];
}

/** A tool as tools/list shows it. */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  outputSchema: JsonSchema & { type: "object" };
  annotations: ToolAnnotations;
}

/** One row of the dispatch table: everything a call needs, prepared once. */
export interface ToolEntry {
  fullName: string;
  instance: SkillInstance;
  /** The tool as its skill defines it (before a manifest rename); replaced by the real one when the skill loads. */
  tool: RegisteredTool;
  listing: ToolListing;
  /** Scopes an HTTP caller must hold to call it (manifest `skills[i].scopes`); empty when none. */
  scopes: readonly string[];
  /** Compiled on the first call, then reused. */
  validate: ValidateFunction | undefined;
  /** The tool's legacy inputs, compiled on the first call that needs them. */
  legacyValidators: ValidateFunction[] | undefined;
  /** The call's time limit: the instance's override, else the tool's own, else the host default. */
  timeoutMs: number;
}

/** The namespaced tool table of a manifest. */
export interface Registry {
  instances: readonly SkillInstance[];
  /** Full name → entry; the per-call lookup. */
  tools: ReadonlyMap<string, ToolEntry>;
  /** The tools/list answer, in manifest order, built once. */
  listings: readonly ToolListing[];
  /** Enabled instances whose skill could not be imported; their tools are not served. */
  failures: readonly { source: string; message: string }[];
  /** True when the registry was built from the lock, without importing any skill. */
  fromLock: boolean;
}
