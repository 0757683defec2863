import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import type { SandboxMount } from "@skillport/core/sandbox";

/**
 * The folders a sandboxed child needs to import a package and what it depends on, each at its real path: the
 * package's own folder, every package its `dependencies`, `peerDependencies` and `optionalDependencies` name
 * (transitively), and the `node_modules` folders holding the links Node follows to reach them. Nothing else of
 * the file system: not the project around the package, not the manifest, not a credential file.
 *
 * @param dir the real path of the package's folder (where its package.json is), or of a folder inside it
 * @example moduleMounts("/srv/app/node_modules/.pnpm/skill-x@1.0.0/node_modules/skill-x")
 */
export function moduleMounts(dir: string, options: ModuleMountsOptions = {}): string[] {
  const mounts = new Set<string>();
  const seen = new Set<string>();
  const visit = (at: string, names: readonly string[], declared: boolean) => {
    if (seen.has(at)) return;
    seen.add(at);
    mounts.add(at);
    const pkg = declared ? readPackage(at) : {};
    const deps = new Set([
      ...names,
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
    ]);
    for (const name of deps) {
      const found = locate(name, at);
      if (found === undefined) continue; // an optional dependency that is not installed
      // The link itself must be visible where Node looks for it.
      if (!isInside(found.nodeModules, at)) mounts.add(found.nodeModules);
      visit(found.real, [], true);
    }
    // Under pnpm a package's own dependencies sit beside it, in the node_modules folder that holds it.
    const parent = nodeModulesOf(at);
    if (parent !== undefined) mounts.add(parent);
  };
  visit(dir, options.extra ?? [], options.declared ?? true);
  return outermost([...mounts]);
}

/** Options for {@link moduleMounts}. */
export interface ModuleMountsOptions {
  /**
   * Dependencies used without being declared (a skill fixture importing `@skillport/core` from the folders above).
   * @default []
   */
  extra?: readonly string[];
  /**
   * Whether to follow the dependencies the folder's own package.json declares; false mounts only `extra`.
   * @default true
   */
  declared?: boolean;
}

/** The nearest folder at or above `file` that holds a package.json. */
export function packageDirOf(file: string): string {
  let dir = path.dirname(file);
  while (!existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir);
    if (up === dir) return path.dirname(file);
    dir = up;
  }
  return dir;
}

/**
 * Orders mounts for bubblewrap (a later mount hides what an earlier one put below it): parents first, and a
 * mount inside another of the same kind dropped.
 */
export function orderMounts(mounts: readonly SandboxMount[]): SandboxMount[] {
  const sorted = [...mounts].sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path));
  const kept: SandboxMount[] = [];
  for (const mount of sorted) {
    const covered = kept.some(
      (k) => Boolean(k.writable) === Boolean(mount.writable) && (k.path === mount.path || isInside(mount.path, k.path)),
    );
    if (!covered) kept.push(mount);
  }
  return kept;
}

// --- internal ---

interface PackageJson {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

function readPackage(dir: string): PackageJson {
  try {
    return JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as PackageJson;
  } catch {
    return {};
  }
}

/** Finds `name` the way Node does from `dir`: `node_modules/<name>` in `dir` and each folder above it. */
function locate(name: string, dir: string): { nodeModules: string; real: string } | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    const nodeModules = path.join(at, "node_modules");
    const candidate = path.join(nodeModules, name);
    try {
      lstatSync(candidate);
      return { nodeModules, real: realpathSync(candidate) };
    } catch {
      // not here; look further up
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/** The node_modules folder directly holding a package folder (`…/node_modules/name` or `…/node_modules/@scope/name`). */
function nodeModulesOf(dir: string): string | undefined {
  const parent = path.dirname(dir);
  if (path.basename(parent) === "node_modules") return parent;
  const grand = path.dirname(parent);
  if (path.basename(parent).startsWith("@") && path.basename(grand) === "node_modules") return grand;
  return undefined;
}

function outermost(paths: readonly string[]): string[] {
  return orderMounts(paths.map((p) => ({ path: p }))).map((m) => m.path);
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

function depth(p: string): number {
  return p.split(path.sep).length;
}
