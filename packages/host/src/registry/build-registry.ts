import path from "node:path";
import type { RegisteredSkill, RegisterSkill } from "@skillport/core";
import { envelopeSchema } from "@skillport/core";
import type { SchemaCompiler } from "../ajv.js";
import { lazyAjv } from "../ajv.js";
import { importSkill, registerOf } from "../entries/register-of.js";
import type { SkillInstance } from "../entries/skill-instance.js";
import { memoizedLoad } from "../entries/skill-instance.js";
import { createIsolates, skillToolEntry } from "../entries/skill-tool.js";
import type { ToolEntry, ToolListing } from "../entries/tool-entry.js";
import type { UpstreamClient, UpstreamServer } from "../entries/upstream-server.js";
import type { HostErrorCode } from "../errors.js";
import { HostError } from "../errors.js";
import type { Logger } from "../log.js";
import { createLogger } from "../log.js";
import { SKILL_DEFAULTS } from "../manifest/defaults.js";
import type { LoadedManifest, SkillEntry } from "../manifest/manifest.js";
import type { InstanceDoc } from "./build-resources.js";
import { buildResourceTables } from "./build-resources.js";
import { instanceConfig } from "./instance-config.js";
import type { LockedInstance, LockFile } from "./lock.js";
import { frozenLockError, hashOf, lockCommand, lockPathOf, lockProblems } from "./lock.js";
import { readSecret } from "./read-secret.js";
import type { Registry } from "./registry.js";
import { resolveSkill } from "./resolve-skill.js";
import { isReservedKey, PROMPTS_KEY, RESOURCES_KEY, scopedTools } from "./scope-keys.js";
import { readSkillHead } from "./skill-docs.js";
import type { SkillSurface, ToolSurface } from "./surface.js";
import { surfaceOf } from "./surface.js";
import { openServers, serverRows, watchServers } from "./upstream-servers.js";
import { instanceMount } from "./uri-template.js";

export const FULL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** A call's time limit when neither the manifest nor the tool sets one. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** A skill module already in memory, standing in for an installed package. */
export interface SkillModule {
  /** What the package would export as `register`. */
  register: RegisterSkill;
  /**
   * The version the package would have; checked against the entry's `version` range.
   * @default the skill's own `version`, else "0.0.0"
   */
  version?: string;
  /**
   * The package folder the module stands for: where its SKILL.md (and the files beside it) are read from.
   * @default none: the instance serves no SKILL.md
   */
  dir?: string;
}

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
      enabled.map(([index, entry]) => resolveEntry(manifest, entry, index, options.modules ?? {})),
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
  const tools = new Map<string, ToolEntry>();
  const listings: ToolListing[] = [];
  for (const instance of instances) {
    const entry = manifest.skills[instance.index] as SkillEntry;
    const mount = instanceMount(instance.id, entry.prefix !== false, instance.surface);
    for (const tool of selectTools(instance, entry, problems)) {
      const name = ownValue(entry.tools?.rename, tool.name) ?? tool.name;
      const fullName = entry.prefix === false ? name : `${instance.id}${manifest.separator}${name}`;
      if (!FULL_NAME.test(fullName)) {
        problems.push({
          code: "SKILL_INVALID",
          message: `${instance.source}: the full tool name "${fullName}" is invalid for MCP (letters, digits, ".", "_", "-", at most 128); choose a shorter "mcp" id`,
        });
        continue;
      }
      const taken = tools.get(fullName);
      if (taken !== undefined) {
        problems.push({
          code: "TOOL_CONFLICT",
          message: `tool "${fullName}" is defined by both ${describeTool(taken.instance, taken.toolName)} and ${describeTool(instance, tool.name)}; give one of them another "mcp" id, or rename one in tools.rename`,
        });
        continue;
      }
      const override = ownValue(entry.tools?.override, tool.name) ?? {};
      const title = override.title ?? tool.title;
      const listing: ToolListing = {
        name: fullName,
        title,
        description: override.description ?? tool.description,
        inputSchema: advertisedInput(tool, manifest.confirmation.fallback),
        outputSchema: envelopeSchema(tool.outputSchema) as ToolListing["outputSchema"],
        annotations: { title, ...tool.mcpAnnotations, ...override.annotations },
      };
      const init = {
        fullName,
        toolName: tool.name,
        listing,
        risk: tool.risk,
        scopes: toolScopes(entry, tool.name),
        timeoutMs: instance.timeoutMs ?? tool.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        mount,
      };
      tools.set(fullName, skillToolEntry(instance, init, isolates));
      listings.push(listing);
    }
  }
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
          message: `tool "${row.fullName}" is defined by both ${describeTool(taken.instance, taken.toolName)} and ${describeTool(server, row.entry.toolName)}; give one of them another "mcp" id, or rename one in tools.rename`,
        });
        continue;
      }
      tools.set(row.fullName, row.entry);
      listings.push(row.listing);
    }
  }
  if (problems.length > 0) await stopServers(servers);
  failOn(problems, manifest);
  const table = watchServers({ manifest, servers, tools, skillListings, listings, logger: options.logger });
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

