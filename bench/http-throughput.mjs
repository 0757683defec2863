// tools/call throughput and latency over HTTP: Skillport (`skillport serve --http` with bearer auth, scope check,
// server-side validation, rate limiting, metrics and a log line per request) against a minimal server on the raw
// SDK's createMcpHandler with the same echo tool. Both run as child processes on loopback; autocannon drives them
// in turn, several short rounds each, interleaved, at each concurrency and in both protocol eras; the medians are
// reported, with each server's CPU time per call (Linux) as a measure that machine load disturbs less.
// Writes its section of bench/RESULTS.md. Run with `pnpm bench`.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { check, cpuMs, ERAS, median, ROOT, requestFor, run, start, stop } from "./http-helpers.mjs";
import { WROTE, writeSection } from "./results-file.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CONCURRENCY = [1, 16, 64];
// `node bench/http-throughput.mjs --duration 2` for a quick look; the committed results use the default.
const durationFlag = process.argv.indexOf("--duration");
const DURATION_S = durationFlag === -1 ? 3 : Number(process.argv[durationFlag + 1]);
const ROUNDS = 3;
const WARMUP_S = 2;
const TOKEN = randomBytes(24).toString("hex");

// `--baseline <checkout>[,<checkout>…]`: other built checkouts of Skillport served too, interleaved with this build,
// over this build's bench manifest: old and new side by side in one run.
const BASELINES = process.argv.includes("--baseline")
  ? process.argv[process.argv.indexOf("--baseline") + 1].split(",").map((checkout) => {
      const root = path.resolve(checkout);
      const commit = execFileSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
      return { root, commit, name: `build ${commit}` };
    })
  : [];
const skillport = (root, name) =>
  start(
    name,
    [
      path.join(root, "packages/cli/bin/skillport.js"),
      "serve",
      "--http",
      "--port",
      "0",
      "--manifest",
      path.join(HERE, "bench.manifest.json"),
    ],
    { SKILLPORT_BENCH_TOKEN: TOKEN, SKILLPORT_LOG_LEVEL: "info" },
  );
const servers = {
  raw: await start("raw", [path.join(HERE, "raw-sdk-server.mjs")]),
  skillport: await skillport(ROOT, "skillport"),
};
for (const build of BASELINES) servers[build.name] = await skillport(build.root, build.name);
const NAMES = Object.keys(servers);

const rows = [];
try {
  for (const era of Object.keys(ERAS)) {
    const requests = {
      raw: requestFor(era, "bench.echo", {}),
      skillport: requestFor(era, "bench.echo", { authorization: `Bearer ${TOKEN}` }),
    };
    for (const build of BASELINES) requests[build.name] = requests.skillport;
    for (const name of NAMES) {
      await check(servers[name].url, requests[name]);
      await run(servers[name].url, requests[name], 16, WARMUP_S);
    }
    for (const connections of CONCURRENCY) {
      const rounds = Object.fromEntries(NAMES.map((name) => [name, []]));
      // Short rounds, interleaved, so changes in the machine's load touch every server alike.
      for (let round = 0; round < ROUNDS; round++) {
        for (const name of NAMES) {
          const before = cpuMs(servers[name].child.pid);
          const r = await run(servers[name].url, requests[name], connections, DURATION_S);
          const after = cpuMs(servers[name].child.pid);
          rounds[name].push({
            rps: r.requests.average,
            p50: r.latency.p50,
            p99: r.latency.p99,
            ok: r["2xx"],
            bad: r.non2xx + r.errors + r.timeouts,
            cpu: before === undefined || after === undefined ? undefined : after - before,
          });
        }
      }
      const result = {};
      for (const name of NAMES) {
        const list = rounds[name];
        const ok = list.reduce((n, r) => n + r.ok, 0);
        const cpu = list.every((r) => r.cpu !== undefined) ? list.reduce((n, r) => n + r.cpu, 0) : undefined;
        result[name] = {
          rps: median(list.map((r) => r.rps)),
          p50: median(list.map((r) => r.p50)),
          p99: median(list.map((r) => r.p99)),
          bad: list.reduce((n, r) => n + r.bad, 0),
          cpuUsPerCall: cpu === undefined || ok === 0 ? undefined : (cpu * 1000) / ok,
        };
        process.stderr.write(
          `${era} c=${connections} ${name}: ${result[name].rps.toFixed(0)} req/s, p50 ${result[name].p50} ms, p99 ${result[name].p99} ms` +
            `${result[name].cpuUsPerCall === undefined ? "" : `, ${result[name].cpuUsPerCall.toFixed(0)} µs CPU/call`}\n`,
        );
      }
      rows.push({ era, connections, ...result, ratio: result.skillport.rps / result.raw.rps });
    }
  }
} finally {
  await Promise.all(Object.values(servers).map(stop));
}

