// Side by side over stdio, in one run: the floor (a bare JSON-RPC responder), a hand-written server on the official
// SDK's McpServer, tmcp, FastMCP, and Skillport with 1 and 500 tools (full default pipeline, the audit line on).
// Each server is spawned by the official SDK client, which lists its tools and then makes sequential echo calls.
// Per server: start → first tools/list, RSS after start and after the calls, per-call p50, calls/s and the server's
// CPU per call; then, at 2,000 tools, start, RSS and the size of the tools/list answer. Rounds interleave the
// servers (order rotated each round); medians are reported, as ratios to the raw SDK of the same run.
// Writes its section of bench/RESULTS.md. `pnpm bench` runs it in full; `pnpm bench:quick` (`--quick`) in < 3 min.
// `--tracing`: tmcp and Skillport with OpenTelemetry tracing off and on (every call sampled, exported over OTLP/HTTP
// to a sink process), in a section of its own; with `--baseline`, an earlier build's one-tool Skillport beside them.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { generateSkillport } from "./compare/skillport-skill.mjs";
import { PINNING, pinClient, pinServer } from "./cpu-pinning.mjs";
import { writeSection } from "./results-file.mjs";
import { flag, QUICK } from "./run-options.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, "..");
const CLI = path.join(ROOT, "packages/cli/bin/skillport.js");
const FIXTURES = path.join(HERE, "compare");
const SERVE_TIMES = pathToFileURL(path.join(FIXTURES, "serve-times.mjs")).href;
const ROUNDS = flag("--rounds", QUICK ? 3 : 7);
const CALLS = flag("--calls", QUICK ? 400 : 2000);
// Every server's hot path is compiled by V8 as it runs: pinned, tmcp's and Skillport's calls both settle to their steady
// time after 2,000 to 3,000 calls, Skillport's first ones (a longer path) slower. The timed calls start after that; the
// first calls are measured on their own.
const WARMUP = flag("--warmup", 3000);
const PAIRED_ROUNDS = flag("--paired-rounds", QUICK ? 2 : 5);
const PAIRED_BLOCKS = flag("--paired-blocks", QUICK ? 8 : 40);
const BLOCK = 50;
const EARLY_BLOCKS = flag("--early-blocks", 40);
const BIG = 2000;
const BIG_ROUNDS = flag("--big-rounds", QUICK ? 1 : 3);
const TRACING = process.argv.includes("--tracing");
const ONLY = TRACING
  ? ["tmcp", "sp1", "sp1traced"]
  : process.argv.includes("--only")
    ? process.argv[process.argv.indexOf("--only") + 1].split(",")
    : undefined;
const ENV = getDefaultEnvironment();
const started = performance.now();

// --- the servers ---------------------------------------------------------------------------------------------------

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "skillport-compare-")));
// `--keep` leaves the generated folder in place (and prints it), to profile one server by hand.
if (process.argv.includes("--keep")) process.stderr.write(`generated in ${dir}\n`);
else process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
// `--baseline <checkout>[,<checkout>…]`: other builds of Skillport (built checkouts, e.g. the commit before a change)
// served as well, over the same generated skill, and paired with tmcp like this build: old and new side by side in
// one run.
const BASELINES = process.argv.includes("--baseline")
  ? process.argv[process.argv.indexOf("--baseline") + 1].split(",").map((checkout) => {
      const root = path.resolve(checkout);
      const commit = execFileSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
      return { root, commit };
    })
  : [];
// Every build writes the manifest's audit.log; no two Skillport servers are ever measured at once.
const skillport = (n, cli = CLI) => {
  const folder = path.join(dir, `skillport-${n}`);
  return {
    manifest: path.join(folder, "skills.manifest.json"),
    audit: path.join(folder, "audit.log"),
    args: [cli, "serve", "--stdio", "--frozen-lock", "--manifest", path.join(folder, "skills.manifest.json")],
  };
};
const baseline = (n, { root }) => skillport(n, path.join(root, "packages/cli/bin/skillport.js"));
const fixture = (file, n) => ({ args: [path.join(FIXTURES, file), String(n)] });