/** Stops every upstream server (a stdio server's process ends). */
async function stopServers(servers: readonly UpstreamServer[]): Promise<void> {
  await Promise.all(servers.map((server) => server.handle?.stop()));
}

/** The instance's SKILL.md name and description, when its package folder has one. */
async function docOf(instance: SkillInstance, resolutions: readonly Resolution[]): Promise<InstanceDoc | undefined> {
  const dir = resolutions.find((r) => r.index === instance.index)?.packageDir;
  if (dir === undefined) return undefined;
  const head = await readSkillHead(dir);
  return head === undefined ? undefined : { ...head, dir };
}

/** Names a tool and where it comes from: `skills[0] (@skillport/skill-notes as "notes")` or with its own name. */
function describeTool(instance: { source: string }, tool: string): string {
  return `${instance.source.replace(/\)$/, "")}, tool ${tool})`;
}

/** An enabled skill whose module could not be imported or registered: only its own tools are lost. */
class ImportFailure extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(message);
  }
}

// --- internal ---

interface Problem {
  code: HostErrorCode;
  message: string;
}

/** The problems of settled results (HostErrors), and the values of the fulfilled ones. */
function collect<T>(results: readonly PromiseSettledResult<T>[], problems: Problem[]): T[] {
  const values: T[] = [];
  for (const result of results) {
    if (result.status === "fulfilled") {
      values.push(result.value);
      continue;
    }
    const error: unknown = result.reason;
    if (!(error instanceof HostError)) throw error;
    problems.push(...problemsOf(error).map((message) => ({ code: error.code, message })));
  }
  return values;
}

/** A HostError's problems, or its message when it lists none; without the "[skillport]" each message starts with. */
function problemsOf(error: HostError): string[] {
  return (error.problems.length > 0 ? error.problems : [error.message]).map((m) => m.replace(/^\[skillport\] /, ""));
}

function failOn(problems: Problem[], manifest: LoadedManifest): void {
  if (problems.length === 0) return;
  const first = problems[0] as Problem;
  const noun = problems.length === 1 ? "problem" : "problems";
  throw new HostError(
    first.code,
    `[skillport] cannot start: ${problems.length} ${noun} in ${manifest.file}:`,
    problems.map((p) => p.message),
  );
}

/** An enabled manifest entry, its package found: what the lock is compared with, and how to get its skill. */
interface Resolution {
  index: number;
  entry: SkillEntry;
  where: string;
  /** The manifest's `package` or `path`, as written. */
  source: string;
  packageName: string;
  version: string;
  entryUrl: string | undefined;
  /** The package's folder, when known: where its SKILL.md is read from. */
  packageDir: string | undefined;
  /** The skill, when it was given in memory. */
  live: RegisteredSkill | undefined;
}

async function resolveEntry(
  manifest: LoadedManifest,
  entry: SkillEntry,
  index: number,
  modules: Readonly<Record<string, SkillModule>>,
): Promise<Resolution> {
  const where = `skills[${index}]`;
  const source = entry.package ?? entry.path ?? "";
  const preloaded = entry.package === undefined ? undefined : ownValue(modules, entry.package);
  if (preloaded !== undefined) {
    const packageName = entry.package as string;
    const live = registerOf(preloaded, `${where} (${packageName})`);
    const version = preloaded.version ?? live.version ?? "0.0.0";
    await checkVersion(entry, where, packageName, version);
    const packageDir = preloaded.dir;
    return { index, entry, where, source, packageName, version, entryUrl: undefined, packageDir, live };
  }
  const { packageName, version, entryUrl, packageDir } = await resolveSkill(entry, manifest.file, where);
  await checkVersion(entry, where, packageName, version);
  return { index, entry, where, source, packageName, version, entryUrl, packageDir, live: undefined };
}

/** The lock's instances by entry, when the lock is used; undefined when every skill is imported now. */
function useLock(manifest: LoadedManifest, options: BuildRegistryOptions, resolutions: readonly Resolution[]) {
  const lock = options.lock;
  if (lock === undefined) return undefined;
  const problems = lockProblems(
    lock,
    resolutions.map((r) => ({ entry: r.index, source: r.source, package: r.packageName, version: r.version })),
  );
  if (problems.length === 0) return new Map(lock.instances.map((i) => [i.entry, i]));
  if (options.lockMode === "frozen") throw frozenLockError(manifest, problems);
  options.onStaleLock?.(problems);
  return undefined;
}

