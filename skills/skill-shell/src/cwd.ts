import { SkillError } from "@skillport/core";
import { createConfinement, printablePath } from "@skillport/core/confine";
import type { ShellConfig } from "./config.js";

/**
 * Resolves a call's working folder through `@skillport/core/confine`, the module every skill that touches files
 * shares: relative paths start at the first root, absolute ones must lie inside a root, and the folder is opened
 * and its descriptor checked to be inside one (links resolved). NUL bytes, `..`, `~`, drive letters and UNC paths
 * are refused with PERMISSION_DENIED naming the roots; a missing folder is NOT_FOUND, a file ARGUMENT_INVALID.
 * Returns the folder's real path, as its descriptor gave it.
 */
export async function resolveCwd(config: ShellConfig, requested: string, field: string): Promise<string> {
  const jail = await createConfinement({ roots: config.roots, protectedNames: [] });
  const target = await jail.resolve(requested, field);
  if (target.stats === undefined) {
    throw new SkillError({
      code: "NOT_FOUND",
      field,
      message: `the folder "${printablePath(requested)}" does not exist`,
    });
  }
  const folder = await jail.openDirectory(target);
  try {
    return folder.path;
  } finally {
    await folder.close();
  }
}
