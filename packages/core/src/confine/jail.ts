import type { FileHandle } from "node:fs/promises";
import { readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { SkillError } from "../skill-error.js";
import { fsError } from "./fs-error.js";
import { isInside, printablePath } from "./path-text.js";
import { protectedNameIn } from "./protected-names.js";

/** A configured root: as configured (resolved) and its real path. */
export interface Root {
  configured: string;
  real: string;
}

/** How an opened descriptor is checked: its path in /proc (Linux), or device and inode against the path again. */
export type Strategy = "proc" | "inode";

/** What every confined operation shares: the roots, the protected names, how to refuse. */
export interface Jail {
  roots: readonly Root[];
  protectedSet: ReadonlyMap<string, string>;
  check: "auto" | "inode";
  /** A PERMISSION_DENIED that says why and where the caller may go instead. */
  deny(why: string, field: string): SkillError;
}

/** A descriptor's verified identity. */
export interface Verified {
  real: string;
  root: string;
  strategy: Strategy;
  dev: bigint;
  ino: bigint;
}

/** The real root holding `real` (the deepest, when roots nest), or undefined. */
export function rootOf(jail: Jail, real: string): string | undefined {
  let found: string | undefined;
  for (const root of jail.roots) {
    if (isInside(real, root.real) && (found === undefined || root.real.length > found.length)) found = root.real;
  }
  return found;
}

/**
 * Checks where an opened descriptor really is, not where its path said: on Linux the kernel's own record
 * (`/proc/self/fd/<fd>`); elsewhere, or without /proc, the path is resolved again and must lead to the same device
 * and inode. Refuses (PERMISSION_DENIED) a descriptor outside every root.
 */
export async function verifyDescriptor(
  jail: Jail,
  handle: FileHandle,
  expected: string,
  label: { shown: string; field: string },
): Promise<Verified> {
  const info = await handle.stat({ bigint: true });
  if (jail.check === "auto") {
    let link: string | undefined;
    try {
      link = await readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      link = undefined; // no /proc here: fall back to the inode check
    }
    if (link !== undefined && path.isAbsolute(link)) {
      if (info.nlink === 0n && link.endsWith(" (deleted)")) {
        throw new SkillError({ code: "NOT_FOUND", field: label.field, message: `"${label.shown}" was deleted` });
      }
      const root = rootOf(jail, link);
      if (root === undefined) throw jail.deny(`path "${label.shown}" leads outside the roots`, label.field);
      return { real: link, root, strategy: "proc", dev: info.dev, ino: info.ino };
    }
  }
  // Without /proc the path is all there is: resolve it, look at what it leads to, and resolve it again. A swap still in
  // place, or undone between the two resolutions, is seen; one undone in the instant between them and the look is
  // not, which is why Linux's /proc check comes first.
  let real: string;
  let again: Awaited<ReturnType<typeof stat>>;
  let settled: string;
  try {
    real = await realpath(expected);
    again = await stat(real, { bigint: true });
    settled = await realpath(expected);
  } catch {
    throw changed(jail, label);
  }
  const root = rootOf(jail, real);
  if (root === undefined) throw jail.deny(`path "${label.shown}" leads outside the roots`, label.field);
  if (settled !== real || again.dev !== info.dev || again.ino !== info.ino) throw changed(jail, label);
  return { real, root, strategy: "inode", dev: info.dev, ino: info.ino };
}

/** Refuses a write whose verified folder, or the name written in it, is protected. */
export function assertNotProtected(
  jail: Jail,
  folder: string,
  root: string,
  names: readonly string[],
  label: { shown: string; field: string },
): void {
  const below = path.relative(root, folder);
  const segments = below === "" ? [...names] : [...below.split(path.sep), ...names];
  const hit = protectedNameIn(segments, jail.protectedSet);
  if (hit === undefined) return;
  throw new SkillError({
    code: "PERMISSION_DENIED",
    field: label.field,
    message: `"${label.shown}" is inside "${hit}", which is protected from writes: tools such as git run its settings as code. Change it outside this server, or take "${hit}" off the protected names in the config`,
  });
}

/** The refusal for a path that changed between being checked and being used. */
export function changed(jail: Jail, label: { shown: string; field: string }): SkillError {
  return jail.deny(
    `path "${label.shown}" changed while it was being opened (a folder was replaced, perhaps by a link)`,
    label.field,
  );
}

/** {@link fsError} with a label. */
export function mapped(error: unknown, label: { shown: string; field: string; requested: string }): unknown {
  return fsError(error, { path: label.requested, field: label.field });
}

/** A label for messages from a requested path. */
export function labelOf(requested: string, field: string): { shown: string; field: string; requested: string } {
  return { shown: printablePath(requested), field, requested };
}
