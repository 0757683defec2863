import path from "node:path";
import type { RegisteredSkill, RegisterSkill } from "@skillport/core";
import { importSkill, registerOf } from "../entries/register-of.js";
import type { SkillInstance } from "../entries/skill-instance.js";
import { memoizedLoad } from "../entries/skill-instance.js";
import { surfaceOf } from "../entries/surface.js";
import { HostError } from "../errors/host-error.js";
import { SKILL_DEFAULTS } from "../manifest/defaults.js";
import type { LoadedManifest, SkillEntry } from "../manifest/manifest.js";
import type { SchemaCompiler } from "../schema/ajv.js";
import type { InstanceDoc } from "./build-resources.js";
import { attempt, checkAllow, checkVersion, resolveCredentials } from "./instance-checks.js";
import { instanceConfig } from "./instance-config.js";
import type { LockedInstance, LockFile } from "./lock.js";
import { frozenLockError, hashOf, lockCommand, lockPathOf, lockProblems } from "./lock.js";
import { ownValue } from "./own-value.js";
import { problemsOf } from "./problems.js";
import { resolveSkill } from "./resolve-skill.js";
import { readSkillHead } from "./skill-docs.js";

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

/** An enabled manifest entry, its package found: what the lock is compared with, and how to get its skill. */
export interface Resolution {
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

/** Finds an enabled entry's package (or its module given in memory) and checks its version range. */
export async function resolveEntry(
  manifest: LoadedManifest,
  entry: SkillEntry,
  index: number,
  modules: Readonly<Record<string, SkillModule>>,
  importUrl?: (entryUrl: string, packageDir: string) => string,
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
  const resolved = await resolveSkill(entry, manifest.file, where);
  const { packageName, version, packageDir } = resolved;
  await checkVersion(entry, where, packageName, version);
  const entryUrl = importUrl === undefined ? resolved.entryUrl : importUrl(resolved.entryUrl, packageDir);
  return { index, entry, where, source, packageName, version, entryUrl, packageDir, live: undefined };
}

/** The lock's instances by entry, when the lock is used; undefined when every skill is imported now. */
export function useLock(
  manifest: LoadedManifest,
  options: {
    lock?: LockFile | undefined;
    lockMode?: "auto" | "frozen" | undefined;
    onStaleLock?: ((problems: readonly string[]) => void) | undefined;
  },
  resolutions: readonly Resolution[],
): Map<number, LockedInstance> | undefined {
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

/**
 * The instance of an entry: its skill imported (or its surface taken from the lock, the skill imported on its first
 * call and checked against it), its config, credentials, allow list and isolation checked, every problem at once.
 */
export async function instanceOf(
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
  const { credentials, missing, perCaller } = await resolveCredentials(
    surface,
    entry,
    where,
    manifest.dir,
    problems,
    id,
  );
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
    perCaller,
    allow: new Set(entry.allow ?? []),
    timeoutMs: entry.timeoutMs,
    concurrency: entry.concurrency ?? SKILL_DEFAULTS.concurrency,
    queue: entry.queue ?? SKILL_DEFAULTS.queue,
    isolation: entry.isolation ?? SKILL_DEFAULTS.isolation,
    memoryMb: entry.memoryMb,
    configPaths,
  };
}

/** The instance's SKILL.md name and description, when its package folder has one. */
export async function docOf(
  instance: SkillInstance,
  resolutions: readonly Resolution[],
): Promise<InstanceDoc | undefined> {
  const dir = resolutions.find((r) => r.index === instance.index)?.packageDir;
  if (dir === undefined) return undefined;
  const head = await readSkillHead(dir);
  return head === undefined ? undefined : { ...head, dir };
}

/** An enabled skill whose module could not be imported or registered: only its own tools are lost. */
export class ImportFailure extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(message);
  }
}
