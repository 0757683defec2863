// The cost of the Tasks extension beside a plain call of the same tool: creating a task (tools/call answered with a
// task), one poll (tasks/get of a finished task, its result inlined), and end to end for a call that finishes at once
// (create, then tasks/get until it is completed, no wait between), against a plain call of a plain tool and a call
// of the task-capable tool that finishes within tasks.immediateMs (answered as a plain call, the task dropped).
// In process (the SDK client over the in-memory transport, 2025-11-25 era) and over Streamable HTTP on loopback
// (stateless 2026-07-28 requests by fetch, since the SDK client 2.4.0 reads no task). Hosts per task store: the
// memory store, and Redis once the host has a Redis task store (see taskStores below). Calls are sequential, in
// interleaved rounds after a warm-up; each cell is the median over rounds of the round's p50 / p99.
// Writes its section of bench/RESULTS.md. Run with `pnpm bench` or `node bench/tasks.mjs` (`--rounds 5`).
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import * as hostModule from "@skillport/host";
import { serveHostHttp } from "@skillport/host/http";
import { connectInMemory } from "@skillport/host/testing";
import { startRedis } from "./redis-server.mjs";
import { WROTE, writeSection } from "./results-file.mjs";
import { flag } from "./run-options.mjs";
import { median, timeCalls } from "./sequential-calls.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const HEADING = "# Tasks: creating and polling a task beside a plain call";
const ROUNDS = flag("--rounds", 5);
const CALLS = flag("--calls", 200);
const WARMUP = 200;
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const ARGS = { text: "hello, benchmark" };
const ERA = "2026-07-28";

/**
 * The task stores to measure, by name: a function answering the host's `tasks` option (undefined: the host's default
 * memory store), and what to stop after. A Redis task store joins once @skillport/host exports
 * `createRedisTaskStore({ url, prefix })`: a redis-server (loopback, no persistence) is started here for it when one
 * is on the PATH. Until then, or without redis-server, the section says the memory store only, and why.
 */
async function taskStores() {
  const stores = { memory: async () => undefined };
  if (typeof hostModule.createRedisTaskStore !== "function") {
    return { stores, stop: () => undefined, note: "the host exports no Redis task store yet" };
  }
  const redis = await startRedis().catch((error) => error);
  if (redis instanceof Error) return { stores, stop: () => undefined, note: redis.message };
  let hosts = 0;
  // Each host its own prefix: two hosts on one Redis would otherwise share their tasks.
  stores.redis = () => hostModule.createRedisTaskStore({ url: redis.url, prefix: `skillport-bench-${++hosts}:` });
  return { stores, stop: () => redis.child.kill("SIGKILL") };
}

/** A host over the bench's echo skill; `immediateMs` 0 makes a task of every echo_task call. */
async function hostOf(immediateMs, tasks) {
  const file = path.join(HERE, "tasks.bench.manifest.json");
  const manifest = hostModule.parseManifest(
    {
      name: "skillport-bench-tasks",
      version: "1.0.0",
      skills: [{ path: "./skill-task-echo", mcp: "bench" }],
      // Short-lived tasks: the store drops them soon after the run, so its 10,000-task bound is never reached.
      tasks: { immediateMs, ttlMs: 5000, maxActivePerCaller: 10_000 },
      http: { rateLimit: { requestsPerMinute: 100_000_000 } },
    },
    file,
  );
  const logger = hostModule.createLogger({ level: "silent" });
  return hostModule.createHost({ manifest, logger, ...(tasks === undefined ? {} : { tasks }) });
}

/** Requests in process: the SDK client over the in-memory transport, declaring the extension at initialize. */
async function inProcess(host) {
  const client = new Client(
    { name: "bench-tasks", version: "1.0.0" },
    { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
  await client.connect(await connectInMemory(host));
  const any = { "~standard": { version: 1, vendor: "bench", validate: (value) => ({ value }) } };
  return {
    request: (method, params) => client.request({ method, params }, any),
    close: () => client.close(),
  };
}

/** Requests over HTTP: one stateless 2026-07-28 request each, the extension declared in its envelope. */
async function overHttp(host) {
  const serving = await serveHostHttp(host, { port: 0 });
  let id = 0;
  return {
    async request(method, params) {
      const name = method === "tools/call" ? params.name : params.taskId;
      const response = await fetch(serving.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": ERA,
          "mcp-method": method,
          "mcp-name": name,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method,
          params: {
            ...params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": ERA,
              "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION]: {} } },
            },
          },
        }),
      });
      const text = await response.text();
      const body = JSON.parse(text.startsWith("event:") ? (text.split("data: ")[1] ?? "null") : text);
      if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
      return body.result;
    },
    close: () => serving.close({ graceMs: 0 }),
  };
}

/** The five operations timed on one transport: `plain` and `immediate` on one host, the task ones on another. */
function operations(shortcut, tasking) {
  const call = (target, name) => target.request("tools/call", { name, arguments: ARGS });
  const echoed = (result, what) => {
    if (result?.structuredContent?.data?.text !== ARGS.text) throw new Error(`${what}: ${JSON.stringify(result)}`);
  };
  let finished;
  const completed = async (taskId) => {
    for (;;) {
      const task = await tasking.request("tasks/get", { taskId });
      if (task.status === "completed") return task;
      if (task.status !== "working") throw new Error(`task: ${JSON.stringify(task)}`);
    }
  };
  return {
    /** A completed task for `poll` to read, made fresh (untimed) before each batch: tasks live 5 s here. */
    fresh: async () => {
      const created = await call(tasking, "bench.echo_task");
      finished = created.taskId;
      await completed(finished);
    },
    plain: async () => echoed(await call(shortcut, "bench.echo"), "plain"),
    immediate: async () => echoed(await call(shortcut, "bench.echo_task"), "immediate"),
    create: async () => {
      const created = await call(tasking, "bench.echo_task");
      if (typeof created.taskId !== "string") throw new Error(`create: ${JSON.stringify(created)}`);
    },
    poll: async () => {
      const task = await tasking.request("tasks/get", { taskId: finished });
      if (task.status !== "completed") throw new Error(`poll: ${JSON.stringify(task)}`);
    },
    endToEnd: async () => {
      const { taskId } = await call(tasking, "bench.echo_task");
      echoed((await completed(taskId)).result, "end to end");
    },
  };
}

