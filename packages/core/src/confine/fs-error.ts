import { SkillError } from "../skill-error.js";
import { printablePath } from "./path-text.js";

/** What {@link fsError} says the failure was about. */
export interface FsErrorOptions {
  /** The path as the caller gave it; shown (made printable) in the message. */
  path: string;
  /** The JSON pointer of the argument at fault, e.g. `/path`. */
  field: string;
}

/**
 * Turns a failed file operation into the SkillError a caller can act on, in one place for every skill: ENOENT →
 * NOT_FOUND; EEXIST, ENOTEMPTY → CONFLICT; EISDIR, ENOTDIR, ENAMETOOLONG, EXDEV, EINVAL, EFBIG, ENXIO → ARGUMENT_INVALID;
 * ELOOP, EACCES, EPERM, EROFS → PERMISSION_DENIED; ENOSPC, EMFILE, EBUSY, EIO and any other system code →
 * UNAVAILABLE. A SkillError or an abort passes through unchanged; only an error without a system code (a bug) is
 * returned as it is, to end as INTERNAL.
 *
 * @example
 * try {
 *   await handle.read(buffer, 0, n, offset);
 * } catch (error) {
 *   throw fsError(error, { path: params.path, field: "/path" });
 * }
 */
export function fsError(error: unknown, options: FsErrorOptions): unknown {
  const code = errnoOf(error);
  if (code === undefined || !/^E[A-Z0-9]+$/.test(code)) return error;
  const { field } = options;
  const shown = printablePath(options.path);
  const invalid = (message: string) => new SkillError({ code: "ARGUMENT_INVALID", field, message, cause: error });
  const denied = (message: string) => new SkillError({ code: "PERMISSION_DENIED", field, message, cause: error });
  const unavailable = (message: string) => new SkillError({ code: "UNAVAILABLE", message, cause: error });
  switch (code) {
    case "ENOENT":
      return new SkillError({ code: "NOT_FOUND", field, message: `"${shown}" does not exist`, cause: error });
    case "EEXIST":
    case "ENOTEMPTY":
      return new SkillError({
        code: "CONFLICT",
        field,
        message: `"${shown}" already exists or is not empty`,
        cause: error,
      });
    case "EISDIR":
      return invalid(`"${shown}" is a folder, not a file`);
    case "ENOTDIR":
      return invalid(`a part of "${shown}" is a file where a folder is needed`);
    case "ENAMETOOLONG":
      return invalid(`"${shown}" is too long: a name has at most 255 bytes and a path at most 4095`);
    case "EXDEV":
      return invalid(`"${shown}" is on another file system; copy it instead of moving or linking it`);
    case "EINVAL":
      return invalid(
        `the system refused the operation on "${shown}" as invalid (for example, moving a folder into itself)`,
      );
    case "EFBIG":
    case "EOVERFLOW":
      return invalid(`"${shown}" is too large for this operation`);
    case "ENXIO":
    case "ENODEV":
    case "EAGAIN":
      return invalid(`"${shown}" is not a regular file`);
    case "ELOOP":
      return denied(`"${shown}" goes through a loop of symbolic links, or is a symbolic link where none may be`);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return denied(`the system refused access to "${shown}"; check the folder's permissions`);
    case "ENOSPC":
    case "EDQUOT":
      return unavailable(`no space left to write "${shown}"`);
    case "EMFILE":
    case "ENFILE":
      return unavailable(`too many files are open to use "${shown}" now; try again shortly`);
    case "EBUSY":
    case "ETXTBSY":
      return unavailable(`"${shown}" is busy; try again shortly`);
    default:
      return unavailable(`the system could not use "${shown}" (${code})`);
  }
}

/** The system error code of a failed file operation (`ENOENT`, …), or undefined for any other error. */
export function errnoOf(error: unknown): string | undefined {
  const code: unknown = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}
