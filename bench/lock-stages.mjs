// Where `skillport serve --stdio --frozen-lock` spends its start-up: the same steps, in the same order, each timed
// (wall and CPU of this process), through the host library as a program embedding it runs them. The skillport command
// runs the same code from its bundle, where the imports cost less (zod's modules above all): its whole start is the
// cold-start table's lock column. Run by bench/startup.mjs in a fresh process per sample:
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

const host = await load("packages/host/dist/index.js");
mark("import @skillport/host, unbundled: pino, core + zod (no ajv or resolver for serve)");
const { serveHostStdio, createServerFactory } = await load("packages/host/dist/stdio.js");
mark("import @skillport/host/stdio, unbundled: the MCP SDK server");
const surface = await load("packages/host/dist/surface.js");
const manifest = await host.loadManifest(process.argv[2]);
mark("loadManifest: read and validate (the schema's validator is compiled at build time)");
const lock = await surface.readLock(manifest);
mark("readLock: read and JSON.parse skills.lock.json");
const registry = await host.buildRegistry(manifest, { lock, lockMode: "frozen" });
mark("buildRegistry from the lock: resolve each skill, compare it and its hash with the lock, the tool table");
createServerFactory({
  manifest,
  registry,
  pipeline: undefined,
  logger: host.createLogger({ level: "silent" }),
  redactor: undefined,
  // What a server of tasks asks of the host when it is made (this process runs none).
  taskLeases: { holdMs: 0, hold: () => () => undefined, sweep: () => undefined },
  close: async () => undefined,
})();
mark("createServerFactory: the tools/list answer object and one SDK Server");
const answer = JSON.stringify({ jsonrpc: "2.0", id: 2, result: { tools: registry.listings } });
mark("JSON.stringify of the tools/list answer (what the transport writes)");
void serveHostStdio; // imported above only to count its cost, as serve.ts does
process.stdout.write(`${JSON.stringify({ stages, tools: registry.tools.size, answerBytes: answer.length })}\n`);
