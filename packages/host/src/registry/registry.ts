import type { SkillInstance } from "../entries/skill-instance.js";
import type { ToolEntry, ToolListing } from "../entries/tool-entry.js";
import type { UpstreamServer } from "../entries/upstream-server.js";

export type { SkillInstance } from "../entries/skill-instance.js";
export type { ToolEntry, ToolListing } from "../entries/tool-entry.js";

/** The namespaced tool table of a manifest. */
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
  /** Enabled instances whose skill could not be imported; their tools are not served. */
  failures: readonly { source: string; message: string }[];
  /** True when the registry was built from the lock, without importing any skill. */
  fromLock: boolean;
  /** Stops the instances' isolates (worker threads, child processes) and the upstream servers. */
  close(): Promise<void>;
}