async function instanceOf(
  manifest: LoadedManifest,
  resolution: Resolution,
  ajv: SchemaCompiler,
  locked: LockedInstance | undefined,
): Promise<SkillInstance> {
  const { entry, where, packageName, version, entryUrl } = resolution;
  let live = resolution.live;
  if (live === undefined && locked === undefined) {
    try {
      live = await importSkill(entryUrl as string, `${where} (${packageName})`);
    } catch (error) {
      if (!(error instanceof HostError)) throw error;
      throw new ImportFailure(`${where} (${packageName})`, error.message);
    }
  }
  const surface = live === undefined ? (locked as LockedInstance).skill : surfaceOf(live);
  // What runs must be what the lock promised (risk, schemas, annotations): a surface that differs — a changed
  // package, or a lock edited by hand to call a dangerous tool harmless — refuses the instance.
  const loader = memoizedLoad(async () => {
    const skill = await importSkill(entryUrl as string, `${where} (${packageName})`);
    if (hashOf(surfaceOf(skill)) !== locked?.hash) {
      throw new HostError(
        "LOCK_STALE",
        `[skillport] ${where} (${packageName}): its tools differ from ${path.basename(lockPathOf(manifest))}; run ${lockCommand(manifest)} and review the change`,
      );
    }
    return skill;
  }, live);
  const id = entry.mcp ?? surface.name;
  const source = `${where} (${packageName} as "${id}")`;
  // Every problem of the entry at once: its config, its credentials, its allow list and its isolation.
  const problems: HostError[] = [];
  const built = attempt(problems, () =>
    instanceConfig(surface, entry.config, { dir: manifest.dir, where: `${where}.config`, ajv }),
  );
  const config = built?.config;
  const configPaths = built?.paths ?? [];
  const { credentials, missing } = await resolveCredentials(surface, entry, where, manifest.dir, problems);
  checkAllow(surface, entry, where, problems);
  if ((entry.isolation === "worker" || entry.isolation === "process") && entryUrl === undefined) {
    problems.push(
      new HostError(
        "CONFIG_INVALID",
        `${where}.isolation: a skill given in memory cannot run in a ${entry.isolation === "worker" ? "worker" : "child process"}; install it as a package or use "in-process"`,
      ),
    );
  }
  const [first] = problems;
  if (first !== undefined) throw new HostError(first.code, `${where}:`, problems.flatMap(problemsOf));
  return {
    id,
    index: resolution.index,
    where,
    source,
    packageName,
    version,
    surface,
    get loaded() {
      return loader.loaded;
    },
    load: () => loader.load(),
    config,
    entryUrl,
    credentials,
    missingCredentials: missing,
    allow: new Set(entry.allow ?? []),
    timeoutMs: entry.timeoutMs,
    concurrency: entry.concurrency ?? SKILL_DEFAULTS.concurrency,
    queue: entry.queue ?? SKILL_DEFAULTS.queue,
    isolation: entry.isolation ?? SKILL_DEFAULTS.isolation,
    memoryMb: entry.memoryMb,
    configPaths,
  };
}

/**
 * Reads each credential the manifest names for this instance. A declared credential the manifest does not
 * name, or whose variable or file is empty, is missing; a missing required one makes the instance's tools
 * answer CREDENTIALS_MISSING while the rest of the server works.
 */
async function resolveCredentials(
  skill: SkillSurface,
  entry: SkillEntry,
  where: string,
  manifestDir: string,
  problems: HostError[],
) {
  const declared = skill.credentials;
  const credentials: Record<string, string | undefined> = {};
  const missing: string[] = [];
  for (const name of Object.keys(entry.credentials ?? {})) {
    if (!Object.hasOwn(declared, name)) {
      const known = Object.keys(declared);
      problems.push(
        new HostError(
          "CONFIG_INVALID",
          `${where}.credentials.${name}: skill "${skill.name}" declares no credential "${name}"; ${known.length === 0 ? "it needs none, remove it" : `it declares ${known.join(", ")}`}`,
        ),
      );
    }
  }
  for (const [name, spec] of Object.entries(declared)) {
    const source = ownValue(entry.credentials, name);
    if (source === undefined) {
      credentials[name] = undefined;
      if (spec.required) {
        missing.push(
          `credential "${name}" (${spec.description}) is not configured; set ${where}.credentials.${name} to { "env": "NAME" } or { "file": "path" }`,
        );
      }
      continue;
    }
    const reading = await readSecret(source, manifestDir);
    credentials[name] = reading.value;
    if (reading.value === undefined && spec.required) {
      missing.push(`credential "${name}" is missing: set ${reading.where} (${where}.credentials.${name})`);
    }
  }
  return { credentials, missing };
}

