// The cost of the client and the hub: one tools/call through McpHub (@skillport/client) to an upstream MCP server
// against the same call made with the official SDK client directly, to a second copy of the same server, in one
// run. Upstreams: a raw-SDK echo server over stdio (bench/raw-sdk-stdio-server.mjs) and over Streamable HTTP
// (bench/raw-sdk-server.mjs). Calls are sequential (one in flight: latency, not throughput), in interleaved
// rounds after a warm-up; each row is the median over rounds of each round's p50 and p99.
// Writes its section of bench/RESULTS.md. Run with `pnpm bench` or `node bench/hub-latency.mjs`.
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { McpHub } from "@skillport/client";
import { connect } from "@skillport/client/node";
import { WROTE, writeSection } from "./results-file.mjs";
import { median, timeCalls } from "./sequential-calls.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const roundsFlag = process.argv.indexOf("--rounds");
const ROUNDS = roundsFlag === -1 ? 7 : Number(process.argv[roundsFlag + 1]);
const CALLS = 300;
const WARMUP = 300;
const ARGS = { text: "hello, benchmark" };

/** An HTTP upstream process; its URL comes from its "listening" line. */
async function startHttpUpstream() {
  const child = spawn(process.execPath, [path.join(HERE, "raw-sdk-server.mjs")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let text = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      text += chunk;
      const line = text.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line !== undefined) resolve(JSON.parse(line).url);
    });
    child.once("exit", (code) => reject(new Error(`the HTTP upstream exited with ${code}: ${text}`)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
}

/** The SDK client, used the plain way. */
async function direct(kind, url) {
  const client = new Client({ name: "bench-direct", version: "1.0.0" });
  const transport =
    kind === "stdio"
      ? new StdioClientTransport({
          command: process.execPath,
          args: [path.join(HERE, "raw-sdk-stdio-server.mjs")],
          stderr: "ignore",
        })
      : new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  await client.listTools();
  return {
    call: async () => {
      const result = await client.callTool({ name: "bench.echo", arguments: ARGS });
      if (result.isError || result.structuredContent?.text !== ARGS.text) throw new Error("direct call failed");
    },
    close: () => client.close(),
  };
}

/** The same server behind a hub of one. */
async function viaHub(kind, url) {
  const handle =
    kind === "stdio"
      ? connect({
          transport: "stdio",
          command: process.execPath,
          args: [path.join(HERE, "raw-sdk-stdio-server.mjs")],
          stderr: "ignore",
        })
      : connect({ transport: "http", url, protocol: "2025-11-25" });
  const hub = new McpHub({ up: handle });
  const started = await hub.start();
  if (!started.ok) throw new Error(started.error.message);
  return {
    call: async () => {
      const outcome = await hub.callTool("up.bench.echo", ARGS);
      if (!outcome.ok || outcome.result.structuredContent?.text !== ARGS.text) throw new Error("hub call failed");
    },
    close: () => hub.stop(),
  };
}

const rows = [];
const http = await startHttpUpstream();
try {
  for (const kind of ["stdio", "http"]) {
    const targets = { direct: await direct(kind, http.url), hub: await viaHub(kind, http.url) };
    try {
      for (const target of Object.values(targets)) await timeCalls(target, WARMUP);
      const rounds = { direct: [], hub: [] };
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first, so a drift in the machine's load touches both alike.
        const order = round % 2 === 0 ? ["direct", "hub"] : ["hub", "direct"];
        for (const name of order) rounds[name].push(await timeCalls(targets[name], CALLS));
      }
      const row = { kind };
      for (const name of ["direct", "hub"]) {
        row[name] = { p50: median(rounds[name].map((r) => r.p50)), p99: median(rounds[name].map((r) => r.p99)) };
      }
      row.ratio = row.hub.p50 / row.direct.p50;
      row.perRound = rounds.hub.map((r, i) => r.p50 / rounds.direct[i].p50);
      rows.push(row);
      process.stderr.write(
        `${kind}: direct p50 ${row.direct.p50.toFixed(3)} ms, hub p50 ${row.hub.p50.toFixed(3)} ms, ratio ${row.ratio.toFixed(3)}×\n`,
      );
    } finally {
      await Promise.all(Object.values(targets).map((t) => t.close()));
    }
  }
} finally {
  http.stop();
}

const cpus = os.cpus();
const ms = (n) => n.toFixed(3);
const table = rows
  .map(
    (r) =>
      `| ${r.kind} | ${ms(r.direct.p50)} / ${ms(r.direct.p99)} | ${ms(r.hub.p50)} / ${ms(r.hub.p99)} | **${r.ratio.toFixed(2)}×** | ${Math.min(...r.perRound).toFixed(2)}×–${Math.max(...r.perRound).toFixed(2)}× |`,
  )
  .join("\n");
const worst = Math.max(...rows.map((r) => r.ratio));
const load = os
  .loadavg()
  .map((n) => n.toFixed(1))
  .join(", ");

const report = `# Hub overhead: a call through McpHub vs the SDK client directly

\`pnpm bench\` (bench/hub-latency.mjs) — one tools/call of an echo tool at a time, to an upstream MCP server written on
the raw SDK (McpServer, zod schemas): once through \`McpHub\` (\`@skillport/client\`: the hub's name lookup, the
handle's lazy start check, the SDK client, the outcome as a value), once with the official SDK client directly, each
to its own copy of the server, in one run. ${ROUNDS} interleaved rounds of ${CALLS} sequential calls after ${WARMUP}
warm-up calls each; each cell is the median over rounds of the round's p50 / p99, in ms.

- **stdio**: bench/raw-sdk-stdio-server.mjs (\`serveStdio\`), spawned by each client.
- **http**: one bench/raw-sdk-server.mjs (\`createMcpHandler\` on node:http) shared by both clients, 2025-11-25 era.

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load}; the servers and both clients share the machine.

| upstream | SDK client p50 / p99 ms | through McpHub p50 / p99 ms | p50 hub ÷ direct | per round |
| --- | ---: | ---: | ---: | ---: |
${table}

Latency ratio: highest **${worst.toFixed(2)}×** of calling the upstream directly (target: at most 1.15×). Both paths run
the same SDK client code per call; the hub adds a map lookup and a few promise steps. On a shared two-core machine
sub-millisecond medians move with scheduling, so a ratio below 1× is noise, not a speed-up: read the per-round range.
`;
writeSection("# Hub overhead: a call through McpHub vs the SDK client directly", report);
process.stderr.write(`\n${WROTE} — hub ÷ direct p50, highest ${worst.toFixed(2)}×\n`);
