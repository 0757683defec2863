import type { Options } from "tsup";

/**
 * The build every package shares: ESM with `.d.ts` and source maps, for Node 20. A package's tsup.config.ts names
 * only its entries: `export default packageBuild()` or `packageBuild({ index: "src/index.ts", http: "src/http.ts" })`.
 */
export function packageBuild(entry: Options["entry"] = ["src/index.ts"]): Options {
  return { entry, format: ["esm"], dts: true, clean: true, sourcemap: true, target: "node20" };
}