const SERVERS = [
  { id: "floor", label: "bare JSON-RPC responder (the floor)", ...fixture("floor-server.mjs", 1), tool: "bench.echo" },
  { id: "raw", label: "raw SDK v2 McpServer", ...fixture("raw-sdk-server.mjs", 1), tool: "bench.echo" },
  { id: "tmcp", label: "tmcp 1.20 + @tmcp/transport-stdio", ...fixture("tmcp-server.mjs", 1), tool: "bench.echo" },
  { id: "tmcp500", label: "tmcp 1.20, 500 tools", ...fixture("tmcp-server.mjs", 500), tool: "bench.echo" },
  {
    id: "tmcpEnv",
    label: "tmcp 1.20 answering Skillport's envelope",
    args: [path.join(FIXTURES, "tmcp-server.mjs"), "1", "envelope"],
    tool: "bench.echo",
  },
  { id: "fastmcp", label: "FastMCP 4.20", ...fixture("fastmcp-server.mjs", 1), tool: "bench.echo" },
  { id: "sp1", label: "**Skillport, 1 tool**", ...skillport(1), tool: "bench.echo" },
  { id: "sp500", label: "**Skillport, 500 tools**", ...skillport(500), tool: "bench.echo" },
  ...(TRACING
    ? [
        {
          id: "sp1traced",
          label: "**Skillport, 1 tool, traced**",
          ...skillport(1),
          tool: "bench.echo",
          env: await tracingEnv(),
        },
      ]
    : []),
  ...BASELINES.flatMap((build, i) => [
    {
      id: `sp1base${i}`,
      label: `Skillport, 1 tool (build ${build.commit})`,
      ...baseline(1, build),
      tool: "bench.echo",
    },
    {
      id: `sp500base${i}`,
      label: `Skillport, 500 tools (build ${build.commit})`,
      ...baseline(500, build),
      tool: "bench.echo",
    },
  ]),
].filter((s) => ONLY === undefined || ONLY.includes(s.id) || (TRACING && s.id.startsWith("sp1base")));
const BIG_SERVERS = [
  { id: "raw", label: "raw SDK v2 McpServer", ...fixture("raw-sdk-server.mjs", BIG) },
  { id: "tmcp", label: "tmcp 1.20", ...fixture("tmcp-server.mjs", BIG) },
  { id: "sp", label: "**Skillport**", ...skillport(BIG) },
];

/**
 * The environment that turns Skillport's tracing on: every call sampled (the SDK's default sampler), exported over
 * OTLP/HTTP (protobuf, the default protocol) by the batch processor to a sink process on loopback, which reads each
 * export and answers 200.
 */
async function tracingEnv() {
  const sink = spawn(
    process.execPath,
    [
      "-e",
      `require("node:http").createServer((q, s) => { q.resume(); q.on("end", () => s.end()); })
        .listen(0, "127.0.0.1", function () { console.log(this.address().port); });`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  process.on("exit", () => sink.kill());
  const port = await new Promise((resolve) => sink.stdout.once("data", (chunk) => resolve(String(chunk).trim())));
  return { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };
}

// --- measuring -----------------------------------------------------------------------------------------------------

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
const TICK_MS = 1000 / 100; // USER_HZ
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
};
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const lines = (file) => {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
};

/**
 * Spawns a server with the SDK client and lists its tools; `call` makes one echo call. With `timesFile`, the server
 * writes there, when it exits, how long it took from reading each request to writing its answer (serve-times.mjs).
 */
async function open(server, timesFile) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args:
      timesFile === undefined
        ? server.args
        : ["--import", `${SERVE_TIMES}?out=${encodeURIComponent(timesFile)}`, ...server.args],
    env: server.env === undefined ? ENV : { ...ENV, ...server.env },
    stderr: "pipe",
  });
  const opened = { stderr: "" };
  transport.stderr?.on("data", (chunk) => {
    if (opened.stderr.length < 20_000) opened.stderr += chunk;
  });
  const client = new Client({ name: "compare-bench", version: "1.0.0" });
  const t0 = performance.now();
  try {
    await client.connect(transport);
    opened.listed = await client.listTools();
  } catch (error) {
    throw new Error(`${server.id} did not start: ${error.message}\n${opened.stderr}`);
  }
  opened.startMs = performance.now() - t0;
  opened.pid = transport.pid;
  opened.call = () => client.callTool({ name: server.tool, arguments: { text: "hello, world" } });
  opened.close = async () => {
    await client.close();
    for (let i = 0; i < 200 && alive(opened.pid); i++) await new Promise((r) => setTimeout(r, 10));
  };
  return opened;
}

