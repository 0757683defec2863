import type { RegisteredSkill } from "@skillport/core";
import type { SkillSurface } from "./surface.js";
import type { ToolOwner } from "./tool-entry.js";

/** One skill instance from the manifest: where it comes from, how it is configured, and how to load its code. */
export interface SkillInstance extends ToolOwner {
  /** The instance's mcp id, the prefix of its tool names. */
  readonly id: string;
  /** Its position in the manifest's `skills`. */
  readonly index: number;
  /** How messages name it: `skills[0] (@skillport/skill-notes as "notes")`. */
  readonly source: string;
  readonly packageName: string;
  /** The installed package version. */
  readonly version: string;
  /**
   * What the skill publishes (tools, schemas, risks, config schema, credentials): from the lock when the host
   * started from one, else from the imported skill. Listings are built from it; calls never decide on it.
   */
  readonly surface: SkillSurface;
  /** Whether the skill's code is imported in this process yet. */
  readonly loaded: boolean;
  /**
   * The skill's code, imported on first use (once, however many calls wait for it). Rejects with the cause when
   * the import or register() fails, or when the imported skill differs from the lock it started from; only this
   * instance's tools are affected.
   */
  load(): Promise<RegisteredSkill>;
  /** The validated config, defaults filled in and paths resolved. */
  readonly config: unknown;
  /** The module the skill was imported from (an isolate imports it again); undefined for an in-memory module. */
  readonly entryUrl: string | undefined;
  /** This instance's credentials by name, read by the host at start-up. Never shared with another instance. */
  readonly credentials: Readonly<Record<string, string | undefined>>;
  /** Required credentials that were not found, each saying what to set. Non-empty → CREDENTIALS_MISSING. */
  readonly missingCredentials: readonly string[];
  /** Dangerous tools the manifest allows this instance to run. */
  readonly allow: ReadonlySet<string>;
  readonly timeoutMs: number | undefined;
  readonly concurrency: number;
  readonly queue: number;
  /**
   * Where the instance's capabilities run: in the host's process, in worker threads (memory and CPU limits; a
   * thread shares the host's process, environment included), or in child processes (their own environment,
   * sandboxed with bubblewrap where it works).
   */
  readonly isolation: "in-process" | "worker" | "process";
  /** With worker or process isolation: each isolate's heap limit in MiB. */
  readonly memoryMb: number | undefined;
  /**
   * The paths the instance's config names (fields with `format: "path"`), resolved: what a process-isolated
   * instance may read and write besides its own code.
   */
  readonly configPaths: readonly string[];
}

/** How a skill's code is had: already in hand, or imported on the first call (checked against the lock). */
export type SkillLoader = () => Promise<RegisteredSkill>;

/** Makes `load` import once and remember the answer, and `loaded` say whether it has. */
export function memoizedLoad(load: SkillLoader, live: RegisteredSkill | undefined) {
  let loading: Promise<RegisteredSkill> | undefined = live === undefined ? undefined : Promise.resolve(live);
  let loaded = live !== undefined;
  return {
    get loaded() {
      return loaded;
    },
    load(): Promise<RegisteredSkill> {
      loading ??= load().then((skill) => {
        loaded = true;
        return skill;
      });
      return loading;
    },
  };
}
