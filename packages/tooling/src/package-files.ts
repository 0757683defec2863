import { createRequire } from "node:module";

/**
 * `require` as from this package's root, found by the package's name rather than next to the module asking: the
 * skillport command bundles this package into its own files, where `import.meta.url` is the command's, and the
 * libraries loaded on first use (recheck) stay dependencies of this package.
 */
export const requireFromTooling = createRequire(
  createRequire(import.meta.url).resolve("@skillport/tooling/package.json"),
);
