import type { Stats } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { SkillError } from "../skill-error.js";
import type { ConfinedDirectory, ConfinedFile } from "./directory.js";
import { openVerifiedDirectory } from "./directory.js";
import { errnoOf, fsError } from "./fs-error.js";
import type { Jail, Root } from "./jail.js";
import { assertNotProtected, labelOf, rootOf } from "./jail.js";
import type { ParsedPath } from "./path-text.js";
import { isInside, MAX_PATH_BYTES, parsePathText, printablePath } from "./path-text.js";
import { DEFAULT_PROTECTED_NAMES, protectedSetOf } from "./protected-names.js";

/** Options for {@link createConfinement}. */
export interface ConfinementOptions {
  /**
   * The folders paths must stay in, absolute (resolve a manifest's relative paths first). Their real paths count:
   * a root that is a link is followed once, here.
   * @example ["/srv/workspace", "/srv/shared"]
   */
  roots: readonly string[];
  /**
   * Where relative paths start. Need not be a root (the notes skill starts at the vault and allows some of its
   * folders).
   * @default roots[0]
   */
  base?: string;
  /**
   * Accept absolute paths (inside a root). When false, every absolute path is refused.
   * @default true
   */
  absolutePaths?: boolean;
  /**
   * Names no write may touch, anywhere on the way: create, write, append, move into or out of, delete (a
   * recursive delete of a folder holding one is refused before anything goes). Compared after Unicode
   * normalisation, case-insensitively, trailing dots and spaces ignored. Reads stay allowed. `[]` turns it off.
   * @default DEFAULT_PROTECTED_NAMES ([".git", ".hg", ".jj"])
   */
  protectedNames?: readonly string[];
  /**
   * What a root that does not exist means: `"unavailable"` refuses every call (UNAVAILABLE, naming the root);
   * `"skip"` leaves it out (a folder not created yet holds nothing).
   * @default "unavailable"
   */
  missingRoots?: "unavailable" | "skip";
  /**
   * The end of every refusal's message: where the caller may go instead.
   * @default "give a path relative to the first root or an absolute path inside one of the roots: <the roots>"
   */
  hint?: string;
  /**
   * How an opened descriptor is checked. `"auto"` asks the kernel where it is (`/proc/self/fd`, Linux) and falls
   * back to `"inode"` without /proc: the path is resolved again and must lead to the same device and inode, checked
   * before and after each operation (a narrower guarantee: a swap inside that window is detected, not prevented).
   * @default "auto"
   */
  descriptorCheck?: "auto" | "inode";
}

/** A caller's path, resolved against the roots and checked to stay inside one. */
export interface ConfinedPath {
  /** What the caller asked for, for messages. */
  requested: string;
  /** The JSON pointer of the argument it came from. */
  field: string;
  /**
   * The real path, every link resolved. For a path that does not exist yet: the real path of its deepest existing
   * folder joined with the names still to be created.
   */
  real: string;
  /** The entry the path names, its own last link not followed. Equal to `real` unless the last name is a link. */
  entry: string;
  /** The real root that holds it. */
  root: string;
  /** The entry's own stats (lstat) when it exists. */
  stats: Stats | undefined;
}

/**
 * Paths confined to a set of roots, for one call. Resolve a caller's path with `resolve` (lexical checks, then
 * every link resolved and checked); then open it with `openFile`, `openDirectory` or `openParent`: those open a
 * descriptor and check *it*, so a folder swapped for a link between the check and the use is caught.
 */
export interface Confinement {
  /** The real roots, in order. */
  readonly roots: readonly string[];
  /** The lexical checks alone (NUL, `..`, `~`, drive letters, UNC, control characters, lengths); throws a refusal. */
  parse(requested: string, field: string): ParsedPath;
  /**
   * Resolves a caller's path: lexical checks, then links resolved, and the result must stay inside a root.
   * Refusals are PERMISSION_DENIED (naming the roots) or ARGUMENT_INVALID; a path need not exist.
   */
  resolve(requested: string, field: string): Promise<ConfinedPath>;
  /** Opens the file the path leads to for reading; a folder, FIFO, socket or device is refused without blocking. */
  openFile(target: ConfinedPath): Promise<ConfinedFile>;
  /** Opens the folder the path leads to; a file answers ARGUMENT_INVALID. */
  openDirectory(target: ConfinedPath): Promise<ConfinedDirectory>;
  /**
   * Opens the folder that holds the path's target (or, with `entry: true`, its entry: a link itself rather than what
   * it points to), to create, replace, move or delete the name in it. `create: true` creates missing folders on the
   * way, each through its checked parent; otherwise a missing folder answers NOT_FOUND.
   */
  openParent(target: ConfinedPath, options?: { entry?: boolean; create?: boolean }): Promise<ConfinedDirectory>;
  /** The target's stats (a link at the end followed, once, inside the roots), read through its checked folder. */
  stat(target: ConfinedPath): Promise<Stats>;
  /** Refuses (PERMISSION_DENIED) a path whose entry or target is or lies inside a protected name. */
  assertWritable(target: ConfinedPath): void;
}

