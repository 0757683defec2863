import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/**
 * This package's own package.json, found by the package's name rather than next to the module asking. The skillport
 * command ships the host bundled into its own files, where `import.meta.url` is the command's; the prebuilt manifest
 * validator, the isolate entries and the CommonJS libraries loaded on first use stay in the host package.
 */
const PACKAGE_JSON = createRequire(import.meta.url).resolve("@skillport/host/package.json");

/** `require` as from the host package's root: its dependencies and its `dist/` files. */
export const requireFromHost = createRequire(PACKAGE_JSON);

/** A file of the host package by its path from the package's root, e.g. `dist/worker.js`. */
export const hostFile = (relative: string): URL => new URL(relative, pathToFileURL(PACKAGE_JSON));

/** Whether this module runs from the TypeScript sources (the tests) rather than a build. */
export const fromSources = import.meta.url.endsWith(".ts");
