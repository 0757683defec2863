// In memory, in one run: the official SDK client calling a hand-written SDK McpServer, tmcp, and Skillport (1 and
// 500 tools, the full default pipeline with the audit line to a file), client and server in one process — no
// pipes: what each server's own code costs per call. The SDK servers and Skillport are reached through the SDK's
// InMemoryTransport; tmcp through a small bridge handing each message to its `server.receive()` (what its stdio
// transport does, without the pipe). Each measure of each server runs in a fresh process of its own (this file, run
// with `--measure <server> <client|bare|storage>`), so no server pays for another's leftovers: tmcp turns on an
// AsyncLocalStorage, whose promise hooks then slow every promise in the process. Rounds interleave the servers
// (order rotated each round); medians are reported, as ratios to the raw SDK and to tmcp of the same run. Besides the
// client's calls: raw JSON-RPC messages handed to the server without a client (the server's CPU alone), and the
// client's calls with an AsyncLocalStorage in use, as in an application with tracing. Writes its section of
// bench/RESULTS.md.
// `node bench/compare-memory.mjs [--quick] [--no-write]`.

import { AsyncLocalStorage } from "node:async_hooks";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { createHost, createLogger } from "@skillport/host";
import { connectInMemory } from "@skillport/host/testing";
import { createRawSdkServer } from "./compare/raw-sdk-server.mjs";
import { generateSkillport } from "./compare/skillport-skill.mjs";
import { createTmcpServer } from "./compare/tmcp-server.mjs";
import { PINNING_ONE_PROCESS, pinThisProcess } from "./cpu-pinning.mjs";
import { writeSection } from "./results-file.mjs";
import { flag, QUICK } from "./run-options.mjs";
import { median, timeCalls } from "./sequential-calls.mjs";

const ROUNDS = flag("--rounds", QUICK ? 3 : 7);
const CALLS = flag("--calls", QUICK ? 5000 : 20000);
// Long enough for every server's path to be compiled: the server alone (the "bare" measure) still cost Skillport
// 20-23 µs a call after 2,000 warm-up calls and 13-14 after 20,000 (tmcp 12-16 and 7-8).
const WARMUP = flag("--warmup", QUICK ? 5000 : 20000);
const HEADING = "# In memory: the raw SDK, tmcp and Skillport, each in one process with the SDK client";
const started = performance.now();

const MEASURE = process.argv.indexOf("--measure");

/** An SDK client transport that hands each message to tmcp's `server.receive()` and delivers its answer. */
function tmcpTransport(server) {
  const sessionInfo = {};
  server.on("initialize", ({ capabilities, clientInfo }) => {
    sessionInfo.clientCapabilities = capabilities;
    sessionInfo.clientInfo = clientInfo;
  });
  const transport = {
    async start() {},
    async close() {
      transport.onclose?.();
    },
    async send(message) {
      const answer = await server.receive(message, { sessionInfo });
      if (answer) transport.onmessage?.(answer);
    },
  };
  return transport;
}

/** Connects the SDK client to one server; answers how to call its echo tool and how to close it. */
async function open(server) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  let host;
  if (server.kind === "raw") {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.factory().connect(serverSide);
    await client.connect(clientSide);
  } else if (server.kind === "tmcp") {
    await client.connect(tmcpTransport(createTmcpServer(server.n, server.envelope)));
  } else {
    host = await createHost({ manifest: server.manifest, lock: "frozen", logger: createLogger({ level: "silent" }) });
    await client.connect(await connectInMemory(host));
  }
  await client.listTools();
  const params = { name: "bench.echo", arguments: { text: "hello" } };
  return {
    call: async () => {
      const result = await client.callTool(params);
      if (result.isError) throw new Error(`${server.id}: the call failed: ${JSON.stringify(result)}`);
    },
    close: async () => {
      await client.close();
      await host?.close();
    },
  };
}

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
};

