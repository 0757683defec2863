import type { Options } from "tsup";
import { packageBuild } from "../../tsup.shared.ts";

/**
 * The command is one bundle with what it runs (the host, core, the MCP SDK, zod, pino, commander): Node 20 loads
 * zod's ~100 ES modules in about 95 ms of CPU, bundled in about 35 ms, and a client waits for that on every start.
 * @skillport/client stays a package of its own (it is loaded for upstream servers and `call` only, and finds its
 * worker file beside itself). The host finds its own files (the prebuilt manifest validator, the isolate entries)
 * from its package, which stays a dependency. Bundled CommonJS (pino, commander) gets a `require` from the banner.
 */
export default {
  ...packageBuild(["src/cli.ts", "src/compile-cache.ts"]),
  noExternal: [/^(?!@skillport\/client)/],
  external: ["@skillport/client"],
  banner: {
    js: 'import { createRequire as skillportCreateRequire } from "node:module"; const require = skillportCreateRequire(import.meta.url);',
  },
  esbuildOptions(options) {
    // The host's build imports its shared chunks bare, for order; the host declares no side effects, so they go.
    options.logOverride = { "ignored-bare-import": "silent" };
  },
} satisfies Options;
