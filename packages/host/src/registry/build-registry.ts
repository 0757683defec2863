import type { SkillInstance } from "../entries/skill-instance.js";
import { createIsolates } from "../entries/skill-tool.js";
import type { UpstreamClient } from "../entries/upstream-client.js";
import type { UpstreamServer } from "../entries/upstream-server.js";
import type { Logger } from "../logging/logger.js";
import { createLogger } from "../logging/logger.js";
import type { LoadedManifest } from "../manifest/manifest.js";
import { lazyAjv } from "../schema/ajv.js";
import { buildResourceTables } from "./build-resources.js";
import type { LockFile } from "./lock.js";
import type { Problem } from "./problems.js";
import { collect, failOn } from "./problems.js";
import type { Registry } from "./registry.js";
import type { SkillModule } from "./skill-instances.js";
import { docOf, ImportFailure, instanceOf, resolveEntry, useLock } from "./skill-instances.js";
import { conflictOf, skillTools } from "./tool-naming.js";
import { openServers, serverRows, watchServers } from "./upstream-servers.js";

/** A call's time limit when neither the manifest nor the tool sets one. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** Options for {@link buildRegistry}. */
export interface BuildRegistryOptions {
  /**
   * Skill modules already imported, by package name. An entry whose `package` is listed here uses that module
   * instead of resolving and importing the package: for tests and for embedding a host in a program.
   * @default {}
   * @example { "@acme/skill-weather": { register, version: "1.2.0" } }
   */
  modules?: Readonly<Record<string, SkillModule>>;
  /**
   * The lock to start from. When it describes exactly what the manifest resolves to (every enabled entry, at its
   * installed version, hashes intact), no skill is imported: tools/list comes from the lock, and each skill is
   * imported on its first call and checked against it. When it does not, `lockMode` says what happens.
   */
  lock?: LockFile;
  /**
   * "auto": a lock that does not match is reported to `onStaleLock` and every skill is imported now. "frozen": it
   * stops the host (LOCK_STALE) before anything is imported.
   * @default "auto"
   */
  lockMode?: "auto" | "frozen";
  /** Told why the lock does not match, in "auto" mode. */
  onStaleLock?: (problems: readonly string[]) => void;
  /**
   * How to reach the manifest's upstream MCP servers (`servers`): imports `@skillport/client/node`, called only when
   * the manifest has enabled servers, which cannot be built without it.
   */
  client?: UpstreamClient;
  /**
   * Where `${NAME}` in a `servers` entry is read from.
   * @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Where the instances' isolates (worker threads, child processes) log what goes wrong in them.
   * @default a silent logger
   */
  logger?: Logger;
  /**
   * The URL a skill's entry module is imported from, given the URL Node resolved and the package's folder (see
   * HostOptions.importUrl).
   * @default the resolved URL
   */
  importUrl?: (entryUrl: string, packageDir: string) => string;
}

/**
 * Loads every enabled skill of a manifest and builds the namespaced tool table. Every problem (unknown package,
 * version mismatch, invalid config, name conflict) is collected and reported at once; any problem stops the host.
 * Each entry's package is resolved once; whether the lock is used is decided once, for all of them.
 */
export async function buildRegistry(manifest: LoadedManifest, options: BuildRegistryOptions = {}): Promise<Registry> {
  const problems: Problem[] = [];
  const failures: { source: string; message: string }[] = [];
  // Compiled only for an instance with a config schema: a composition of skills without config never loads ajv.
  const ajv = lazyAjv();
  const isolates = createIsolates(options.logger ?? createLogger({ level: "silent" }));
  // Entries resolve side by side (package.json reads); their problems are still reported in manifest order.
  const enabled = [...manifest.skills.entries()].filter(([, entry]) => entry.enabled !== false);
  const resolutions = collect(
    await Promise.allSettled(
      enabled.map(([index, entry]) => resolveEntry(manifest, entry, index, options.modules ?? {}, options.importUrl)),
    ),
    problems,
  );
  // Every entry's problems are reported together: the others are still loaded to find theirs (config, credentials).
  const lock = problems.length === 0 ? useLock(manifest, options, resolutions) : undefined;
  // Imports (when there is no usable lock) also run side by side; a skill that cannot be imported loses only its tools.
  const settled = await Promise.allSettled(
    resolutions.map((resolution) => instanceOf(manifest, resolution, ajv, lock?.get(resolution.index))),
  );
  const instances: SkillInstance[] = [];
  for (const result of settled) {
    if (result.status === "fulfilled") instances.push(result.value);
    else if (result.reason instanceof ImportFailure) {
      failures.push({ source: result.reason.source, message: result.reason.message });
    } else collect([result], problems);
  }

  // The tool table is built from the instances that are fine, so that its problems (unknown tool names, conflicts)
  // are reported with theirs.
  const { tools, listings } = skillTools(manifest, instances, isolates, problems, DEFAULT_TIMEOUT_MS);
  const heads = await Promise.all(instances.map((instance) => docOf(instance, resolutions)));
  const docs = new Map(instances.flatMap((instance, i) => (heads[i] === undefined ? [] : [[instance, heads[i]]])));
  const tables = buildResourceTables(manifest, instances, docs, isolates, problems, DEFAULT_TIMEOUT_MS);
  // Upstream servers' tools come after the skills': a name both offer is a conflict, reported with the others.
  const opened = await openServers(manifest, {
    client: options.client,
    lock: problems.length === 0 ? options.lock : undefined,
    lockMode: options.lockMode,
    env: options.env ?? process.env,
    logger: options.logger,
  });
  problems.push(...opened.problems);
  failures.push(...opened.failures);
  const servers = opened.servers;
  const skillListings = [...listings];
  for (const server of servers) {
    for (const row of serverRows(server, server.tools, manifest, problems)) {
      const taken = tools.get(row.fullName);
      if (taken !== undefined) {
        problems.push({
          code: "TOOL_CONFLICT",
          message: conflictOf(row.fullName, taken, server, row.entry.toolName),
        });
        continue;
      }
      tools.set(row.fullName, row.entry);
      listings.push(row.listing);
    }
  }
  const reserved = discoveryNames(manifest);
  for (const name of reserved) {
    const taken = tools.get(name);
    if (taken === undefined) continue;
    problems.push({
      code: "TOOL_CONFLICT",
      message: `tool "${name}" of ${taken.instance.source} has the name of a discovery tool (discovery "search" serves "${name}" itself); rename the tool in tools.rename, or give the discovery tool another name in discovery.${name === manifest.discovery.searchTool ? "searchTool" : "callTool"}`,
    });
  }
  if (problems.length > 0) await stopServers(servers);
  failOn(problems, manifest);
  const table = watchServers({ manifest, servers, tools, skillListings, listings, reserved, logger: options.logger });
  return {
    instances,
    servers,
    tools,
    get listings() {
      return table.listings();
    },
    subscribe: table.subscribe,
    ...tables,
    failures,
    fromLock: lock !== undefined,
    close: async () => {
      table.close();
      await Promise.all([isolates.close(), stopServers(servers)]);
    },
  };
}

/** The names the discovery tools take in the table's namespace: none unless discovery is "search". */
function discoveryNames(manifest: LoadedManifest): ReadonlySet<string> {
  const { mode, searchTool, callTool } = manifest.discovery;
  return new Set(mode === "search" ? [searchTool, callTool] : []);
}

/** Stops every upstream server (a stdio server's process ends). */
async function stopServers(servers: readonly UpstreamServer[]): Promise<void> {
  await Promise.all(servers.flatMap((server) => [server.handle?.stop(), server.callers.stop()]));
}
