// Writes manifest.schema.json from the manifest's one definition (src/manifest/manifest-schema.ts). Runs first in
// `pnpm build`, so the bundle validates against the schema the source defines; the file is committed, and
// test/manifest-schema.test.ts fails when it differs from what the source generates. Vite (already the test runner's
// engine) loads the TypeScript source, so the build needs no other TypeScript runner.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { runnerImport } from "vite";

const source = fileURLToPath(new URL("../src/manifest/manifest-json-schema.ts", import.meta.url));
const { module } = await runnerImport(source, { configFile: false, logLevel: "silent" });
const file = fileURLToPath(new URL(`../${module.MANIFEST_SCHEMA_FILE}`, import.meta.url));
const text = module.manifestSchemaText();
const current = await readFile(file, "utf8").catch(() => undefined);
// Unchanged content is not rewritten: the file keeps its time, and a build from a clean tree leaves it clean.
if (current !== text) {
  await writeFile(file, text);
  console.log(`[skillport] wrote ${module.MANIFEST_SCHEMA_FILE} from src/manifest/manifest-schema.ts`);
}