/** The first echo call must answer the text (see checkEcho); then `WARMUP - 1` more. */
async function warmUp(server, opened) {
  await checkEcho(server, opened);
  for (let i = 1; i < WARMUP; i++) await opened.call();
}

/** One echo call, which must answer the text. */
async function checkEcho(server, opened) {
  const first = await opened.call();
  if (first.isError || JSON.stringify(first).indexOf("hello, world") === -1) {
    throw new Error(`${server.id}: unexpected echo answer ${JSON.stringify(first)}\n${opened.stderr}`);
  }
}

/** Every call the server answered has its audit line, once the server has exited. */
function checkAudit(server, opened, before, calls) {
  if (server.audit === undefined) return;
  const written = lines(server.audit) - before;
  if (written !== calls) throw new Error(`${server.id}: ${written} audit lines for ${calls} calls\n${opened.stderr}`);
}

/** Spawns a server with the SDK client, lists its tools, then (when calls > 0) calls echo sequentially. */
async function measure(server, calls) {
  const auditBefore = server.audit === undefined ? 0 : lines(server.audit);
  const opened = await open(server);
  const { pid, listed } = opened;
  const result = {
    startMs: opened.startMs,
    rssStart: rssKiB(pid),
    listBytes: Buffer.byteLength(JSON.stringify(listed)),
    tools: listed.tools.length,
  };
  if (calls > 0) {
    pinServer(pid);
    const pinned = pinClient();
    await warmUp(server, opened);
    const times = new Array(calls);
    const cpu0 = cpuMs(pid);
    const own0 = process.cpuUsage();
    const c0 = performance.now();
    for (let i = 0; i < calls; i++) {
      const s = performance.now();
      await opened.call();
      times[i] = performance.now() - s;
    }
    const totalMs = performance.now() - c0;
    result.cpuPerCallUs = ((cpuMs(pid) - cpu0) * 1000) / calls;
    const own = process.cpuUsage(own0);
    result.clientCpuPerCallUs = (own.user + own.system) / calls;
    result.p50 = median(times);
    result.perSecond = calls / (totalMs / 1000);
    result.rssAfter = rssKiB(pid);
    pinned.release();
  }
  await opened.close();
  if (calls > 0) checkAudit(server, opened, auditBefore, WARMUP + calls);
  return result;
}

/** Calls alternating between the opened servers in blocks (which goes first alternates too): each one's times and busy ms. */
async function alternate(opened, blocks) {
  const times = opened.map(() => []);
  const busyMs = opened.map(() => 0);
  for (let block = 0; block < blocks; block++) {
    for (const i of block % 2 === 0 ? [0, 1] : [1, 0]) {
      const b0 = performance.now();
      for (let k = 0; k < BLOCK; k++) {
        const s = performance.now();
        await opened[i].call();
        times[i].push(performance.now() - s);
      }
      busyMs[i] += performance.now() - b0;
    }
  }
  return opened.map((_, i) => ({ p50: median(times[i]), perSecond: (blocks * BLOCK) / (busyMs[i] / 1000) }));
}

/**
 * Two servers running at once, their calls alternating in blocks, so both meet the same moments of a shared machine:
 * the fairest ratio this machine can give. First the early calls (`EARLY_BLOCKS` blocks from each one's first call,
 * while V8 compiles its path), then `WARMUP` more calls each, then the timed blocks. Per server and window: p50 over
 * its calls and calls/s over the time its blocks took; for the timed blocks also its CPU per call and its serve time.
 */