/** Connects to one server without a client: answers how to send it a raw JSON-RPC message and await its answer. */
async function openBare(server) {
  let send;
  let host;
  if (server.kind === "tmcp") {
    const tmcp = createTmcpServer(server.n, server.envelope);
    const sessionInfo = {};
    send = (message) => tmcp.receive(message, { sessionInfo });
  } else {
    let clientSide;
    if (server.kind === "raw") {
      const [c, serverSide] = InMemoryTransport.createLinkedPair();
      await server.factory().connect(serverSide);
      clientSide = c;
    } else {
      host = await createHost({ manifest: server.manifest, lock: "frozen", logger: createLogger({ level: "silent" }) });
      clientSide = await connectInMemory(host);
    }
    // One request at a time, so one waiter: no Map gaining and losing an entry per call on this side either
    // (tmcp's receive() answers without one).
    let waiting = { id: undefined, resolve: () => undefined };
    clientSide.onmessage = (message) => {
      if (message.id !== waiting.id) return;
      const { resolve } = waiting;
      waiting = { id: undefined, resolve: () => undefined };
      resolve(message);
    };
    await clientSide.start();
    send = (message) =>
      message.id === undefined
        ? clientSide.send(message)
        : new Promise((resolve) => {
            waiting = { id: message.id, resolve };
            clientSide.send(message);
          });
  }
  await send(INIT);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  let id = 1;
  return {
    call: async () => {
      const answer = await send({
        jsonrpc: "2.0",
        id: id++,
        method: "tools/call",
        params: { name: "bench.echo", arguments: { text: "hello" } },
      });
      if (answer.error !== undefined || answer.result?.isError) {
        throw new Error(`${server.id}: the call failed: ${JSON.stringify(answer)}`);
      }
    },
    close: async () => {
      await host?.close();
    },
  };
}

/**
 * After the warm-up, before the timed calls: a full collection, so that what the first calls left (the client
 * compiling every tool's output schema on its first call, about 0.85 s at 500 tools; the server's start-up) is not
 * collected during the timed calls and billed to them.
 */
function settle() {
  globalThis.gc?.();
}

/**
 * One measure of one server, in this fresh process: "client" times the SDK client's calls, "bare" the server's CPU
 * without a client, "storage" the client's calls after an AsyncLocalStorage has been entered (its hooks then stay on
 * for the rest of the process, which is why each measure has a process of its own).
 */
async function measure(server, what) {
  if (what === "bare") {
    const bare = await openBare(server);
    for (let i = 0; i < WARMUP; i++) await bare.call();
    settle();
    const before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await bare.call();
    const cpu = process.cpuUsage(before);
    await bare.close();
    return { serverUs: (cpu.user + cpu.system) / CALLS };
  }
  if (what === "storage") new AsyncLocalStorage().enterWith({ request: "bench" });
  const target = await open(server);
  for (let i = 0; i < WARMUP; i++) await target.call();
  settle();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const { p50 } = await timeCalls(target, CALLS);
  const wallMs = performance.now() - wallBefore;
  const cpu = process.cpuUsage(cpuBefore);
  await target.close();
  if (what === "storage") return { alsP50: p50 };
  return { p50, perSecond: (CALLS / wallMs) * 1000, cpuUs: (cpu.user + cpu.system) / CALLS };
}

if (MEASURE !== -1) {
  // Client and server share this process: on one core, each measure meets the same placement (unpinned, the
  // scheduler moves the process and its helper threads between cores mid-run).
  pinThisProcess();
  const server = JSON.parse(process.argv[MEASURE + 1]);
  if (server.kind === "raw") server.factory = createRawSdkServer(1);
  process.stdout.write(JSON.stringify(await measure(server, process.argv[MEASURE + 2])));
  process.exit(0);
}

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "skillport-compare-memory-")));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

const skillport = (n) => {
  const folder = path.join(dir, `skillport-${n}`);
  mkdirSync(folder);
  return generateSkillport(folder, n);
};
const SERVERS = [
  { id: "raw", label: "raw SDK v2 McpServer", kind: "raw" },
  { id: "tmcp", label: "tmcp 1.20", kind: "tmcp", n: 1 },
  { id: "tmcp500", label: "tmcp 1.20, 500 tools", kind: "tmcp", n: 500 },
  { id: "tmcpEnv", label: "tmcp 1.20 answering Skillport's envelope", kind: "tmcp", n: 1, envelope: true },
  { id: "sp1", label: "**Skillport, 1 tool**", kind: "skillport", ...skillport(1) },
  { id: "sp500", label: "**Skillport, 500 tools**", kind: "skillport", ...skillport(500) },
];

const samples = new Map(SERVERS.map((s) => [s.id, []]));
const passOn = process.argv.slice(2).filter((arg) => arg !== "--no-write");
for (let round = 0; round < ROUNDS; round++) {
  const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length]);
  for (const server of order) {
    const { label, ...spec } = server;
    const sample = {};
    for (const what of ["client", "bare", "storage"]) {
      const args = ["--expose-gc", import.meta.filename, ...passOn, "--measure", JSON.stringify(spec), what];
      Object.assign(
        sample,
        JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })),
      );
    }
    samples.get(server.id).push(sample);
  }
}

// Every Skillport call wrote its audit line: the measured configuration kept it on.
for (const server of SERVERS.filter((s) => s.kind === "skillport")) {
  const lines = readFileSync(server.audit, "utf8").split("\n").filter(Boolean).length;
  const expected = 3 * ROUNDS * (WARMUP + CALLS);
  if (lines < expected) throw new Error(`${server.id}: ${lines} audit lines for ${expected} calls`);
}

