// Where `skillport serve --stdio --frozen-lock` spends its start-up: the same steps, in the same order, each timed
// (wall and CPU of this process). Run by bench/startup.mjs in a fresh process per sample:
//   node bench/lock-stages.mjs <manifest with a current lock>  → one JSON line of { label, wallMs, cpuMs } stages
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
// Everything before this line (Node's own start-up) is the first stage.
const stages = [{ label: "node start-up", wallMs: performance.now(), cpuMs: cpuNow() }];
let wall = performance.now();
let cpu = cpuNow();
const mark = (label) => {
  const w = performance.now();
  const c = cpuNow();
  stages.push({ label, wallMs: w - wall, cpuMs: c - cpu });
  wall = w;
  cpu = c;
};

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const load = (file) => import(pathToFileURL(path.join(ROOT, file)).href);

await load("packages/cli/dist/cli.js");
mark("import the CLI: commander, @skillport/host (ajv, ajv-formats, semver, pino, import-meta-resolve, core + zod)");
const { serveHostStdio, createServerFactory } = await load("packages/host/dist/stdio.js");
mark("import @skillport/host/stdio: the MCP SDK server");
await load("packages/host/dist/http.js");
mark("import @skillport/host/http (serve.ts imports it for --stdio too): jose, prom-client");
const host = await load("packages/host/dist/index.js");
const manifest = await host.loadManifest(process.argv[2]);
mark("loadManifest: read, compile the manifest's JSON Schema with ajv, validate");
const lock = await host.readLock(manifest);
mark("readLock: read and JSON.parse skills.lock.json");
const problems = host.lockProblems(lock, await host.resolveEnabled(manifest));
if (problems.length > 0) throw new Error(problems.join("\n"));
mark("resolveEnabled + lockProblems: find each skill's package.json, compare with the lock");
const registry = await host.buildRegistry(manifest, { lock });
mark("buildRegistry from the lock: resolve each skill again, placeholder skills, the tool table");
createServerFactory({
  manifest,
  registry,
  pipeline: undefined,
  logger: host.createLogger({ level: "silent" }),
  redactor: undefined,
  close: async () => undefined,
})();
mark("createServerFactory: the tools/list answer object and one SDK Server");
const answer = JSON.stringify({ jsonrpc: "2.0", id: 2, result: { tools: registry.listings } });
mark("JSON.stringify of the tools/list answer (what the transport writes)");
void serveHostStdio; // imported above only to count its cost, as serve.ts does
process.stdout.write(`${JSON.stringify({ stages, tools: registry.tools.size, answerBytes: answer.length })}\n`);
