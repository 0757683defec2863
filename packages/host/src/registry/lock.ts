import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { SkillSurface } from "../entries/surface.js";
import type { UpstreamTool } from "../entries/upstream-client.js";
import { HostError, messageOf } from "../errors/host-error.js";
import { canonicalJson, sortKeys } from "../json/canonical-json.js";
import { formatJson } from "../json/format-json.js";
import type { LoadedManifest, ServerEntry } from "../manifest/manifest.js";

/**
 * A manifest's lock: what `skillport lock` resolved, so a host can start without importing any skill. Each manifest
 * has its own, beside it (see {@link lockPathOf}).
 */
export interface LockFile {
  lockfileVersion: 1;
  /**
   * The file name of the manifest this lock belongs to, beside it. A lock that names another manifest is neither read
   * nor overwritten for this one. Locks written before it was recorded have none and belong to the manifest whose
   * lock path they are at.
   */
  manifest?: string;
  instances: LockedInstance[];
  /** The upstream MCP servers' catalogs, so tools/list answers without starting them. */
  servers?: LockedServer[];
}

/** One enabled `servers` entry as it was locked: the tools it listed. */
export interface LockedServer {
  /** Its index in the manifest's `servers`. */
  entry: number;
  mcp: string;
  /** The entry's command and arguments, or its URL, as written (`${NAME}` not expanded): see {@link serverSourceOf}. */
  source: string;
  /** A hash of `tools`. */
  hash: string;
  tools: UpstreamTool[];
}

