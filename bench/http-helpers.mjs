// What the HTTP benchmarks share: requests in each protocol era, starting and stopping a server process, a check
// call, an autocannon round, and a process's CPU time.
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");

export const ERAS = {
  "2026-07-28": (name) => ({
    headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name },
    meta: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  }),
  "2025-11-25": () => ({ headers: {}, meta: {} }),
};

export function requestFor(era, name, extraHeaders) {
  const { headers, meta } = ERAS[era](name);
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
      ...extraHeaders,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: { text: "hello, benchmark" }, ...meta },
    }),
  };
}

/** Starts a server process whose stderr goes to a file, and resolves its URL from the "listening" line. */
export async function start(label, args, env = {}) {
  const log = path.join(os.tmpdir(), `skillport-bench-${label}-${process.pid}.log`);
  const fd = openSync(log, "w");
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", fd],
  });
  closeSync(fd);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const text = readFileSync(log, "utf8");
    const line = text.split("\n").find((l) => l.includes('"msg":"listening"'));
    if (line !== undefined) return { child, url: JSON.parse(line).url, log };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${label} did not start:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function stop(server) {
  server.child.kill("SIGTERM");
  await new Promise((resolve) => (server.child.exitCode !== null ? resolve() : server.child.once("exit", resolve)));
  rmSync(server.log, { force: true });
}

/** One call by hand first: a benchmark of error answers would measure nothing. */
export async function check(url, request) {
  const response = await fetch(url, request);
  const text = await response.text();
  if (response.status !== 200 || !text.includes("hello, benchmark") || text.includes('"isError":true')) {
    throw new Error(`a check call to ${url} failed (${response.status}): ${text.slice(0, 300)}`);
  }
}

export function run(url, request, connections, duration) {
  return autocannon({ url, connections, duration, pipelining: 1, ...request });
}

/** CPU time (user + system) a process has used, in ms, from /proc; undefined where there is no /proc. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = 100;

export { median } from "./sequential-calls.mjs";