async function paired(a, b, blocks) {
  const servers = [a, b];
  const before = servers.map((s) => (s.audit === undefined ? 0 : lines(s.audit)));
  const opened = [];
  const timesFiles = servers.map((s, i) => path.join(dir, `serve-times-${s.id}-${i}.txt`));
  for (const [i, server] of servers.entries()) opened.push(await open(server, timesFiles[i]));
  for (const o of opened) pinServer(o.pid);
  const pinned = pinClient();
  for (const [i, server] of servers.entries()) await checkEcho(server, opened[i]);
  const early = await alternate(opened, EARLY_BLOCKS);
  for (const o of opened) for (let i = 0; i < WARMUP; i++) await o.call();
  // a server waiting for its turn uses no CPU, so its time over the whole run is the time of its own calls
  const cpu0 = opened.map((o) => cpuMs(o.pid));
  const steady = await alternate(opened, blocks);
  const cpu = opened.map((o, i) => cpuMs(o.pid) - cpu0[i]);
  pinned.release();
  for (const o of opened) await o.close();
  const calls = 1 + (EARLY_BLOCKS + blocks) * BLOCK + WARMUP;
  for (const [i, server] of servers.entries()) checkAudit(server, opened[i], before[i], calls);
  // the server's own part of each timed call: the last blocks × BLOCK answers it wrote
  const serveUs = timesFiles.map((file) =>
    median(
      readFileSync(file, "utf8")
        .split("\n")
        .map(Number)
        .slice(-blocks * BLOCK),
    ),
  );
  return servers.map((_, i) => ({
    ...steady[i],
    serveUs: serveUs[i],
    cpuPerCallUs: (cpu[i] * 1000) / (blocks * BLOCK),
    early: early[i],
  }));
}

// --- the run -------------------------------------------------------------------------------------------------------

execFileSync(process.execPath, [CLI, "--version"], { stdio: "ignore" });
for (const n of [1, 500, BIG]) generateSkillport(path.join(dir, `skillport-${n}`), n);

const samples = new Map(SERVERS.map((s) => [s.id, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length]);
  // one discarded start per server before the first round, so no server pays for a cold disk cache
  if (round === 0) for (const server of order) await measure(server, 0);
  for (const server of order) samples.get(server.id).push(await measure(server, CALLS));
  process.stderr.write(`round ${round + 1}/${ROUNDS} done (${Math.round((performance.now() - started) / 1000)} s)\n`);
}
// Skillport and tmcp at the same size, paired (see `paired`): the per-call targets are judged on these ratios.
const PAIRS = [
  ["tmcp", "sp1"],
  ["tmcp", "sp1traced"],
  ["tmcp500", "sp500"],
  ["tmcpEnv", "sp1"],
  ...BASELINES.flatMap((_build, i) => [
    ["tmcp", `sp1base${i}`],
    ["tmcp500", `sp500base${i}`],
  ]),
].filter((ids) => ids.every((id) => SERVERS.some((s) => s.id === id)));
const pairKey = ([baseId, id]) => `${baseId}+${id}`;
const pairSamples = new Map(PAIRS.map((pair) => [pairKey(pair), []]));
for (let round = 0; round < PAIRED_ROUNDS; round++) {
  for (const pair of PAIRS) {
    const [base, ours] = await paired(...pair.map((x) => SERVERS.find((s) => s.id === x)), PAIRED_BLOCKS);
    pairSamples.get(pairKey(pair)).push({
      base,
      ours,
      p50: ours.p50 / base.p50,
      perSecond: ours.perSecond / base.perSecond,
      cpu: ours.cpuPerCallUs / base.cpuPerCallUs,
      serve: ours.serveUs / base.serveUs,
      earlyP50: ours.early.p50 / base.early.p50,
      earlyPerSecond: ours.early.perSecond / base.early.perSecond,
    });
  }
  process.stderr.write(
    `paired round ${round + 1}/${PAIRED_ROUNDS} done (${Math.round((performance.now() - started) / 1000)} s)\n`,
  );
}
const bigSamples = new Map(BIG_SERVERS.map((s) => [s.id, []]));
for (let round = 0; round < (TRACING ? 0 : BIG_ROUNDS); round++) {
  for (const server of BIG_SERVERS) bigSamples.get(server.id).push(await measure(server, 0));
}

