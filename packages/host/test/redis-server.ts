// A real redis-server for tests: one per test file, on a free loopback port, without persistence. Where the
// machine has no redis-server, tests that need it are skipped, except in CI (CI=true), where they fail: `.ci/run`
// installs it.
import type { ChildProcess } from "node:child_process";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

const CI = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";

/** Whether redis-server can run here. */
const HAS_REDIS = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

/** True when Redis tests should be skipped: no redis-server, and not in CI (where its absence fails them). */
export const SKIP_REDIS = !HAS_REDIS && !CI;

/** A redis-server child on 127.0.0.1:`port`. */
export interface RedisServer {
  port: number;
  url: string;
  /** Stops it (SIGKILL: an outage, not a shutdown) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with no data (no persistence), and waits until it accepts connections. */
  start(): Promise<void>;
  /** What it printed, for a failing test's message. */
  output(): string;
}

/** Starts a redis-server on a free loopback port. In CI without redis-server this throws, so the test fails. */
export async function startRedis(): Promise<RedisServer> {
  if (!HAS_REDIS) throw new Error("redis-server is not installed (apt-get install redis-server); .ci/run installs it");
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = "";
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn(
        "redis-server",
        [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--save",
          "",
          "--appendonly",
          "no",
          "--maxmemory-policy",
          "noeviction",
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      child = proc;
      const onData = (data: Buffer) => {
        output += data.toString();
        if (output.includes("Ready to accept connections")) resolve();
      };
      proc.stdout?.on("data", onData);
      proc.stderr?.on("data", onData);
      proc.once("exit", (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)));
    });
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const proc = child;
      if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGKILL");
      await exited;
    },
    async start() {
      output = "";
      await start();
    },
    output: () => output,
  };
}

// --- internal ---

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()));
    });
  });
}