const OPS = ["plain", "immediate", "create", "poll", "endToEnd"];
const rows = [];
const measured = await taskStores();
try {
  for (const [storeName, makeStore] of Object.entries(measured.stores)) {
    const shortcutHost = await hostOf(250, await makeStore());
    const taskHost = await hostOf(0, await makeStore());
    try {
      for (const [transport, open] of [
        ["in process", inProcess],
        ["HTTP", overHttp],
      ]) {
        const shortcut = await open(shortcutHost);
        const tasking = await open(taskHost);
        try {
          const ops = operations(shortcut, tasking);
          const batch = async (op, count) => {
            if (op === "poll") await ops.fresh();
            return timeCalls({ call: ops[op] }, count);
          };
          for (const op of OPS) await batch(op, WARMUP);
          const rounds = Object.fromEntries(OPS.map((op) => [op, []]));
          for (let round = 0; round < ROUNDS; round++) {
            // Rotate which goes first, so a drift in the machine's load touches all alike.
            const order = OPS.map((_, i) => OPS[(i + round) % OPS.length]);
            for (const op of order) rounds[op].push(await batch(op, CALLS));
          }
          const row = { store: storeName, transport };
          for (const op of OPS) {
            row[op] = { p50: median(rounds[op].map((r) => r.p50)), p99: median(rounds[op].map((r) => r.p99)) };
          }
          rows.push(row);
          process.stderr.write(
            `${storeName}, ${transport}: ${OPS.map((op) => `${op} p50 ${row[op].p50.toFixed(3)} ms`).join(", ")}\n`,
          );
        } finally {
          await shortcut.close();
          await tasking.close();
        }
      }
    } finally {
      await shortcutHost.close();
      await taskHost.close();
    }
  }
} finally {
  measured.stop();
}

const cpus = os.cpus();
const ms = (cell) => `${cell.p50.toFixed(3)} / ${cell.p99.toFixed(3)}`;
const table = rows
  .map(
    (r) =>
      `| ${r.store} | ${r.transport} | ${ms(r.plain)} | ${ms(r.immediate)} | ${ms(r.create)} | ${ms(r.poll)} | ${ms(r.endToEnd)} | **+${(r.endToEnd.p50 - r.plain.p50).toFixed(3)}** |`,
  )
  .join("\n");
const load = os
  .loadavg()
  .map((n) => n.toFixed(1))
  .join(", ");
const stores = rows.some((r) => r.store === "redis")
  ? "the memory store, and the Redis store on a redis-server started here (loopback, no persistence)"
  : `the memory store only (${measured.note}; see \`taskStores()\` in bench/tasks.mjs)`;

const report = `${HEADING}

\`pnpm bench\` (bench/tasks.mjs) — what the Tasks extension (SEP-2663) costs beside a plain call, for an echo tool
that answers at once (bench/skill-task-echo: \`echo\`, and the same \`echo_task\` declaring \`task: "optional"\`). Task
store: ${stores}. One call at a time; ${ROUNDS} rotated rounds of ${CALLS} calls of each operation after ${WARMUP}
warm-up calls each; each cell is the median over rounds of the round's p50 / p99, in ms.

- **plain**: tools/call of \`echo\`, a tool that never runs as a task.
- **immediate**: tools/call of \`echo_task\` from a client that declared the extension, on a host with the default
  \`tasks.immediateMs\` (250): the task is created, the call answers within it, so the client gets a plain answer
  and the task is dropped (what a fast call of a task-capable tool costs).
- **create**: the same call on a host with \`immediateMs: 0\`: the answer is the task (\`resultType: "task"\`).
- **poll**: tasks/get of a completed task (its result inlined).
- **end to end**: create, then tasks/get at once and again until completed (no poll interval: a client that waits
  adds its \`pollIntervalMs\`, 1 s by default, which dwarfs all of this).
- **in process**: the SDK client over the in-memory transport (2025-11-25 era, the extension declared at
  initialize). **HTTP**: \`serveHostHttp\` on loopback in the same process, one stateless 2026-07-28 request per
  call by \`fetch\` (the extension declared in each request's envelope).

Machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB,
${os.type()} ${os.release()}, Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average when the run ended: ${load}; the host and the client share one process.

| store | transport | plain p50 / p99 | immediate p50 / p99 | create p50 / p99 | poll p50 / p99 | end to end p50 / p99 | end to end − plain, p50 |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |
${table}

${rows
  .map(
    (r) =>
      `${r.store}, ${r.transport}: making the task costs ${(r.create.p50 - r.plain.p50).toFixed(3)} ms more than a plain call, the immediate shortcut ${(r.immediate.p50 - r.plain.p50).toFixed(3)} ms, one poll ${r.poll.p50.toFixed(3)} ms.`,
  )
  .join("\n")}
Sub-millisecond medians on a shared two-core machine move with scheduling: read the differences, not ratios.
`;
writeSection(HEADING, report);
process.stderr.write(`\n${WROTE}\n`);
