// Writes manifest.schema.json from the manifest's one definition (src/manifest/manifest-schema.ts). Runs first in
// `pnpm build`, so the bundle validates against the schema the source defines; the file is committed, and
// test/manifest-schema.test.ts fails when it differs from what the source generates. In CI (CI set, as with
// `pnpm install --frozen-lockfile`) the build only checks: a stale committed file fails the build instead of being
// rewritten where no one commits it; `--write` (the package's `generate` script) always writes. Vite (the test runner's engine) loads the TypeScript source, so the build needs
// no other TypeScript runner.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { runnerImport } from "vite";

const source = fileURLToPath(new URL("../src/manifest/manifest-json-schema.ts", import.meta.url));
const { module } = await runnerImport(source, { configFile: false, logLevel: "silent" });
const name = module.MANIFEST_SCHEMA_FILE;
const file = fileURLToPath(new URL(`../${name}`, import.meta.url));
const text = module.manifestSchemaText();
const current = await readFile(file, "utf8").catch(() => undefined);
const ci = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";
const write = process.argv.includes("--write") || !ci;
if (current === text) {
  // Unchanged: not rewritten, so the file keeps its time and a build leaves a clean tree clean.
} else if (!write) {
  console.error(
    `[skillport] ${name} is not what src/manifest/manifest-schema.ts generates: run \`pnpm --filter @skillport/host generate\` and commit ${name}`,
  );
  process.exitCode = 1;
} else {
  await writeFile(file, text);
  console.log(`[skillport] wrote ${name} from src/manifest/manifest-schema.ts; commit it with the change`);
}