const med = (id, key, from = samples) => median(from.get(id).map((s) => s[key]));
const rows = SERVERS.map((s) => ({
  ...s,
  p50: med(s.id, "p50"),
  perSecond: med(s.id, "perSecond"),
  startMs: med(s.id, "startMs"),
  rssStart: med(s.id, "rssStart"),
  rssAfter: med(s.id, "rssAfter"),
  cpuPerCallUs: med(s.id, "cpuPerCallUs"),
  clientCpuPerCallUs: med(s.id, "clientCpuPerCallUs"),
}));
const raw = rows.find((r) => r.id === "raw");
// Each row is set against tmcp serving as many tools (the client's work per call grows with the tools it holds).
const tmcpFor = (r) => rows.find((t) => t.id === (r.id.startsWith("sp500") ? "tmcp500" : "tmcp"));
const x = (value, base) => (base === undefined ? "–" : `${(value / base).toFixed(2)}×`);
const ms = (value) => value.toFixed(3);
const int = (value) => Math.round(value).toLocaleString("en-US");
const mib = (kib) => (kib / 1024).toFixed(1);

const table = [
  "| server | call p50 ms | calls/s | start → tools/list ms | RSS after start MiB | RSS after calls MiB | server CPU µs/call | client CPU µs/call | p50 ÷ raw | calls/s ÷ raw | start ÷ raw | RSS ÷ raw | p50 ÷ tmcp, same tools | calls/s ÷ tmcp, same tools |",
  "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
  ...rows.map(
    (r) =>
      `| ${r.label} | ${ms(r.p50)} | ${int(r.perSecond)} | ${int(r.startMs)} | ${mib(r.rssStart)} | ${mib(r.rssAfter)} | ${int(r.cpuPerCallUs)} | ${int(r.clientCpuPerCallUs)} | ${x(r.p50, raw?.p50)} | ${x(r.perSecond, raw?.perSecond)} | ${x(r.startMs, raw?.startMs)} | ${x(r.rssAfter, raw?.rssAfter)} | ${x(r.p50, tmcpFor(r)?.p50)} | ${x(r.perSecond, tmcpFor(r)?.perSecond)} |`,
  ),
].join("\n");
const pairRows = PAIRS.map(([baseId, id]) => {
  const list = pairSamples.get(pairKey([baseId, id]));
  const m = (pick) => median(list.map(pick));
  const span = (key) => {
    const values = list.map((p) => p[key]);
    return `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`;
  };
  return { id, baseId, m, span };
});
const label = (id) => SERVERS.find((s) => s.id === id).label;
const pairTable = [
  "| pair | tmcp p50 ms | Skillport p50 ms | tmcp calls/s | Skillport calls/s | tmcp CPU µs/call | Skillport CPU µs/call | tmcp serve µs | Skillport serve µs | p50 ÷ tmcp (rounds' span) | calls/s ÷ tmcp (span) | server CPU ÷ tmcp (span) | serve ÷ tmcp (span) |",
  "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
  ...pairRows.map(
    ({ id, baseId, m, span }) =>
      `| ${label(id)} with ${label(baseId)} | ${ms(m((p) => p.base.p50))} | ${ms(m((p) => p.ours.p50))} | ${int(m((p) => p.base.perSecond))} | ${int(m((p) => p.ours.perSecond))} | ${int(m((p) => p.base.cpuPerCallUs))} | ${int(m((p) => p.ours.cpuPerCallUs))} | ${int(m((p) => p.base.serveUs))} | ${int(m((p) => p.ours.serveUs))} | ${m((p) => p.p50).toFixed(2)}× (${span("p50")}) | ${m((p) => p.perSecond).toFixed(2)}× (${span("perSecond")}) | ${m((p) => p.cpu).toFixed(2)}× (${span("cpu")}) | ${m((p) => p.serve).toFixed(2)}× (${span("serve")}) |`,
  ),
].join("\n");
const earlyTable = [
  "| pair | tmcp p50 ms | Skillport p50 ms | tmcp calls/s | Skillport calls/s | p50 ÷ tmcp (rounds' span) | calls/s ÷ tmcp (span) |",
  "| --- | --: | --: | --: | --: | --: | --: |",
  ...pairRows.map(
    ({ id, baseId, m, span }) =>
      `| ${label(id)} with ${label(baseId)} | ${ms(m((p) => p.base.early.p50))} | ${ms(m((p) => p.ours.early.p50))} | ${int(m((p) => p.base.early.perSecond))} | ${int(m((p) => p.ours.early.perSecond))} | ${m((p) => p.earlyP50).toFixed(2)}× (${span("earlyP50")}) | ${m((p) => p.earlyPerSecond).toFixed(2)}× (${span("earlyPerSecond")}) |`,
  ),
].join("\n");
const bigRows = BIG_SERVERS.map((s) => ({
  ...s,
  startMs: med(s.id, "startMs", bigSamples),
  rssStart: med(s.id, "rssStart", bigSamples),
  listBytes: med(s.id, "listBytes", bigSamples),
}));
const bigRaw = bigRows.find((r) => r.id === "raw");
const bigTable = [
  "| server | start → tools/list ms | RSS after start MiB | tools/list answer KiB | start ÷ raw | RSS ÷ raw | bytes ÷ raw |",
  "| --- | --: | --: | --: | --: | --: | --: |",
  ...bigRows.map(
    (r) =>
      `| ${r.label} | ${int(r.startMs)} | ${mib(r.rssStart)} | ${int(r.listBytes / 1024)} | ${x(r.startMs, bigRaw.startMs)} | ${x(r.rssStart, bigRaw.rssStart)} | ${x(r.listBytes, bigRaw.listBytes)} |`,
  ),
].join("\n");