const med = (id, key) => median(samples.get(id).map((s) => s[key]));
const rows = SERVERS.map((s) => ({
  ...s,
  p50: med(s.id, "p50"),
  perSecond: med(s.id, "perSecond"),
  cpuUs: med(s.id, "cpuUs"),
  serverUs: med(s.id, "serverUs"),
  alsP50: med(s.id, "alsP50"),
}));
const raw = rows.find((r) => r.id === "raw");
// Each row is set against tmcp serving as many tools (the client's work per call grows with the tools it holds).
const tmcpFor = (r) => rows.find((t) => t.id === (r.id === "sp500" ? "tmcp500" : "tmcp"));
const x = (a, b) => `${(a / b).toFixed(2)}×`;
const int = (v) => Math.round(v).toLocaleString("en-US");
const table = [
  "| server | call p50 µs | calls/s | CPU µs/call (client + server) | server alone, CPU µs/call | p50 with an AsyncLocalStorage, µs | p50 ÷ raw | calls/s ÷ raw | p50 ÷ tmcp | calls/s ÷ tmcp | server alone ÷ raw | server alone ÷ tmcp | with AsyncLocalStorage, p50 ÷ tmcp |",
  "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
  ...rows.map(
    (r) =>
      `| ${r.label} | ${int(r.p50 * 1000)} | ${int(r.perSecond)} | ${int(r.cpuUs)} | ${r.serverUs.toFixed(1)} | ${int(r.alsP50 * 1000)} | ${x(r.p50, raw.p50)} | ${x(r.perSecond, raw.perSecond)} | ${x(r.p50, tmcpFor(r).p50)} | ${x(r.perSecond, tmcpFor(r).perSecond)} | ${x(r.serverUs, raw.serverUs)} | ${x(r.serverUs, tmcpFor(r).serverUs)} | ${x(r.alsP50, tmcpFor(r).alsP50)} |`,
  ),
].join("\n");

const cpus = os.cpus();
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(", ");
const text = `${HEADING}

\`pnpm bench\` (bench/compare-memory.mjs${QUICK ? " --quick" : ""}) — the official SDK client and each server in one
process, over the SDK's \`InMemoryTransport\` (tmcp: its \`server.receive()\`, as its stdio transport calls it):
${WARMUP.toLocaleString("en-US")} warm-up echo calls, then ${CALLS.toLocaleString("en-US")} sequential ones timed one by one (before 2026-12-03: 2,000 and
10,000, when every server was still being compiled); ${ROUNDS} rounds, the servers interleaved,
each server in a fresh process of its own every round, and a full garbage collection between the warm-up and the
timed calls (the SDK client compiles every tool's output schema on its first call: at 500 tools about 0.85 s of
one-time work, whose garbage would otherwise be collected during the timed calls); each cell is the median over
rounds. Skillport runs the full default pipeline (validation, limits, the envelope with
its data checked, redaction with a token the skill holds, so the redactor has a secret to look for, the audit line
to an \`audit.file\`; the run checks every call's line is there). Since 2026-12-03 (second run that day),
${PINNING_ONE_PROCESS}: unpinned, the same server's "server alone" varied by a fifth between rounds. The
whole run took ${Math.round((performance.now() - started) / 1000)} s.

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load}.

${table}

CPU per call is this process's user + system time over the timed calls: the client's share is the same for every
server that answers the same bytes, so differences there are the servers'. Skillport answers its result envelope
(~300 bytes for this echo, checked by the client against a larger output schema, against tmcp's ~100): "tmcp 1.20
answering Skillport's envelope" serves that same answer, so the client's share is Skillport's. The ÷ tmcp columns set
each row against tmcp serving as many tools. "Server alone" takes the client away: after each client run, the same
number of tools/call messages, built by hand, are handed to the server the same way (tmcp's \`receive()\`, the SDK's
in-memory transport) and each answer awaited, so the CPU per call is the server's own work (Skillport's full
pipeline included, its audit lines counted in the check above).

Each server runs in a process of its own because one server's leftovers slow the next: tmcp enters an
\`AsyncLocalStorage\` for every message, and from then on Node runs a hook for every promise the process makes, the
other servers' included (before this change, when every server shared the bench's process, Skillport measured 1.26-1.44×
tmcp's p50 in memory; alone in its process, within a few percent of it). The last column measures that case on purpose: the same client
calls after an \`AsyncLocalStorage\` has been entered, as in an application with tracing (OpenTelemetry and most
request-context libraries use one). There the cost of a call grows with the promises it makes.
`;
process.stdout.write(`${table}\n`);
writeSection(HEADING, text);