/**
 * Confines paths to `roots` for one call: resolves the roots' real paths now (so create one per call, not per
 * process) and returns the operations that keep every path inside them.
 *
 * @example
 * const jail = await createConfinement({ roots: ctx.config.roots });
 * const target = await jail.resolve(params.path, "/path");
 * const file = await jail.openFile(target);
 * try {
 *   const { bytesRead } = await file.handle.read(buffer, 0, buffer.length, 0);
 * } finally {
 *   await file.handle.close();
 * }
 */
export async function createConfinement(options: ConfinementOptions): Promise<Confinement> {
  const roots = await loadRoots(options.roots, options.missingRoots ?? "unavailable");
  const hint =
    options.hint ??
    `give a path relative to the first root or an absolute path inside one of the roots: ${roots.map((r) => r.real).join(", ")}`;
  const jail: Jail = {
    roots,
    protectedSet: protectedSetOf(options.protectedNames ?? DEFAULT_PROTECTED_NAMES),
    check: options.descriptorCheck ?? "auto",
    deny: (why, field) => new SkillError({ code: "PERMISSION_DENIED", field, message: `${why}; ${hint}` }),
  };
  const base = options.base === undefined ? roots[0]?.real : await realBase(options.base);
  const absolutePaths = options.absolutePaths ?? true;

  const parse = (requested: string, field: string) =>
    parsePathText(requested, field, { absolute: absolutePaths, deny: (why) => jail.deny(why, field) });

  const resolve = async (requested: string, field: string): Promise<ConfinedPath> => {
    const { absolute, names } = parse(requested, field);
    const shown = printablePath(requested);
    if (base === undefined) throw jail.deny(`path "${shown}" is outside the roots (none exists)`, field);
    const candidate = absolute ? path.join(path.sep, ...names) : path.join(base, ...names);
    if (absolute && !roots.some((r) => isInside(candidate, r.real) || isInside(candidate, r.configured))) {
      throw jail.deny(`path "${shown}" is outside the roots`, field);
    }
    const { real, existing } = await realpathDeep(jail, candidate, requested, field);
    if (Buffer.byteLength(real, "utf8") > MAX_PATH_BYTES) {
      throw new SkillError({
        code: "ARGUMENT_INVALID",
        field,
        message: `path "${shown}" is too long once resolved: the system takes at most ${MAX_PATH_BYTES} bytes`,
      });
    }
    const root = rootOf(jail, real);
    if (root === undefined) {
      const lexicallyInside = roots.some((r) => isInside(candidate, r.real) || isInside(candidate, r.configured));
      throw jail.deny(
        lexicallyInside
          ? `path "${shown}" leads outside the roots through a symbolic link`
          : `path "${shown}" is outside the roots`,
        field,
      );
    }
    let stats: Stats | undefined;
    let entry = real;
    if (existing === candidate) {
      try {
        stats = await lstat(candidate);
        // The entry of a link is the link itself, in its parent's real folder; that folder must be inside a root.
        if (stats.isSymbolicLink())
          entry = path.join(await realpath(path.dirname(candidate)), path.basename(candidate));
      } catch (error) {
        throw fsError(error, { path: requested, field });
      }
      if (entry !== real) {
        if (rootOf(jail, path.dirname(entry)) === undefined) {
          throw jail.deny(`path "${shown}" leads outside the roots through a symbolic link`, field);
        }
      }
    }
    return { requested, field, real, entry, root, stats };
  };

  const openDirectory = async (target: ConfinedPath) => {
    const label = labelOf(target.requested, target.field);
    try {
      return await openVerifiedDirectory(jail, target.real, label);
    } catch (error) {
      if ((error as { code?: unknown }).code === "ARGUMENT_INVALID" && errnoOf((error as Error).cause) === "ENOTDIR") {
        throw new SkillError({
          code: "ARGUMENT_INVALID",
          field: target.field,
          message: `"${label.shown}" is a file, not a folder`,
        });
      }
      throw error;
    }
  };

  const openParent = async (target: ConfinedPath, opts: { entry?: boolean; create?: boolean } = {}) => {
    const label = labelOf(target.requested, target.field);
    const named = opts.entry === true ? target.entry : target.real;
    if (roots.some((r) => r.real === named)) {
      throw jail.deny(`path "${label.shown}" is a root itself`, target.field);
    }
    const folder = path.dirname(named);
    const root = rootOf(jail, folder);
    if (root === undefined) throw jail.deny(`path "${label.shown}" is outside the roots`, target.field);
    if (opts.create !== true) return openVerifiedDirectory(jail, folder, label);
    // Walk down from the root, creating what is missing, each folder opened through its checked parent.
    const rel = path.relative(root, folder);
    let dir = await openVerifiedDirectory(jail, root, label);
    try {
      for (const name of rel === "" ? [] : rel.split(path.sep)) {
        if ((await dir.lstat(name)) === undefined) await dir.mkdir(name);
        const next = await dir.openDirectory(name);
        await dir.close();
        dir = next;
      }
      return dir;
    } catch (error) {
      await dir.close();
      throw error;
    }
  };

  return {
    roots: roots.map((r) => r.real),
    parse,
    resolve,
    openDirectory,
    openParent,
    async openFile(target) {
      if (roots.some((r) => r.real === target.real)) {
        throw new SkillError({
          code: "ARGUMENT_INVALID",
          field: target.field,
          message: `"${printablePath(target.requested)}" is a folder, not a file`,
        });
      }
      const dir = await openParent(target);
      try {
        return await dir.openFile(path.basename(target.real));
      } finally {
        await dir.close();
      }
    },
    async stat(target) {
      if (roots.some((r) => r.real === target.real)) {
        const dir = await openDirectory(target);
        try {
          return await stat(dir.path);
        } finally {
          await dir.close();
        }
      }
      const dir = await openParent(target);
      try {
        const stats = await dir.lstat(path.basename(target.real));
        if (stats === undefined) {
          throw new SkillError({
            code: "NOT_FOUND",
            field: target.field,
            message: `"${printablePath(target.requested)}" does not exist`,
          });
        }
        return stats;
      } finally {
        await dir.close();
      }
    },
    assertWritable(target) {
      const label = labelOf(target.requested, target.field);
      for (const full of new Set([target.entry, target.real])) {
        const root = rootOf(jail, full);
        if (root !== undefined) assertNotProtected(jail, root, root, path.relative(root, full).split(path.sep), label);
      }
    },
  };

  async function realBase(folder: string): Promise<string> {
    try {
      return await realpath(path.resolve(folder));
    } catch {
      throw new SkillError({
        code: "UNAVAILABLE",
        message: `the folder "${folder}" does not exist; fix this skill's manifest config`,
      });
    }
  }
}