const cpus = os.cpus();
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(", ");
const seconds = Math.round((performance.now() - started) / 1000);
const baselineNote = BASELINES.map(
  (build) =>
    `\n- **Skillport (build ${build.commit})**: the same command from another built checkout (\`--baseline\`), over the same\n  skill: an earlier build, measured in the same run.`,
).join("");
const text = `# Side by side over stdio: the floor, the raw SDK, tmcp, FastMCP, Skillport

\`pnpm bench\` (bench/compare.mjs${QUICK ? " --quick" : ""}; \`pnpm bench:quick\` for a run under 3 minutes) — every server
spawned by the official SDK client (\`@modelcontextprotocol/client\`, \`StdioClientTransport\`), which connects, lists
the tools, makes ${WARMUP.toLocaleString("en-US")} warm-up echo calls (V8 has compiled every server's path by then: see "The
first calls" below) and then ${CALLS.toLocaleString("en-US")} sequential ones, timed one by one.
While calls are timed, ${PINNING}.
${ROUNDS} rounds, the servers interleaved (order rotated each round, one discarded start each first); each cell is the
median over rounds.
The whole run took ${seconds} s.

- **floor** (bench/compare/floor-server.mjs): readline + JSON.parse + JSON.stringify, no library, no checks.
- **raw SDK** (bench/compare/raw-sdk-server.mjs): \`McpServer\` + \`registerTool\` (zod input and output) + \`serveStdio\`.
- **tmcp** (bench/compare/tmcp-server.mjs): tmcp's \`McpServer\` with \`@tmcp/adapter-zod\`, \`@tmcp/transport-stdio\`;
  with 500 tools (the same fillers as Skillport's), and with one tool answering what Skillport's echo answers: its
  result envelope (\`ok\`, \`message\`, \`data\`, \`evidencePaths\`, \`warnings\`, \`meta\` with a trace id), advertised
  as its output schema, ~300 bytes against ~100, which the client parses and checks.
- **FastMCP** (bench/compare/fastmcp-server.mjs): \`FastMCP\` + \`addTool\` (zod input), \`start({ transportType: "stdio" })\`.
- **Skillport**: \`skillport serve --stdio --frozen-lock\` over a generated skill (echo plus filler tools with four-field
  inputs), the full default pipeline: input validation (ajv), limits (concurrency slot, timeout), the envelope with
  its \`data\` checked against the output schema, redaction, and the audit line, here to an \`audit.file\` (the run
  checks that every call's line is in it once the server has exited). The skill holds a token (a credential read from
  a file, as a skill that calls a service holds one), so the redactor knows a secret and looks for it in every answer
  and audit line; without one it has nothing to look for (before 2026-12-02 the runs had none).${baselineNote}

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load}; servers and client share the machine. Before 2026-12-03 the timed calls
came after 300 warm-up calls, inside every server's compiling (tmcp's included), and nothing was pinned: those runs'
per-call cells are not comparable with these.

${table}

"server CPU µs/call" is the server process's user + system time over the timed calls, divided by their number (from
/proc): on a shared machine it moves less than the wall-clock cells. "client CPU µs/call" is the bench process's own
(the SDK client's) over the same calls. The ÷ tmcp columns set each row against tmcp serving as many tools.

**Paired with tmcp** (the per-call targets are judged here): tmcp and Skillport serving the same number of tools run
at once, each spawned by its own SDK client in this process; their calls alternate in blocks of ${BLOCK} (which server
goes first alternates too), so both servers meet the same moments of the shared machine: ${EARLY_BLOCKS} blocks each
from the first call (the first calls, below), then ${WARMUP.toLocaleString("en-US")} warm-up calls each, then ${PAIRED_BLOCKS} timed blocks
each. ${PAIRED_ROUNDS} such runs per pair; each cell is the median over runs, with the span of the
ratio over runs. Calls/s is over the time each server's own blocks took; CPU per call is the server process's.
"Serve" is the server's own part of a call, the same few lines loaded into both (bench/compare/serve-times.mjs): the
median time from its JavaScript reading the request to its writing the answer. The client's p50 adds the wake-ups
on both sides to it, and those are not a fixed cost: a server that answers before the client's process has gone to
sleep spares the client a wake-up, so p50 moves in steps when the machine's scheduling does.

${pairTable}

**The first calls**: the same pairs over calls 2 to ${(1 + EARLY_BLOCKS * BLOCK).toLocaleString("en-US")} of each server (the first checks the
answer), while V8 compiles each server's path as it runs: both settle to their steady time after 2,000 to 3,000
calls, and Skillport's path (validation, limits, envelope, redaction, audit line) is longer, so its first calls cost more.

${earlyTable}

**At ${BIG.toLocaleString("en-US")} tools** (${BIG_ROUNDS} start${BIG_ROUNDS === 1 ? "" : "s"} each, median; Skillport with the lock; the answer's size is
the JSON of the tools/list result):

${bigTable}
`;
if (TRACING) {
  const off = rows.find((r) => r.id === "sp1");
  const on = rows.find((r) => r.id === "sp1traced");
  const tracingText = `# Tracing off and on (OpenTelemetry)

\`pnpm bench\` (bench/compare.mjs --tracing${QUICK ? " --quick" : ""}) — the same measurement as the side-by-side comparison
above, for tmcp and Skillport with one tool, and Skillport again with tracing on: \`OTEL_EXPORTER_OTLP_ENDPOINT\` set, the
SDK's default sampler (every call sampled), the batch span processor exporting OTLP/HTTP (protobuf) to a sink process
on loopback that reads each export and answers 200. Each traced call exports 11 spans (the request, eight stages,
redaction and audit). With tracing off (no \`OTEL_*\` variable) the SDK is not loaded and a call pays one branch.
${WARMUP.toLocaleString("en-US")} warm-up calls, then ${CALLS.toLocaleString("en-US")} timed; ${ROUNDS} rounds interleaved, medians; then ${PAIRED_ROUNDS} paired runs with tmcp.

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, shared with
other work (load average ${load} when the run ended). Date: ${new Date().toISOString().slice(0, 10)}. The run took ${seconds} s.

Tracing on costs ${int(on.cpuPerCallUs - off.cpuPerCallUs)} µs of server CPU per call (${x(on.cpuPerCallUs, off.cpuPerCallUs)} tracing off's: the server process's CPU
time, which a busy machine disturbs less than the wall-clock cells; the p50 is ${x(on.p50, off.p50)} tracing off's). Tracing off is
Skillport as it is measured in the side-by-side comparison above.${
    BASELINES.length === 0
      ? ""
      : ` The rows of an earlier build (\`--baseline\`, ${BASELINES.map((b) => b.commit).join(", ")}) are Skillport before tracing existed, measured in the same run: tracing off against them is what the branch costs.`
  }

${table}

${pairTable}
`;
  process.stdout.write(`${table}\n\n${pairTable}\n`);
  writeSection("# Tracing off and on (OpenTelemetry)", tracingText);
} else {
  process.stdout.write(`${table}\n\n${pairTable}\n\n${earlyTable}\n\n${bigTable}\n`);
  writeSection("# Side by side over stdio: the floor, the raw SDK, tmcp, FastMCP, Skillport", text);
}
