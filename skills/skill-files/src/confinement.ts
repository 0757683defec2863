import { isSkillError, SkillError } from "@skillport/core";
import type { ConfinedDirectory, ConfinedPath, Confinement } from "@skillport/core/confine";
import { createConfinement, printablePath } from "@skillport/core/confine";
import type { FilesConfig } from "./config.js";

/** The roots of this instance as a confinement for one call: every tool resolves and opens paths through it. */
export function confinementFor(config: FilesConfig): Promise<Confinement> {
  return createConfinement({ roots: config.roots, protectedNames: config.protectedNames });
}

/**
 * Opens the folder a write lands in (`entry`: the folder of a link itself, for move and delete), creating missing
 * folders only when the call asked for it.
 */
export async function openTargetFolder(
  jail: Confinement,
  target: ConfinedPath,
  options: { create: boolean; entry?: boolean },
): Promise<ConfinedDirectory> {
  const entry = options.entry === true;
  try {
    return await jail.openParent(target, { entry });
  } catch (error) {
    if (!isSkillError(error) || error.code !== "NOT_FOUND") throw error;
  }
  if (!options.create) {
    throw new SkillError({
      code: "NOT_FOUND",
      field: target.field,
      message: `the folder of "${printablePath(target.requested)}" does not exist; pass create_directories: true to create it`,
    });
  }
  return jail.openParent(target, { entry, create: true });
}
