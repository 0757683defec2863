import type { Stats } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { SkillError } from "@skillport/core";
import type { FilesConfig } from "./config.js";

/** A caller's path, resolved against the roots and checked to stay inside one. */
export interface ResolvedPath {
  /** What the caller asked for, for messages. */
  requested: string;
  /**
   * The real path with every symbolic link resolved. For a path that does not exist yet: the real path of its
   * deepest existing folder joined with the names still to be created.
   */
  real: string;
  /**
   * The entry the path names, its own last link not followed: the real parent joined with the last name.
   * Equal to `real` unless the last name is a symbolic link. Move and delete act on this.
   */
  entry: string;
  /** The real root that holds the path. */
  root: string;
  /** The entry's own stats (lstat) when it exists. */
  stats: Stats | undefined;
}

/**
 * Resolves a path from a call. Relative paths start at the first root; absolute paths must lie inside a root.
 * NUL bytes, `..` segments, `~`, drive letters (`C:`), UNC paths (`\\server\share`), and anything that resolves
 * outside every root, through symbolic links too, are refused with PERMISSION_DENIED naming the roots.
 * Backslashes count as separators, so a path means the same on every system.
 */
export async function resolvePath(config: FilesConfig, requested: string, field: string): Promise<ResolvedPath> {
  const roots = await loadRoots(config);
  const deny = (why: string) =>
    new SkillError({
      code: "PERMISSION_DENIED",
      field,
      message: `${why}; give a path relative to the first root or an absolute path inside one of the roots: ${roots.map((r) => r.real).join(", ")}`,
    });
  const shown = printable(requested);
  if (requested.includes("\0")) throw deny(`path "${shown}" contains a NUL byte`);
  if (requested === "") {
    throw new SkillError({ code: "ARGUMENT_INVALID", field, message: 'path is empty; use "." for the first root' });
  }
  if (/^[A-Za-z]:/.test(requested)) throw deny(`path "${shown}" starts with a drive letter`);
  if (/^[\\/]{2}/.test(requested)) throw deny(`path "${shown}" is a network (UNC) path`);
  const segments = requested.split(/[\\/]+/);
  if (segments.includes("..")) throw deny(`path "${shown}" leaves its folder with ".."`);
  if (segments[0]?.startsWith("~")) throw deny(`path "${shown}" names a home folder`);
  if ([...requested].some(isControl)) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field,
      message: `path "${shown}" contains a control character; use printable file names`,
    });
  }
  const names = segments.filter((s) => s !== "" && s !== ".");
  const absolute = /^[\\/]/.test(requested);
  const candidate = absolute ? path.join(path.sep, ...names) : path.join((roots[0] as Root).real, ...names);
  if (absolute && !roots.some((r) => isInside(candidate, r.real) || isInside(candidate, r.configured))) {
    throw deny(`path "${shown}" is outside the roots`);
  }

  const { real, existing } = await realpathDeep(candidate, shown, deny, field);
  const root = roots.find((r) => isInside(real, r.real))?.real;
  if (root === undefined) throw deny(`path "${shown}" leads outside the roots through a symbolic link`);
  let stats: Stats | undefined;
  let entry = real;
  if (existing === candidate) {
    stats = await lstat(candidate);
    if (stats.isSymbolicLink()) {
      // The entry is the link itself, in its parent's real folder; that folder must be inside the root too.
      entry = path.join(await realpath(path.dirname(candidate)), path.basename(candidate));
      if (!isInside(entry, root)) throw deny(`path "${shown}" leads outside the roots through a symbolic link`);
    }
  }
  return { requested, real, entry, root, stats };
}

/** A configured root: as the manifest gave it (resolved) and its real path. */
export interface Root {
  configured: string;
  real: string;
}

/** Every root, in config order. A missing root is the operator's problem, said plainly. */
export async function loadRoots(config: FilesConfig): Promise<Root[]> {
  return Promise.all(
    config.roots.map(async (root) => {
      const configured = path.resolve(root);
      let real: string;
      try {
        real = await realpath(configured);
      } catch {
        throw unavailable(root);
      }
      if (!(await stat(real)).isDirectory()) throw unavailable(root);
      return { configured, real };
    }),
  );
}

/** True when `real` is `folder` or lies below it. Both must be real, absolute paths. */
export function isInside(real: string, folder: string): boolean {
  const rel = path.relative(folder, real);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

export function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** The failures of a file operation a caller can act on, as SkillErrors; anything else is rethrown as is. */
export function fsError(error: unknown, resolved: ResolvedPath, field: string): unknown {
  const shown = printable(resolved.requested);
  switch (errnoOf(error)) {
    case "ENOENT":
      return new SkillError({ code: "NOT_FOUND", field, message: `"${shown}" does not exist` });
    case "EEXIST":
    case "ENOTEMPTY":
      return new SkillError({ code: "CONFLICT", field, message: `"${shown}" already exists or is not empty` });
    case "EISDIR":
      return new SkillError({ code: "ARGUMENT_INVALID", field, message: `"${shown}" is a folder, not a file` });
    case "ENOTDIR":
      return new SkillError({
        code: "ARGUMENT_INVALID",
        field,
        message: `a part of "${shown}" is a file where a folder is needed`,
      });
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new SkillError({
        code: "PERMISSION_DENIED",
        field,
        message: `the system refused access to "${shown}"; check the folder's permissions`,
      });
    case "ENOSPC":
    case "EDQUOT":
      return new SkillError({ code: "UNAVAILABLE", message: `no space left to write "${shown}"` });
    case "ENAMETOOLONG":
      return new SkillError({ code: "ARGUMENT_INVALID", field, message: `"${shown}" is too long a path` });
    default:
      return error;
  }
}

/** A path fit for a message: clipped, control characters (NUL, newlines) shown as \\xNN. */
export function printable(value: string): string {
  const clipped = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return [...clipped].map((c) => (isControl(c) ? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}` : c)).join("");
}

// --- internal ---

/**
 * realpath() for a path that may not exist yet: the deepest existing ancestor is resolved and the missing names
 * are appended. A broken symbolic link on the way is refused: where it points cannot be checked before use.
 */
async function realpathDeep(
  candidate: string,
  shown: string,
  deny: (why: string) => SkillError,
  field: string,
): Promise<{ real: string; existing: string }> {
  const missing: string[] = [];
  let current = candidate;
  for (;;) {
    try {
      const real = await realpath(current);
      return { real: path.join(real, ...missing), existing: current };
    } catch (error) {
      const code = errnoOf(error);
      if (code === "ELOOP") throw deny(`path "${shown}" goes through a loop of symbolic links`);
      if (code === "ENOTDIR") {
        throw new SkillError({
          code: "ARGUMENT_INVALID",
          field,
          message: `a part of "${shown}" is a file where a folder is needed`,
        });
      }
      if (code === "EACCES") throw deny(`the system refused to resolve "${shown}"`);
      if (code !== "ENOENT") throw error;
    }
    if (await isSymbolicLink(current)) {
      throw deny(`path "${shown}" goes through a broken symbolic link`);
    }
    const parent = path.dirname(current);
    if (parent === current) throw deny(`path "${shown}" has no existing folder`);
    missing.unshift(path.basename(current));
    current = parent;
  }
}

async function isSymbolicLink(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isSymbolicLink();
  } catch {
    return false;
  }
}

function unavailable(root: string): SkillError {
  return new SkillError({
    code: "UNAVAILABLE",
    message: `the root folder "${root}" does not exist or is not a folder; fix "roots" in this skill's manifest config`,
  });
}

function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}