// --- internal ---

async function loadRoots(configured: readonly string[], missing: "unavailable" | "skip"): Promise<Root[]> {
  const loaded = await Promise.all(
    configured.map(async (root): Promise<Root | undefined> => {
      const resolved = path.resolve(root);
      try {
        const real = await realpath(resolved);
        if ((await stat(real)).isDirectory()) return { configured: resolved, real };
      } catch {
        // missing: said below
      }
      if (missing === "skip") return undefined;
      throw new SkillError({
        code: "UNAVAILABLE",
        message: `the root folder "${root}" does not exist or is not a folder; fix the roots in this skill's manifest config`,
      });
    }),
  );
  return loaded.filter((r): r is Root => r !== undefined);
}

/**
 * realpath() for a path that may not exist yet: the deepest existing ancestor is resolved and the missing names
 * are appended. A broken symbolic link on the way is refused: where it points cannot be checked before use.
 */
async function realpathDeep(
  jail: Jail,
  candidate: string,
  requested: string,
  field: string,
): Promise<{ real: string; existing: string }> {
  const shown = printablePath(requested);
  const missing: string[] = [];
  let current = candidate;
  for (;;) {
    try {
      const real = await realpath(current);
      return { real: path.join(real, ...missing), existing: current };
    } catch (error) {
      const code = errnoOf(error);
      if (code === "ELOOP") throw jail.deny(`path "${shown}" goes through a loop of symbolic links`, field);
      if (code === "EACCES") throw jail.deny(`the system refused to resolve "${shown}"`, field);
      if (code !== "ENOENT") throw fsError(error, { path: requested, field });
    }
    let isLink = false;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch {
      isLink = false;
    }
    if (isLink) throw jail.deny(`path "${shown}" goes through a broken symbolic link`, field);
    const parent = path.dirname(current);
    if (parent === current) throw jail.deny(`path "${shown}" has no existing folder`, field);
    missing.unshift(path.basename(current));
    current = parent;
  }
}
