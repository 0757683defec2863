// Discovery "search" against "all", on a composition of real tools: the bundled skills and the tool definitions of
// 40 public MCP servers (the official reference servers and servers of services; bench/discovery/README.md names each
// with its version and license), recorded as fixtures and served in this process (bench/discovery/fixture-client.mjs).
// Measured through the host as a client meets it (the SDK client on an in-memory connection):
// - the tokens of tools/list (o200k_base, gpt-tokenizer) with "all" and with "search", and of one search's answer;
// - how often search_tools finds the tool a task needs: recall@1, recall@5 and MRR (over the first 10) for the tasks in
//   bench/discovery/tasks.json, which the ranking may be tuned on, and apart for bench/discovery/held-out.json, never
//   tuned on, and bench/discovery/held-out-2.json, a second held-out set written before the ranking was tuned again;
// - at 5,000 tools (the real ones repeated under other server ids): search_tools' latency (p50, p99) through the
//   client and of the index alone, and how long building the index takes.
// Writes its section of bench/RESULTS.md. Run with `pnpm bench` or `node bench/discovery.mjs [--rounds 20] [--no-write]`.
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { createHost, createLogger, parseManifest } from "@skillport/host";
import { buildToolIndex, loadRanking } from "@skillport/host/surface";
import { connectInMemory } from "@skillport/host/testing";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { fixtureClient, fixtureTools } from "./discovery/fixture-client.mjs";
import { WROTE, writeSection } from "./results-file.mjs";
import { flag } from "./run-options.mjs";

const HEADING = "# Discovery: tools/list tokens, search recall and latency";
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = flag("--rounds", 20);
const BUILDS = flag("--builds", 7);
const LARGE = 5000;
const started = performance.now();

const SOURCES = readdirSync(path.join(HERE, "discovery/fixtures"))
  .filter((name) => name.endsWith(".json"))
  .map((name) => JSON.parse(readFileSync(path.join(HERE, "discovery/fixtures", name), "utf8")).source)
  .sort((a, b) => a.id.localeCompare(b.id));
const readTasks = (file) => JSON.parse(readFileSync(path.join(HERE, "discovery", file), "utf8")).tasks;
const TASKS = readTasks("tasks.json");
const HELD_OUT = readTasks("held-out.json");
const HELD_OUT_2 = readTasks("held-out-2.json");

// The bundled skills, as the default manifest configures them; the GitHub skill's token is a dummy (nothing is called).
process.env.GITHUB_TOKEN ??= "bench-dummy-token-0123456789";
const SKILLS = [
  {
    package: "@skillport/skill-notes",
    mcp: "notes",
    config: {
      vault: "../examples/vault",
      scopes: { "ai-agent": ["AI-Agent"], "all-allowed": ["AI-Agent", "Learning", "Projects", "Tasks"] },
      tasksFolder: "Tasks",
    },
  },
  { package: "@skillport/skill-files", mcp: "files", config: { roots: ["../examples/workspace"] } },
  {
    package: "@skillport/skill-shell",
    mcp: "shell",
    config: { commands: ["git", "ls"], roots: ["../examples/workspace"], env: { PATH: "/usr/bin:/bin" } },
    allow: ["run_command"],
  },
  {
    package: "@skillport/skill-github",
    mcp: "github",
    credentials: { token: { env: "GITHUB_TOKEN" } },
    config: { repos: ["your-org/your-repo"] },
  },
];

/**
 * A host over the bundled skills and every fixture server under its own id, and `copies` more servers that each
 * list every fixture's tools again, renamed (`copy2.linear_linear_createIssue`).
 */
async function hostOf(discovery, copies = 0) {
  const servers = SOURCES.map(({ id }) => ({ mcp: id, command: "fixture", args: [id] }));
  for (let copy = 2; copy < copies + 2; copy++) servers.push({ mcp: `copy${copy}`, command: "fixture", args: ["*"] });
  const manifest = parseManifest(
    { name: "discovery-bench", version: "1.0.0", discovery, skills: SKILLS, servers },
    path.join(HERE, "discovery.manifest.json"),
  );
  const host = await createHost({ manifest, client: fixtureClient, logger: createLogger({ level: "silent" }) });
  const client = new Client({ name: "discovery-bench", version: "0" });
  await client.connect(await connectInMemory(host));
  return { host, client };
}

const tokensOf = (value) => countTokens(JSON.stringify(value));
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
};
const median = (values) => percentile(values, 0.5);
const search = async (client, query, limit) => {
  const result = await client.callTool({ name: "search_tools", arguments: { query, limit } });
  if (result.isError) throw new Error(`search_tools failed for "${query}": ${result.content[0]?.text}`);
  return result;
};

