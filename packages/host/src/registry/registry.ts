import type {
  PromptEntry,
  PromptListing,
  ResourceEntry,
  ResourceListing,
  ResourceTemplateListing,
} from "../entries/resource-entry.js";
import type { SkillInstance } from "../entries/skill-instance.js";
import type { ToolEntry, ToolListing } from "../entries/tool-entry.js";
import type { UpstreamServer } from "../entries/upstream-server.js";
import type { TemplateIndex } from "./build-resources.js";
import type { ScopeGap } from "./scope-keys.js";
import type { SkillDoc } from "./skill-docs.js";

export type { SkillInstance } from "../entries/skill-instance.js";
export type { ToolEntry, ToolListing } from "../entries/tool-entry.js";

/** The namespaced table of a manifest: tools, resources and their templates, prompts, and SKILL.md documents. */
export interface Registry {
  instances: readonly SkillInstance[];
  /** The enabled upstream MCP servers (manifest `servers`) whose tools are served. */
  servers: readonly UpstreamServer[];
  /** Full name → entry; the per-call lookup. */
  tools: ReadonlyMap<string, ToolEntry>;
  /**
   * The tools/list answer, in manifest order: built once, and again when an upstream server's tools change at run
   * time (`subscribe` says when).
   */
  readonly listings: readonly ToolListing[];
  /**
   * Calls `listener` after the table changed at run time (an upstream server announced new tools); returns the
   * function that unsubscribes.
   */
  subscribe(listener: () => void): () => void;
  /** Served URI → resource with a fixed URI. */
  resources: ReadonlyMap<string, ResourceEntry>;
  /** The resource templates, found by URI. */
  templates: TemplateIndex;
  /** Full name → prompt. */
  prompts: ReadonlyMap<string, PromptEntry>;
  /** The fixed resources resources/list shows, in manifest order. */
  resourceListings: readonly ResourceListing[];
  templateListings: readonly ResourceTemplateListing[];
  promptListings: readonly PromptListing[];
  /** Each instance's SKILL.md, for the Skills extension. */
  skillDocs: readonly SkillDoc[];
  /**
   * Instances whose resources or prompts are refused to every caller over HTTP: their tools are scoped one by one
   * and their `scopes` has no `"resources:*"` (or `"prompts:*"`) key. `skillport check` reports them.
   */
  scopeGaps: readonly ScopeGap[];
  /** Enabled instances whose skill could not be imported; their tools are not served. */
  failures: readonly { source: string; message: string }[];
  /** True when the registry was built from the lock, without importing any skill. */
  fromLock: boolean;
  /** Stops the instances' isolates (worker threads, child processes) and the upstream servers. */
  close(): Promise<void>;
}
