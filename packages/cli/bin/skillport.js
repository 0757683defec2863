#!/usr/bin/env node
// Kept out of dist so package managers can link the command before the first build. The CLI is imported here, not
// at the top, so that a CLI (or a package it imports) that is not built yet says so instead of printing a stack.
import module from "node:module";

// Node 22.1 and later keep each module's compiled code on disk: turned on first, in a folder of the user's own (see
// src/compile-cache.ts). Node 20 has no compile cache, and does not load that file.
const cached =
  typeof module.enableCompileCache === "function"
    ? import("../dist/compile-cache.js").then(
        ({ enableCompileCache }) => enableCompileCache(),
        () => undefined, // not built: the import below says so
      )
    : Promise.resolve();

cached
  .then(() => import("../dist/cli.js"))
  .then(
    ({ main }) =>
      main(process.argv).then(
        (code) => {
          process.exitCode = code;
        },
        (error) => fail(error),
      ),
    (error) => fail(error),
  );

function fail(error) {
  const missing = unbuilt(error);
  if (missing !== undefined) {
    process.stderr.write(
      `[skillport] ${missing} is missing: skillport is not built yet. In a clone of the Skillport repository, run pnpm build (or pnpm install, then pnpm build) first; an installed package ships it, so reinstall it.\n`,
    );
  } else {
    process.stderr.write(`${error?.stack ?? error}\n`);
  }
  process.exitCode = 1;
}

/** The build output a "cannot find module" error is about, when it is one: a file under some package's dist/. */
function unbuilt(error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND") return undefined;
  const match = /Cannot find (?:module|package) '([^']+)'/.exec(String(error.message));
  const file = match?.[1];
  return file !== undefined && /[\\/]dist[\\/]/.test(file) ? file : undefined;
}
