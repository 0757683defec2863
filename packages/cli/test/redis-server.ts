// A real redis-server for the CLI's tests (the host's tests have the same helper): one per test file, on a free
// loopback port, without persistence. Without redis-server the tests are skipped, except in CI, where they fail.
import type { ChildProcess } from "node:child_process";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

const CI = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";
const HAS_REDIS = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

/** True when Redis tests should be skipped: no redis-server, and not in CI (where its absence fails them). */
export const SKIP_REDIS = !HAS_REDIS && !CI;

export interface RedisServer {
  port: number;
  /** Stops it with SIGKILL (an outage, not a shutdown). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

/** Starts redis-server on a free loopback port; `args` are added (e.g. `--requirepass`). */
export async function startRedis(args: string[] = []): Promise<RedisServer> {
  if (!HAS_REDIS) throw new Error("redis-server is not installed (apt-get install redis-server); .ci/run installs it");
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()));
    });
  });
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      let output = "";
      const flags = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...args];
      child = spawn("redis-server", flags, { stdio: ["ignore", "pipe", "pipe"] });
      child.stdout?.on("data", (data: Buffer) => {
        output += data.toString();
        if (output.includes("Ready to accept connections")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)));
    });
  await start();
  return {
    port,
    start,
    async stop() {
      const proc = child;
      if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once("exit", resolve));
      proc.kill("SIGKILL");
      await exited;
    },
  };
}