/** What a `servers` entry connects to, as written: its URL, or its command and arguments; never a secret's value. */
export function serverSourceOf(entry: ServerEntry): string {
  return entry.url ?? [entry.command ?? "", ...(entry.args ?? [])].join(" ");
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

/**
 * Where the lock of a manifest lives: beside it, named after it. `<name>.manifest.json` → `<name>.lock.json` (so
 * `skills.manifest.json` → `skills.lock.json`); any other file name → its name without the extension, then
 * `.lock.json` (`notes-only.json` → `notes-only.lock.json`).
 */
export function lockPathOf(manifest: LoadedManifest | string): string {
  const file = typeof manifest === "string" ? manifest : manifest.file;
  const base = path.basename(file);
  const stem = base.endsWith(MANIFEST_SUFFIX) ? base.slice(0, -MANIFEST_SUFFIX.length) : base.replace(/\.[^.]*$/, "");
  return path.join(path.dirname(file), `${stem === "" ? base : stem}.lock.json`);
}

/**
 * The command that writes this manifest's lock, as a person would type it from the current folder:
 * `skillport lock`, or `skillport lock --manifest notes-only.json` for a manifest of another name or folder.
 */
export function lockCommand(manifest: LoadedManifest): string {
  const relative = path.relative(process.cwd(), manifest.file);
  if (relative === DEFAULT_MANIFEST_NAME) return "skillport lock";
  return `skillport lock --manifest ${/[\s"'$\\]/.test(relative) ? JSON.stringify(relative) : relative}`;
}

/**
 * Deterministic JSON: keys sorted at every level, laid out as the repository's formatter (Biome) writes JSON, with a
 * final newline; so `skillport lock` on an unchanged workspace writes the same bytes, which `biome check` accepts.
 */
export function stringifyLock(lock: LockFile): string {
  return formatJson(sortKeys(lock));
}

/**
 * The manifest's own lock, or undefined when it has none. A lock beside it that belongs to another manifest is not
 * this manifest's: it is left unread. A lock that is not valid JSON is an error.
 */
export async function readLock(manifest: LoadedManifest): Promise<LockFile | undefined> {
  return (await ownLock(manifest)).lock;
}

/** The manifest's own lock; without one, the host cannot start with `--frozen-lock` (LOCK_STALE). */
export async function requireLock(manifest: LoadedManifest): Promise<LockFile> {
  const reading = await ownLock(manifest);
  if (reading.lock === undefined) throw frozenLockError(manifest, [reading.why]);
  return reading.lock;
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
    if (typeof locked.skill !== "object" || locked.skill === null || !matchesHash(locked.skill, locked.hash)) {
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

/** A stable hash of a skill surface (or of an upstream server's tools). */
export function hashOf(surface: SkillSurface | readonly UpstreamTool[]): string {
  return digestOf(canonicalJson(surface));
}

/**
 * Whether a value read from a lock still has the hash written beside it, i.e. `hashOf(value) === hash`. A lock is
 * written with its keys sorted, so the JSON.stringify of what JSON.parse read back is, unless the file was edited,
 * already the canonical text: its hash is tried first, which costs a fraction of sorting every key of every tool's
 * schemas at each start. When it differs (a lock whose keys were reordered by hand or by a tool) the canonical
 * hash decides, exactly as before: the answer is always that of `hashOf`.
 */
export function matchesHash(value: SkillSurface | readonly UpstreamTool[], hash: unknown): boolean {
  if (typeof hash !== "string") return false;
  const text = JSON.stringify(value);
  if (text !== undefined && digestOf(text) === hash) return true;
  return hashOf(value) === hash;
}

/** What the file at a manifest's lock path holds (see {@link readLockFile}). */
export type LockReading =
  | { kind: "absent" }
  /** Not JSON, or a lock of another version: a damaged lock, which `skillport lock` may write again. */
  | { kind: "broken"; problem: string }
  /** JSON, but no lock (a manifest, a package.json): never overwritten. */
  | { kind: "foreign" }
  /** The lock of another manifest. */
  | { kind: "other"; manifest: string }
  | { kind: "lock"; lock: LockFile };

/**
 * What the file at the manifest's lock path holds: nothing, this manifest's lock, the lock of another manifest, a
 * JSON file that is no lock, or a damaged lock (not JSON, or not a version 1 lock). A writer reads it first: it may
 * replace this manifest's lock or a damaged one, never another manifest's lock or a file that is no lock.
 *
 * @example
 * const reading = await readLockFile(manifest);
 * if (reading.kind === "other") console.error(`that is the lock of ${reading.manifest}`);
 */
export async function readLockFile(manifest: LoadedManifest): Promise<LockReading> {
  return readLockAt(lockPathOf(manifest), path.basename(manifest.file));
}

/** Why `--frozen-lock` refuses to start. */
export function frozenLockError(manifest: LoadedManifest, problems: readonly string[]): HostError {
  return new HostError(
    "LOCK_STALE",
    `[skillport] cannot start with --frozen-lock: ${path.basename(lockPathOf(manifest))} does not match ${path.basename(manifest.file)}; run ${lockCommand(manifest)} and commit it:`,
    problems,
  );
}

// --- internal ---

function digestOf(text: string): string {
  return `sha256-${createHash("sha256").update(text).digest("base64url")}`;
}

const MANIFEST_SUFFIX = ".manifest.json";
const DEFAULT_MANIFEST_NAME = "skills.manifest.json";

/** The manifest's lock, or why it has none. */
async function ownLock(
  manifest: LoadedManifest,
): Promise<{ lock: LockFile; why?: undefined } | { lock: undefined; why: string }> {
  const file = lockPathOf(manifest);
  const name = path.basename(file);
  const base = path.basename(manifest.file);
  const reading = await readLockAt(file, base);
  switch (reading.kind) {
    case "lock":
      return { lock: reading.lock };
    case "absent":
      return { lock: undefined, why: `there is no ${name} beside ${base}` };
    case "other":
      return { lock: undefined, why: `${name} beside ${base} is the lock of ${reading.manifest}, not of ${base}` };
    case "foreign":
      return { lock: undefined, why: `${name} beside ${base} is not a skill lock` };
    case "broken":
      throw new HostError(
        "LOCK_STALE",
        `[skillport] ${file} cannot be read (${reading.problem}); run ${lockCommand(manifest)} to write it again`,
      );
  }
}

/** What the file at a manifest's lock path holds, and whether it is that manifest's (`base`, its file name). */
async function readLockAt(file: string, base: string): Promise<LockReading> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "absent" };
    return { kind: "broken", problem: messageOf(error) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: "broken", problem: messageOf(error) };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json) || !("lockfileVersion" in json)) {
    return { kind: "foreign" };
  }
  const lock = json as LockFile;
  if (lock.lockfileVersion !== 1 || !Array.isArray(lock.instances)) {
    return { kind: "broken", problem: "not a version 1 lock" };
  }
  if (lock.manifest !== undefined && typeof lock.manifest !== "string") {
    return { kind: "broken", problem: '"manifest" is not a file name' };
  }
  if (lock.manifest !== undefined && lock.manifest !== base) return { kind: "other", manifest: lock.manifest };
  return { kind: "lock", lock };
}
