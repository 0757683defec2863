// tools/call throughput over HTTP with the shared state store in Redis against the default memory store: the same
// `skillport serve --http` over bench/bench.manifest.json twice, one with SKILLPORT_STATE_URL pointing at a
// redis-server started here (loopback, no persistence), one without. With Redis, every request's rate-limit check is a
// Lua script round trip. Interleaved short rounds at each concurrency, medians reported, with CPU time per call of
// each server and of redis-server (Linux). Writes its section of bench/RESULTS.md. Run with `pnpm bench`.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { check, cpuMs, median, ROOT, requestFor, run, start, stop } from "./http-helpers.mjs";
import { WROTE, writeSection } from "./results-file.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CONCURRENCY = [1, 16, 64];
const durationFlag = process.argv.indexOf("--duration");
const DURATION_S = durationFlag === -1 ? 3 : Number(process.argv[durationFlag + 1]);
const ROUNDS = 3;
const WARMUP_S = 2;
const ERA = "2026-07-28";
const TOKEN = randomBytes(24).toString("hex");
const HEADING = "# Shared state: the Redis store vs the memory store (HTTP)";

const port = await new Promise((resolve, reject) => {
  const server = createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
  server.once("error", reject);
});
const redis = spawn(
  "redis-server",
  ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
  { stdio: ["ignore", "pipe", "pipe"] },
);
await new Promise((resolve, reject) => {
  let out = "";
  redis.stdout.on("data", (d) => {
    out += d;
    if (out.includes("Ready to accept connections")) resolve();
  });
  redis.once("error", (error) => reject(new Error(`redis-server could not start (${error.message}); install it`)));
  redis.once("exit", (code) => reject(new Error(`redis-server exited with ${code}:\n${out}`)));
});

const serve = (label, env) =>
  start(
    label,
    [
      path.join(ROOT, "packages/cli/bin/skillport.js"),
      "serve",
      "--http",
      "--port",
      "0",
      "--manifest",
      path.join(HERE, "bench.manifest.json"),
    ],
    { SKILLPORT_BENCH_TOKEN: TOKEN, SKILLPORT_LOG_LEVEL: "info", SKILLPORT_STATE_URL: "", ...env },
  );

const NAMES = ["memory", "redis"];
const rows = [];
let servers;
try {
  servers = {
    memory: await serve("state-memory", {}),
    redis: await serve("state-redis", { SKILLPORT_STATE_URL: `redis://127.0.0.1:${port}/0` }),
  };
  const request = requestFor(ERA, "bench.echo", { authorization: `Bearer ${TOKEN}` });
  for (const name of NAMES) {
    await check(servers[name].url, request);
    await run(servers[name].url, request, 16, WARMUP_S);
  }
  for (const connections of CONCURRENCY) {
    const rounds = { memory: [], redis: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of NAMES) {
        const before = cpuMs(servers[name].child.pid);
        const redisBefore = cpuMs(redis.pid);
        const r = await run(servers[name].url, request, connections, DURATION_S);
        const after = cpuMs(servers[name].child.pid);
        const redisAfter = cpuMs(redis.pid);
        rounds[name].push({
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          ok: r["2xx"],
          bad: r.non2xx + r.errors + r.timeouts,
          cpu: before === undefined || after === undefined ? undefined : after - before,
          redisCpu: redisBefore === undefined || redisAfter === undefined ? undefined : redisAfter - redisBefore,
        });
      }
    }
    const result = {};
    for (const name of NAMES) {
      const list = rounds[name];
      const ok = list.reduce((n, r) => n + r.ok, 0);
      const sum = (key) => (list.every((r) => r[key] !== undefined) ? list.reduce((n, r) => n + r[key], 0) : undefined);
      const perCall = (ms) => (ms === undefined || ok === 0 ? undefined : (ms * 1000) / ok);
      result[name] = {
        rps: median(list.map((r) => r.rps)),
        p50: median(list.map((r) => r.p50)),
        p99: median(list.map((r) => r.p99)),
        bad: list.reduce((n, r) => n + r.bad, 0),
        cpuUsPerCall: perCall(sum("cpu")),
        redisUsPerCall: perCall(sum("redisCpu")),
      };
      process.stderr.write(
        `c=${connections} ${name}: ${result[name].rps.toFixed(0)} req/s, p50 ${result[name].p50} ms, p99 ${result[name].p99} ms\n`,
      );
    }
    rows.push({ connections, ...result, ratio: result.redis.rps / result.memory.rps });
  }
} finally {
  if (servers !== undefined) await Promise.all(Object.values(servers).map(stop));
  redis.kill("SIGKILL");
}

const cpus = os.cpus();
const fmt = (n) => n.toLocaleString("en-US", { maximumFractionDigits: 0 });
const us = (n) => (n === undefined ? "–" : `${fmt(n)} µs`);
const table = rows
  .map(
    (r) =>
      `| ${r.connections} | ${fmt(r.memory.rps)} | ${r.memory.p50} / ${r.memory.p99} | ${fmt(r.redis.rps)} | ${r.redis.p50} / ${r.redis.p99} | **${r.ratio.toFixed(2)}×** | ${us(r.memory.cpuUsPerCall)} | ${us(r.redis.cpuUsPerCall)} | ${us(r.redis.redisUsPerCall)} | ${r.memory.bad + r.redis.bad} |`,
  )
  .join("\n");
const load = os
  .loadavg()
  .map((n) => n.toFixed(1))
  .join(", ");

const report = `${HEADING}

\`pnpm bench\` (bench/state-store.mjs) — the same \`skillport serve --http\` over bench/bench.manifest.json (the setup of
the first table) twice: with the default **memory** store, and with the **Redis** store (SKILLPORT_STATE_URL pointing at
a redis-server ${execVersion()} started by the benchmark on loopback, without persistence). With Redis each request's
rate-limit check is one Lua script round trip (the limit is set high enough never to refuse); tools/call of the echo
tool in the ${ERA} era, driven by autocannon at 1, 16 and 64 connections. Each cell is the median of ${ROUNDS} rounds
of ${DURATION_S} s, the two servers interleaved round by round (after a ${WARMUP_S} s warm-up each), all in one run.

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load}. Servers, Redis and load generator share the machine's cores.

| connections | memory req/s | memory p50 / p99 ms | Redis req/s | Redis p50 / p99 ms | throughput Redis ÷ memory | memory CPU/call | Redis-store CPU/call | redis-server CPU/call | failed requests |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${table}
`;
writeSection(HEADING, report);
process.stderr.write(`\n${WROTE} — Redis ÷ memory: ${rows.map((r) => r.ratio.toFixed(2)).join(", ")}\n`);

function execVersion() {
  const out = spawnSync("redis-server", ["--version"], { encoding: "utf8" }).stdout ?? "";
  return /v=([\d.]+)/.exec(out)?.[1] ?? "";
}
