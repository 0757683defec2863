import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { canonicalJson, sortKeys } from "../canonical-json.js";
import { HostError, messageOf } from "../errors.js";
import type { LoadedManifest } from "../manifest/manifest.js";
import type { Registry } from "./registry.js";
import type { SkillSurface } from "./surface.js";

/** The lock's file name, beside the manifest. */
export const LOCK_FILE = "skills.lock.json";

/** skills.lock.json: what `skillport lock` resolved, so a host can start without importing any skill. */
export interface LockFile {
  lockfileVersion: 1;
  instances: LockedInstance[];
}

/** One enabled manifest entry as it was locked. */
export interface LockedInstance {
  /** Its index in the manifest's `skills`. */
  entry: number;
  /** The manifest's `package` or `path`, as written. */
  source: string;
  package: string;
  version: string;
  /** A hash of `skill`, to see a surface change at a glance in review. */
  hash: string;
  skill: SkillSurface;
}

/** Where the lock of a manifest lives. */
export function lockPathOf(manifest: LoadedManifest): string {
  return path.join(manifest.dir, LOCK_FILE);
}

/** The lock of an eagerly built registry (every skill imported). */
export function lockOf(manifest: LoadedManifest, registry: Registry): LockFile {
  return {
    lockfileVersion: 1,
    instances: registry.instances.map((instance) => {
      const entry = manifest.skills[instance.index];
      const skill = instance.surface;
      return {
        entry: instance.index,
        source: entry?.package ?? entry?.path ?? instance.packageName,
        package: instance.packageName,
        version: instance.version,
        hash: hashOf(skill),
        skill,
      };
    }),
  };
}

/** Deterministic JSON: keys sorted at every level, two-space indent, a final newline; diffs well in review. */
export function stringifyLock(lock: LockFile): string {
  return `${JSON.stringify(sortKeys(lock), null, 2)}\n`;
}

export async function writeLock(manifest: LoadedManifest, lock: LockFile): Promise<string> {
  const file = lockPathOf(manifest);
  await writeFile(file, stringifyLock(lock));
  return file;
}

/** The manifest's lock, or undefined when it has none. A lock that is not valid JSON is an error. */
export async function readLock(manifest: LoadedManifest): Promise<LockFile | undefined> {
  const file = lockPathOf(manifest);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const lock = JSON.parse(text) as LockFile;
    if (lock.lockfileVersion !== 1 || !Array.isArray(lock.instances)) throw new Error("not a version 1 lock");
    return lock;
  } catch (error) {
    throw new HostError(
      "LOCK_STALE",
      `[skillport] ${file} cannot be read (${messageOf(error)}); run skillport lock to write it again`,
    );
  }
}

/** Why a lock does not describe what the manifest resolves to now; empty when it is current. */
export function lockProblems(
  lock: LockFile,
  resolved: ReadonlyArray<{ entry: number; source: string; package: string; version: string }>,
): string[] {
  const problems: string[] = [];
  const byEntry = new Map(lock.instances.map((i) => [i.entry, i]));
  for (const now of resolved) {
    const locked = byEntry.get(now.entry);
    if (locked === undefined) problems.push(`skills[${now.entry}] (${now.source}) is not in the lock`);
    else if (locked.source !== now.source || locked.package !== now.package) {
      problems.push(`skills[${now.entry}] was ${locked.source} when locked and is ${now.source} now`);
    } else if (locked.version !== now.version) {
      problems.push(
        `skills[${now.entry}] (${now.package}) was locked at ${locked.version} and ${now.version} is installed`,
      );
    }
    byEntry.delete(now.entry);
  }
  for (const locked of lock.instances) {
    if (typeof locked.skill !== "object" || locked.skill === null || hashOf(locked.skill) !== locked.hash) {
      problems.push(
        `skills[${locked.entry}] (${locked.source}): its locked tools do not match their hash; the lock was edited by hand`,
      );
    }
  }
  for (const gone of byEntry.values()) {
    problems.push(`skills[${gone.entry}] (${gone.source}) is locked but no longer enabled in the manifest`);
  }
  return problems;
}

/** A stable hash of a skill surface. */
export function hashOf(surface: SkillSurface): string {
  return `sha256-${createHash("sha256").update(canonicalJson(surface)).digest("base64url")}`;
}

// --- internal ---

/** Why `--frozen-lock` refuses to start. */
export function frozenLockError(problems: readonly string[]): HostError {
  return new HostError(
    "LOCK_STALE",
    `[skillport] cannot start with --frozen-lock: ${LOCK_FILE} does not match the manifest; run skillport lock and commit it:`,
    problems,
  );
}