/** Recall@1, recall@5 and MRR over the first 10 of a task set, and the tasks whose tool is not in the first 5. */
async function recallOf(client, tasks) {
  let first = 0;
  let five = 0;
  let reciprocal = 0;
  const missed = [];
  for (const { task, tools } of tasks) {
    const found = (await search(client, task, 10)).structuredContent.data.tools.map((t) => t.name);
    const rank = found.findIndex((name) => tools.includes(name));
    if (rank === 0) first++;
    if (rank >= 0 && rank < 5) five++;
    if (rank >= 0) reciprocal += 1 / (rank + 1);
    if (rank < 0 || rank >= 5) missed.push({ task, expected: tools[0], got: found.slice(0, 3) });
  }
  const n = tasks.length;
  return { n, r1: first / n, r5: five / n, mrr: reciprocal / n, missed };
}

// --- 1. tokens and recall at the real composition ---
const all = await hostOf("all");
const real = await hostOf("search");
const listAll = await all.client.listTools();
const listSearch = await real.client.listTools();
const toolCount = listAll.tools.length;
const tokensAll = tokensOf({ tools: listAll.tools });
const tokensSearch = tokensOf({ tools: listSearch.tools });
const answers = [];
for (const { task } of TASKS.slice(0, 50)) answers.push(tokensOf((await search(real.client, task, 5)).content));
const main = await recallOf(real.client, TASKS);
const heldOut = await recallOf(real.client, HELD_OUT);
const heldOut2 = await recallOf(real.client, HELD_OUT_2);
await all.client.close();
await all.host.close();
await real.client.close();
await real.host.close();
console.log(`${toolCount} tools: tools/list ${tokensAll} tokens with "all", ${tokensSearch} with "search"`);
for (const [label, r] of [
  ["tasks", main],
  ["held-out", heldOut],
  ["held-out-2", heldOut2],
]) {
  console.log(`${label}: recall@1 ${r.r1.toFixed(3)}, recall@5 ${r.r5.toFixed(3)}, MRR ${r.mrr.toFixed(3)} (${r.n})`);
}

// --- 2. latency and build time at 5,000 tools ---
// Enough copies for LARGE tools.
const copies = Math.ceil((LARGE - toolCount) / fixtureTools("*").length);
const large = await hostOf("search", copies);
const largeCount = large.host.registry.tools.size;
const queries = [...TASKS, ...HELD_OUT].map((t) => t.task);
let at = performance.now();
await search(large.client, queries[0], 5);
const firstSearchMs = performance.now() - at;
// Wall-clock time, and the CPU time this process spent on each search (on a shared machine the wall clock also counts
// the time spent waiting for a core; the CPU time does not).
const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const throughClient = [];
const throughClientCpu = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const query of queries) {
    const cpu = process.cpuUsage();
    at = performance.now();
    await search(large.client, query, 5);
    throughClient.push(performance.now() - at);
    throughClientCpu.push(cpuMs(cpu));
  }
}
const ranking = await loadRanking();
const entries = [...large.host.registry.tools.values()];
const builds = [];
const buildCpu = [];
let index;
for (let i = 0; i < BUILDS; i++) {
  const cpu = process.cpuUsage();
  at = performance.now();
  index = buildToolIndex(ranking, entries, new Map());
  builds.push(performance.now() - at);
  buildCpu.push(cpuMs(cpu));
}
const bare = [];
const bareCpu = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const query of queries) {
    const cpu = process.cpuUsage();
    at = performance.now();
    index.search(query, 5);
    bare.push(performance.now() - at);
    bareCpu.push(cpuMs(cpu));
  }
}
await large.client.close();
await large.host.close();
const ms = (value) => value.toFixed(2);
console.log(
  `${largeCount} tools: search_tools p50 ${ms(median(throughClient))} ms, p99 ${ms(percentile(throughClient, 0.99))} ms (CPU p99 ${ms(percentile(throughClientCpu, 0.99))}); index alone p50 ${ms(median(bare))}, p99 ${ms(percentile(bare, 0.99))} (CPU p99 ${ms(percentile(bareCpu, 0.99))}); build median ${ms(median(builds))} ms (CPU ${ms(median(buildCpu))} ms)`,
);

// --- the section ---
const pct = (value) => `${(value * 100).toFixed(1)}%`;
const share = tokensSearch / tokensAll;
const cpus = os.cpus();
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(", ");
const verdict = (ok) => (ok ? "met" : "**not met**");
const p99Client = percentile(throughClient, 0.99);
const p99Bare = percentile(bare, 0.99);
const buildMedian = median(builds);
const sourceRows = SOURCES.map(
  (s) => `| ${s.id} | \`${s.package}\` | ${s.version} | ${s.license} | ${fixtureTools(s.id).length} |`,
);
const missedRows = (r) =>
  r.missed.map((m) => `| ${m.task} | \`${m.expected}\` | ${m.got.map((n) => `\`${n}\``).join(", ")} |`);
const text = `${HEADING}

