import type { Options } from "tsup";
import { packageBuild } from "../../tsup.shared.ts";

/**
 * The command is one bundle with what it runs (the host, core, the MCP SDK, zod, pino, commander): Node 20 loads
 * zod's ~100 ES modules in about 95 ms of CPU, bundled in about 35 ms, and a client waits for that on every start.
 * @skillport/client stays a package of its own (it is loaded for upstream servers and `call` only, and finds its
 * worker file beside itself). The host finds its own files (the prebuilt manifest validator, the isolate entries)
 * from its package, which stays a dependency. Bundled CommonJS (pino, commander) gets a `require` from the banner.
 */
const command = {
  noExternal: [/^(?!@skillport\/client)/],
  external: ["@skillport/client"],
} satisfies Options;

export default [
  {
    ...packageBuild(["src/cli.ts", "src/compile-cache.ts"]),
    ...command,
    // The other build's file stays: the two builds run side by side.
    clean: ["!early-stdio.*"],
    banner: {
      js: 'import { createRequire as skillportCreateRequire } from "node:module"; const require = skillportCreateRequire(import.meta.url);',
    },
    esbuildOptions(options) {
      // The host's build imports its shared chunks bare, for order; the host declares no side effects, so they go.
      options.logOverride = { "ignored-bare-import": "silent" };
    },
  },
  {
    // What `serve --stdio` loads first, to answer from a start image: one file without shared chunks, since each
    // module Node loads before the first answer costs it about a millisecond (three chunks: 9 ms to import, one
    // file: 6). It imports only Node's own modules.
    ...command,
    entry: ["src/early-stdio.ts"],
    format: ["esm"],
    target: "node20",
    sourcemap: true,
    splitting: false,
    dts: false,
    clean: false,
  },
] satisfies Options[];
