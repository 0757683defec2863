import { readFileSync, realpathSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { HostError, messageOf } from "../errors/host-error.js";
import type { SkillEntry } from "../manifest/manifest.js";

/** Where a manifest entry's skill lives. */
export interface ResolvedSkill {
  /** The package name from its package.json. */
  packageName: string;
  /** The installed version from its package.json. */
  version: string;
  /** The module to import. */
  entryUrl: string;
  /** The package's folder (where its package.json is): where its SKILL.md is looked for. */
  packageDir: string;
}

/**
 * Finds a skill: `package` is resolved the way Node resolves an import written in the manifest file (from its
 * folder up); `path` names a local package folder, relative to the manifest.
 */
export async function resolveSkill(entry: SkillEntry, manifestFile: string, where: string): Promise<ResolvedSkill> {
  const manifestDir = path.dirname(manifestFile);
  if (entry.path !== undefined) return resolveFolder(path.resolve(manifestDir, entry.path), where);
  const name = entry.package as string;
  let entryUrl: string;
  try {
    entryUrl = (await importResolver())(name, pathToFileURL(manifestFile).href);
  } catch (error) {
    const reason = isNotFound(error) ? "it is not installed there or in a folder above" : firstLine(error);
    throw new HostError(
      "SKILL_NOT_FOUND",
      `[skillport] ${where}.package: cannot find package "${name}", which ${manifestFile} asks for (${reason}); install it beside the manifest (pnpm add ${name}) or fix the name`,
    );
  }
  const found = await findPackageJson(fileURLToPath(entryUrl), name);
  if (found === undefined) {
    throw new HostError(
      "SKILL_INVALID",
      `[skillport] ${where}.package: "${name}" has no package.json above its entry ${entryUrl}`,
    );
  }
  return { packageName: name, version: found.pkg.version ?? "0.0.0", entryUrl, packageDir: found.dir };
}

// --- internal ---

interface PackageJson {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
}

async function resolveFolder(folder: string, where: string): Promise<ResolvedSkill> {
  // A local package is read synchronously, package.json and its entry's stat: a few small reads per skill, once, at
  // start-up, which cost less than their round trips through the thread pool (a third of the time at 200 skills).
  const pkg = readPackageJsonSync(path.join(folder, "package.json"));
  if (pkg === undefined) {
    throw new HostError(
      "SKILL_NOT_FOUND",
      `[skillport] ${where}.path: ${folder} holds no package.json; point "path" at a skill package folder`,
    );
  }
  let entryUrl: string;
  try {
    // A package may import itself by name when it has "exports": the same rule Node applies.
    entryUrl =
      pkg.name !== undefined && pkg.exports !== undefined
        ? (plainSelfEntry(folder, pkg.exports) ??
          (await importResolver())(pkg.name, pathToFileURL(path.join(folder, "package.json")).href))
        : pathToFileURL(path.join(folder, pkg.main ?? "index.js")).href;
  } catch (error) {
    throw new HostError(
      "SKILL_INVALID",
      `[skillport] ${where}.path: cannot resolve the entry of ${folder} (${firstLine(error)}); is it built?`,
    );
  }
  return {
    packageName: pkg.name ?? path.basename(folder),
    version: pkg.version ?? "0.0.0",
    entryUrl,
    packageDir: folder,
  };
}

/** Node's resolution of a bare specifier from a parent URL, as `import` would do it (import-meta-resolve). */
type ImportResolver = (specifier: string, parent: string) => string;

let resolver: Promise<ImportResolver> | undefined;

/** import-meta-resolve, loaded on first need: a composition whose packages name their entry plainly never loads it. */
function importResolver(): Promise<ImportResolver> {
  resolver ??= import("import-meta-resolve").then((module) => module.resolve);
  return resolver;
}

/**
 * The URL `import` gives a package folder's own name when its "exports" names one file plainly ("./dist/index.js",
 * or the same under "."), without loading a resolver: the target joined to the folder, which must be a file, with
 * its links resolved, as Node does. Anything else (conditions, arrays, patterns, a target with characters a URL
 * reads differently or Node refuses, a target that is missing or a folder) is undefined, and Node's full rules
 * decide it, with their own errors.
 */
function plainSelfEntry(folder: string, exports: unknown): string | undefined {
  const target = plainMainTarget(exports);
  if (target === undefined) return undefined;
  const file = path.join(folder, ...target.slice(2).split("/"));
  try {
    if (statSync(file, { throwIfNoEntry: false })?.isFile() !== true) return undefined;
    return pathToFileURL(realpathOf(file)).href;
  } catch {
    return undefined;
  }
}

/**
 * A file's path with its links resolved. Off Windows, the system's realpath: one call, where Node's own walks the
 * path a folder at a time (about 35 µs a skill against 5, measured at 200 skills); both answer the same path there.
 * On Windows, Node's, whose drive-letter and casing rules are the ones its module loader applies.
 */
const realpathOf: (file: string) => string = process.platform === "win32" ? realpathSync : realpathSync.native;

/** "exports" as one plain relative file for ".", or undefined. */
function plainMainTarget(exports: unknown): string | undefined {
  let target: unknown = exports;
  if (typeof exports === "object" && exports !== null && !Array.isArray(exports)) {
    const keys = Object.keys(exports);
    // Subpaths only (a "." key); a conditions object, or one that mixes both (invalid), is left to Node's rules.
    if (keys.length === 0 || !keys.every((key) => key.startsWith("."))) return undefined;
    target = (exports as Record<string, unknown>)["."];
  }
  if (typeof target !== "string" || !target.startsWith("./")) return undefined;
  if (/[%\\?#*]/.test(target)) return undefined;
  const segments = target.slice(2).split("/");
  const refused = (segment: string) =>
    segment === "" || segment === "." || segment === ".." || segment.toLowerCase() === "node_modules";
  return segments.some(refused) ? undefined : target;
}

async function findPackageJson(file: string, name: string): Promise<{ pkg: PackageJson; dir: string } | undefined> {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const pkg = await readPackageJson(path.join(dir, "package.json"));
    if (pkg?.name === name) return { pkg, dir };
    if (path.dirname(dir) === dir) return undefined;
  }
}

function readPackageJsonSync(file: string): PackageJson | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as PackageJson;
  } catch {
    return undefined;
  }
}

async function readPackageJson(file: string): Promise<PackageJson | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as PackageJson;
  } catch {
    return undefined;
  }
}

/** The resolver's "Cannot find package" (its message names the folder it started from, not the manifest). */
function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ERR_MODULE_NOT_FOUND";
}

function firstLine(error: unknown): string {
  return messageOf(error).split("\n")[0] ?? "";
}
