import path from "node:path";
import { SkillError } from "../skill-error.js";

/** The longest name one folder entry may have on common file systems (ext4, APFS, NTFS), in UTF-8 bytes. */
export const MAX_NAME_BYTES = 255;

/** The longest path the system takes in one call (Linux PATH_MAX, terminating NUL excluded), in UTF-8 bytes. */
export const MAX_PATH_BYTES = 4095;

/** A caller's path, split into names, before anything touches the disk. */
export interface ParsedPath {
  /** True when the path starts with a separator. */
  absolute: boolean;
  /** The names in order; empty ones and "." removed. Empty for the base folder itself. */
  names: string[];
}

/**
 * The lexical checks every path gets before it touches the disk. Refusals that name a place the caller may not go
 * (NUL bytes, drive letters, UNC paths, `..`, `~`, absolute paths where none are taken) come from `deny`;
 * malformed names (control characters, names or paths too long for the system) are ARGUMENT_INVALID.
 * Backslashes count as separators, so a path means the same on every system.
 */
export function parsePathText(
  requested: string,
  field: string,
  options: { absolute: boolean; deny: (why: string) => SkillError },
): ParsedPath {
  const { deny } = options;
  const shown = printablePath(requested);
  if (requested.includes("\0")) throw deny(`path "${shown}" contains a NUL byte`);
  if (requested === "") {
    throw new SkillError({ code: "ARGUMENT_INVALID", field, message: 'path is empty; use "." for the base folder' });
  }
  if (/^[A-Za-z]:/.test(requested)) throw deny(`path "${shown}" starts with a drive letter`);
  if (/^[\\/]{2}/.test(requested)) throw deny(`path "${shown}" is a network (UNC) path`);
  const absolute = /^[\\/]/.test(requested);
  if (absolute && !options.absolute) throw deny(`path "${shown}" is absolute`);
  const segments = requested.split(/[\\/]+/);
  if (segments.includes("..")) throw deny(`path "${shown}" leaves its folder with ".."`);
  if (segments[0]?.startsWith("~")) throw deny(`path "${shown}" names a home folder`);
  if (hasControl(requested)) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field,
      message: `path "${shown}" contains a control or bidirectional formatting character; use printable file names`,
    });
  }
  const names = segments.filter((s) => s !== "" && s !== ".");
  for (const name of names) {
    const bytes = Buffer.byteLength(name, "utf8");
    if (bytes > MAX_NAME_BYTES) {
      throw new SkillError({
        code: "ARGUMENT_INVALID",
        field,
        message: `a name in path "${shown}" is ${bytes} bytes long; file systems allow at most ${MAX_NAME_BYTES} bytes per name`,
      });
    }
  }
  const total = Buffer.byteLength(requested, "utf8");
  if (total > MAX_PATH_BYTES) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field,
      message: `path "${shown}" is ${total} bytes long; the system takes at most ${MAX_PATH_BYTES}`,
    });
  }
  return { absolute, names };
}

/**
 * A path fit for a message: clipped to 200 characters, control and bidirectional formatting characters (NUL,
 * newlines, U+202E) shown as `\xNN` / `\u{NNNN}`, so a message never hides or reorders text.
 *
 * @example
 * printablePath("notes\n.md") // 'notes\\x0a.md'
 */
export function printablePath(value: string): string {
  const clipped = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return [...clipped]
    .map((c) => {
      if (!isControl(c)) return c;
      const code = c.codePointAt(0) as number;
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
    })
    .join("");
}

/**
 * True when `real` is `folder` or lies below it. Both must be absolute, normalised paths (real paths); a sibling
 * sharing the folder's prefix (`/root-evil` for `/root`) is not inside.
 *
 * @example
 * isInside("/srv/root/a.txt", "/srv/root") // true
 * isInside("/srv/root-evil/a.txt", "/srv/root") // false
 */
export function isInside(real: string, folder: string): boolean {
  const rel = path.relative(folder, real);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

// --- internal ---

/** C0 and C1 controls, DEL, and the bidirectional formatting characters that reorder what a person reads. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function hasControl(value: string): boolean {
  return CONTROL.test(value);
}

function isControl(char: string): boolean {
  return CONTROL.test(char);
}