const cpus = os.cpus();
const fmt = (n) => n.toLocaleString("en-US", { maximumFractionDigits: 0 });
const worst = Math.min(...rows.map((r) => r.ratio));
const us = (n) => (n === undefined ? "–" : `${fmt(n)} µs`);
const cpuRatio = (r) =>
  r.raw.cpuUsPerCall === undefined || r.skillport.cpuUsPerCall === undefined
    ? "–"
    : `${(r.skillport.cpuUsPerCall / r.raw.cpuUsPerCall).toFixed(2)}×`;
const table = rows
  .map(
    (r) =>
      `| ${r.era} | ${r.connections} | ${fmt(r.raw.rps)} | ${r.raw.p50} / ${r.raw.p99} | ${fmt(r.skillport.rps)} | ${r.skillport.p50} / ${r.skillport.p99} | **${r.ratio.toFixed(2)}×** | ${us(r.raw.cpuUsPerCall)} | ${us(r.skillport.cpuUsPerCall)} | ${cpuRatio(r)} | ${r.raw.bad + r.skillport.bad} |`,
  )
  .join("\n");
const mean = rows.reduce((n, r) => n + r.ratio, 0) / rows.length;
const baselineTable =
  BASELINES.length === 0
    ? ""
    : `\n**Earlier builds in the same run** (\`--baseline\`: the same command from another built checkout, over this
build's manifest, interleaved with the servers above):

| era | connections | this build req/s | this build CPU/call | ${BASELINES.map((b) => `${b.name} req/s | ${b.name} CPU/call | this build ÷ ${b.name}`).join(" | ")} |
| --- | ---: | ---: | ---: | ${BASELINES.map(() => "---: | ---: | ---:").join(" | ")} |
${rows
  .map(
    (r) =>
      `| ${r.era} | ${r.connections} | ${fmt(r.skillport.rps)} | ${us(r.skillport.cpuUsPerCall)} | ${BASELINES.map((b) => `${fmt(r[b.name].rps)} | ${us(r[b.name].cpuUsPerCall)} | ${(r.skillport.rps / r[b.name].rps).toFixed(2)}×`).join(" | ")} |`,
  )
  .join("\n")}
`;
const load = os
  .loadavg()
  .map((n) => n.toFixed(1))
  .join(", ");

const report = `# HTTP benchmark: Skillport vs the raw SDK

\`pnpm bench\` (bench/http-throughput.mjs) — tools/call of one echo tool over Streamable HTTP on loopback, driven by
autocannon at 1, 16 and 64 connections, in both protocol eras. Each cell is the median of ${ROUNDS} rounds of
${DURATION_S} s, the two servers interleaved round by round (after a ${WARMUP_S} s warm-up each), all in one run.

- **Skillport**: \`skillport serve --http\` over bench/bench.manifest.json — bearer-token authentication (constant-time
  compare), a scope check, Host/Origin checks, the per-caller rate limiter (set high enough not to refuse), server-side
  argument validation (ajv), the result envelope with its data checked, redaction, Prometheus metrics, and the audit
  line of every call (on stderr at the info level, which the benchmark sends to a file), beside the request's log line.
- **Raw SDK**: bench/raw-sdk-server.mjs — \`createMcpHandler\` with an \`McpServer\` and the same tool (zod input and
  output schemas), bridged to node:http in the simplest way, no checks at all.

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load}. Servers and load generator share the machine; throughput moves with
whatever else runs on it, CPU time per call much less. Latency is in whole milliseconds (autocannon's resolution).

| era | connections | raw SDK req/s | raw p50 / p99 ms | Skillport req/s | Skillport p50 / p99 ms | throughput Skillport ÷ raw | raw CPU/call | Skillport CPU/call | CPU Skillport ÷ raw | failed requests |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${table}

Throughput ratio: lowest **${worst.toFixed(2)}×**, mean **${mean.toFixed(2)}×** of the raw SDK's (target, issue 15: at least
1.2× at 16 and 64 connections, with auth, validation and the audit line on).
${baselineTable}`;
writeSection("# HTTP benchmark: Skillport vs the raw SDK", report);
process.stderr.write(`\n${WROTE} — throughput ratio lowest ${worst.toFixed(2)}×, mean ${mean.toFixed(2)}×\n`);
