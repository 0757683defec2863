// The cost of mounting an upstream MCP server in a Skillport manifest: one tools/call through the host's pipeline
// (lookup, validation against the upstream's published schema, limits, the envelope, redaction, audit) to an
// upstream server, against the same call made with the official SDK client directly to a second copy of the same
// server, in one run. The upstream is a raw-SDK echo server over stdio (bench/raw-sdk-stdio-server.mjs). The host is
// embedded (createHost, `host.pipeline.call`), so both paths cross exactly one stdio hop; a third row drives
// `skillport serve --stdio` with the SDK client, which adds the client-to-host hop, for reference.
// Calls are sequential (latency, not throughput), in interleaved rounds after a warm-up; each cell is the median
// over rounds of each round's p50 and p99. Writes its section of bench/RESULTS.md. Run with `pnpm bench` or
// `node bench/upstream-latency.mjs`.
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createHost, createLogger } from "@skillport/host";
import { WROTE, writeSection } from "./results-file.mjs";
import { median, timeCalls } from "./sequential-calls.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(HERE, "../packages/cli/bin/skillport.js");
const UPSTREAM = path.join(HERE, "raw-sdk-stdio-server.mjs");
const roundsFlag = process.argv.indexOf("--rounds");
const ROUNDS = roundsFlag === -1 ? 7 : Number(process.argv[roundsFlag + 1]);
const CALLS = 300;
const WARMUP = 300;
const ARGS = { text: "hello, benchmark" };

const manifestFile = path.join(os.tmpdir(), `skillport-upstream-bench-${process.pid}.manifest.json`);
await writeFile(
  manifestFile,
  JSON.stringify({
    name: "upstream-bench",
    skills: [],
    servers: [{ mcp: "up", command: process.execPath, args: [UPSTREAM], inheritEnv: [] }],
  }),
);

/** The SDK client, used the plain way. */
async function direct() {
  const client = new Client({ name: "bench-direct", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [UPSTREAM], stderr: "ignore" }));
  await client.listTools();
  return {
    call: async () => {
      const result = await client.callTool({ name: "bench.echo", arguments: ARGS });
      if (result.isError || result.structuredContent?.text !== ARGS.text) throw new Error("direct call failed");
    },
    close: () => client.close(),
  };
}

/** The same server mounted in a manifest, called through an embedded host's pipeline. */
async function viaHost() {
  const host = await createHost({
    manifest: manifestFile,
    logger: createLogger({ level: "silent" }),
    client: () => import("@skillport/client/node"),
  });
  return {
    call: async () => {
      const outcome = await host.pipeline.call("up.bench.echo", ARGS);
      if (!outcome.envelope.ok || outcome.envelope.data?.text !== ARGS.text) throw new Error("host call failed");
    },
    close: () => host.close(),
  };
}

/** The same, through `skillport serve --stdio` (two stdio hops: client → host → upstream). */
async function viaServe() {
  const client = new Client({ name: "bench-serve", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "--manifest", manifestFile],
      env: { ...process.env, SKILLPORT_LOG_LEVEL: "silent" },
      stderr: "ignore",
    }),
  );
  return {
    call: async () => {
      const result = await client.callTool({ name: "up.bench.echo", arguments: ARGS });
      if (result.isError || result.structuredContent?.data?.text !== ARGS.text) throw new Error("serve call failed");
    },
    close: () => client.close(),
  };
}

const targets = { direct: await direct(), host: await viaHost(), serve: await viaServe() };
const rounds = { direct: [], host: [], serve: [] };
try {
  for (const target of Object.values(targets)) await timeCalls(target, WARMUP);
  const names = Object.keys(targets);
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate which goes first, so a drift in the machine's load touches all alike.
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) rounds[name].push(await timeCalls(targets[name], CALLS));
  }
} finally {
  await Promise.all(Object.values(targets).map((t) => t.close()));
}

const cell = (name) => ({
  p50: median(rounds[name].map((r) => r.p50)),
  p99: median(rounds[name].map((r) => r.p99)),
});
const ratioOf = (name) => cell(name).p50 / cell("direct").p50;
const perRound = (name) => rounds[name].map((r, i) => r.p50 / rounds.direct[i].p50);
const ms = (n) => n.toFixed(3);
const row = (label, name) => {
  const c = cell(name);
  if (name === "direct") return `| ${label} | ${ms(c.p50)} / ${ms(c.p99)} | 1.00× | |`;
  const range = perRound(name);
  return `| ${label} | ${ms(c.p50)} / ${ms(c.p99)} | **${ratioOf(name).toFixed(2)}×** | ${Math.min(...range).toFixed(2)}×–${Math.max(...range).toFixed(2)}× |`;
};
const cpus = os.cpus();
const load = os
  .loadavg()
  .map((n) => n.toFixed(1))
  .join(", ");
const hostRatio = ratioOf("host");

const report = `# Upstream servers: a call through the host vs calling the upstream directly

\`pnpm bench\` (bench/upstream-latency.mjs) — one tools/call of an echo tool at a time to an upstream MCP server written
on the raw SDK (bench/raw-sdk-stdio-server.mjs, McpServer with zod schemas, over stdio), mounted in a manifest's
\`servers\`: once through a Skillport host's pipeline (\`createHost\` embedded, \`host.pipeline.call\`: the table
lookup, validation against the upstream's published schema, the concurrency slot and timeout, the envelope,
redaction and audit, then \`@skillport/client\`), once with the official SDK client directly, each to its own copy of
the server, in one run; both cross one stdio hop. For reference, a third row drives \`skillport serve --stdio\` with
the SDK client, which adds the client-to-host hop. ${ROUNDS} interleaved rounds of ${CALLS} sequential calls after
${WARMUP} warm-up calls each; each cell is the median over rounds of the round's p50 / p99, in ms.

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load}; the servers and the clients share the machine.

| path | p50 / p99 ms | p50 ÷ direct | per round |
| --- | ---: | ---: | ---: |
${row("SDK client → upstream (direct)", "direct")}
${row("host pipeline → upstream", "host")}
${row("SDK client → skillport serve --stdio → upstream", "serve")}

Latency ratio through the host: **${hostRatio.toFixed(2)}×** of calling the upstream directly (target: at most 1.15×):
the host adds ${Math.round((cell("host").p50 - cell("direct").p50) * 1000)} µs per call at the median. That is the cost of
the pipeline's stages, the same a skill's tool pays (an in-process skill call through \`host.pipeline.call\` takes
about 80 µs on this machine), set against an upstream that answers in well under a millisecond; against an upstream
doing real work (a file read, a network call) the ratio shrinks accordingly. The serve row pays a second process hop (a JSON-RPC round trip over a pipe each way), which no in-host work can
remove; it is there to show what a client of \`serve --stdio\` sees.
`;
writeSection("# Upstream servers: a call through the host vs calling the upstream directly", report);
process.stderr.write(`\n${WROTE} — host ÷ direct p50 ${hostRatio.toFixed(2)}×\n`);
