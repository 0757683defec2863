// @skillport/core/confine: path confinement for skills that touch files. Node only; the root entry never imports it.
// Any new export added here becomes public API. Use named exports, not wildcards.

export type { ConfinedPath, Confinement, ConfinementOptions } from "./confinement.js";
export { createConfinement } from "./confinement.js";
export type { ConfinedDirectory, ConfinedFile, RemoveOptions, RenameOptions, WriteAtomicOptions } from "./directory.js";
export type { FsErrorOptions } from "./fs-error.js";
export { errnoOf, fsError } from "./fs-error.js";
export type { ParsedPath } from "./path-text.js";
export { isInside, MAX_NAME_BYTES, MAX_PATH_BYTES, printablePath } from "./path-text.js";
export { DEFAULT_PROTECTED_NAMES } from "./protected-names.js";