\`node bench/discovery.mjs\` (in \`pnpm bench\`): a composition of ${toolCount} real tools — the bundled skills
(notes, files, shell, github) and the tools/list of ${SOURCES.length} public MCP servers recorded as fixtures
(bench/discovery/fixtures, listed below and in bench/discovery/README.md) — served by one host, once with
\`"discovery": "all"\` and once with \`"search"\`, each to the SDK client on an in-memory connection. Tokens are
o200k_base (gpt-tokenizer) of the JSON a client receives. Recall is over ${main.n} tasks written from the tools'
documentation and how people ask (bench/discovery/tasks.json; the ranking may be tuned on them) and, apart, over
${heldOut.n} held-out tasks written the same way before any tuning and never tuned on (held-out.json), and
${heldOut2.n} more written before the ranking was tuned again, mostly for tools no other set names (held-out-2.json); a task
counts as found when any tool that does it is in the first 1 or 5 results; MRR is over the first 10. Latency and the
index build are at ${largeCount} tools (the real ones repeated under other server ids), ${ROUNDS} rounds of every
task: search_tools through the client (JSON-RPC in memory, the envelope, redaction) and the index alone.

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load} (the machine is shared: wall-clock times include waiting for a core).
The run took ${Math.round((performance.now() - started) / 1000)} s.

| figure | value | target | |
| --- | ---: | ---: | --- |
| tools/list with "all", ${toolCount} tools | ${tokensAll.toLocaleString("en-US")} tokens | | |
| tools/list with "search" (${listSearch.tools.length} tools) | ${tokensSearch.toLocaleString("en-US")} tokens (${pct(share)} of "all") | at most 3% | ${verdict(share <= 0.03)} |
| one search's answer (5 tools, median of 50 tasks) | ${median(answers).toLocaleString("en-US")} tokens | | |
| recall@1, tasks (${main.n}) | ${main.r1.toFixed(3)} | | |
| recall@5, tasks | ${main.r5.toFixed(3)} | at least 0.90 | ${verdict(main.r5 >= 0.9)} |
| MRR, tasks | ${main.mrr.toFixed(3)} | | |
| recall@1, held-out (${heldOut.n}) | ${heldOut.r1.toFixed(3)} | | |
| recall@5, held-out | ${heldOut.r5.toFixed(3)} | at least 0.90 | ${verdict(heldOut.r5 >= 0.9)} |
| MRR, held-out | ${heldOut.mrr.toFixed(3)} | | |
| recall@1, second held-out (${heldOut2.n}) | ${heldOut2.r1.toFixed(3)} | | |
| recall@5, second held-out | ${heldOut2.r5.toFixed(3)} | at least 0.90 | ${verdict(heldOut2.r5 >= 0.9)} |
| MRR, second held-out | ${heldOut2.mrr.toFixed(3)} | | |
| search_tools at ${largeCount} tools, through the client: p50 / p99, wall clock | ${ms(median(throughClient))} / ${ms(p99Client)} ms | p99 at most 5 ms | ${verdict(p99Client <= 5)} |
| the same, CPU time of the process: p50 / p99 | ${ms(median(throughClientCpu))} / ${ms(percentile(throughClientCpu, 0.99))} ms | p99 at most 5 ms | ${verdict(percentile(throughClientCpu, 0.99) <= 5)} |
| the index's search alone: p50 / p99, wall clock (CPU time) | ${ms(median(bare))} / ${ms(p99Bare)} ms (${ms(median(bareCpu))} / ${ms(percentile(bareCpu, 0.99))} ms) | | |
| the first search at ${largeCount} tools (loads the ranking's libraries, builds the index) | ${ms(firstSearchMs)} ms | | |
| index build at ${largeCount} tools: median / fastest of ${BUILDS}, wall clock | ${ms(buildMedian)} / ${ms(Math.min(...builds))} ms | at most 100 ms | ${verdict(buildMedian <= 100)} |
| the same, CPU time: median / least | ${ms(median(buildCpu))} / ${ms(Math.min(...buildCpu))} ms | at most 100 ms | ${verdict(median(buildCpu) <= 100)} |

The held-out sets: held-out.json's misses were listed in this file while the ranking was tuned a second time (more
everyday words and stop words, each server ranked by its tools' words), every choice made on tasks.json's figures.
Two word groups that each found one of its listed tasks and no task of tasks.json (internet → web, PR → pull) were
taken out again, but its figure is no longer as clean as when it was written. held-out-2.json was written and
committed before that tuning, and its figures were only printed, never chosen on: it is the cleaner check.

Tasks whose tool was not in the first 5 (the first 3 results shown):

| task | a tool that does it | found instead |
| --- | --- | --- |
${missedRows(main).join("\n")}

Held-out tasks whose tool was not in the first 5:

| task | a tool that does it | found instead |
| --- | --- | --- |
${missedRows(heldOut).join("\n")}

Second held-out tasks whose tool was not in the first 5:

| task | a tool that does it | found instead |
| --- | --- | --- |
${missedRows(heldOut2).join("\n")}

The servers whose published tool definitions make the composition (only their definitions are kept; no code):

| id | package | version | license | tools |
| --- | --- | --- | --- | ---: |
${sourceRows.join("\n")}
`;
writeSection(HEADING, text);
console.log(WROTE);