/** What `check` returns, or undefined when it throws a HostError, which joins `problems`. */
function attempt<T>(problems: HostError[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof HostError)) throw error;
    problems.push(error);
    return undefined;
  }
}

function checkAllow(skill: SkillSurface, entry: SkillEntry, where: string, problems: HostError[]): void {
  const dangerous = skill.tools.filter((t) => t.risk === "dangerous").map((t) => t.name);
  for (const name of entry.allow ?? []) {
    if (!dangerous.includes(name)) {
      problems.push(
        new HostError(
          "CONFIG_INVALID",
          `${where}.allow: "${name}" is not a dangerous tool of skill "${skill.name}"; ${dangerous.length === 0 ? "it has none, remove allow" : `its dangerous tools are ${dangerous.join(", ")}`}`,
        ),
      );
    }
  }
}

/** The entry's version range against the installed version; semver loads only for a manifest that uses one. */
async function checkVersion(entry: SkillEntry, where: string, packageName: string, version: string): Promise<void> {
  if (entry.version === undefined) return;
  const { default: semver } = await import("semver");
  if (semver.validRange(entry.version) === null) {
    throw new HostError(
      "MANIFEST_INVALID",
      `[skillport] ${where}.version: "${entry.version}" is not a semver range (e.g. "^0.1.0")`,
    );
  }
  if (!semver.satisfies(version, entry.version, { includePrerelease: true })) {
    throw new HostError(
      "VERSION_MISMATCH",
      `[skillport] ${where}.version: the manifest asks for ${packageName}@${entry.version} but ${version} is installed; install a matching version or change the range`,
    );
  }
}

/** Where the manifest takes operation ids, a dangerous tool advertises the host's confirmation argument. */
export function advertisedInput(
  tool: Pick<ToolSurface, "risk" | "inputSchema">,
  fallback: LoadedManifest["confirmation"]["fallback"],
) {
  const schema = tool.inputSchema as ToolListing["inputSchema"];
  if (tool.risk !== "dangerous" || fallback !== "operation-id") return schema;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return {
    ...schema,
    properties: {
      ...properties,
      _confirm: {
        type: "string",
        minLength: 1,
        maxLength: 2048,
        description:
          "Leave out on the first call. If the answer is CONFIRMATION_REQUIRED, ask the user; to go ahead, repeat the exact same call with this set to error.operationId.",
      },
    },
  };
}

function selectTools(instance: SkillInstance, entry: SkillEntry, problems: Problem[]) {
  const { include, exclude } = entry.tools ?? {};
  const names = new Set(instance.surface.tools.map((t) => t.name));
  const scoped = scopedTools(entry.scopes);
  for (const key of Object.keys(entry.scopes ?? {})) {
    if (isReservedKey(key) && key !== RESOURCES_KEY && key !== PROMPTS_KEY) {
      problems.push({
        code: "MANIFEST_INVALID",
        message: `skills[${instance.index}].scopes: "${key}" is no key the host knows; a key with ":" is "${RESOURCES_KEY}" (the instance's resources and templates) or "${PROMPTS_KEY}" (its prompts), and every other key is a tool name`,
      });
    }
  }
  for (const [field, list] of [
    ["include", include],
    ["exclude", exclude],
    ["rename", Object.keys(entry.tools?.rename ?? {})],
    ["override", Object.keys(entry.tools?.override ?? {})],
    ["scopes", scoped],
  ] as const) {
    for (const name of list ?? []) {
      if (!names.has(name)) {
        problems.push({
          code: "MANIFEST_INVALID",
          message: `skills[${instance.index}].${field === "scopes" ? "" : "tools."}${field}: skill "${instance.surface.name}" has no tool "${name}"; its tools are ${[...names].join(", ")}`,
        });
      }
    }
  }
  return instance.surface.tools.filter(
    (t) => (include === undefined || include.includes(t.name)) && !(exclude ?? []).includes(t.name),
  );
}

/** The scopes a tool requires: those given for every tool ("*") and those given for it by name. */
export function toolScopes(entry: Pick<SkillEntry, "scopes">, tool: string): readonly string[] {
  const scopes = entry.scopes;
  if (scopes === undefined) return [];
  return [...new Set([...(ownValue(scopes, "*") ?? []), ...(ownValue(scopes, tool) ?? [])])];
}

/**
 * `map[name]` for names read from a manifest or a skill: only the map's own entries count, never what every object
 * inherits (`toString`, `constructor`, `__proto__`), which would otherwise pass for a credential, tool or module.
 */
export function ownValue<T>(map: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return map !== undefined && Object.hasOwn(map, name) ? map[name] : undefined;
}
