import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { hasTool, missingTool } from "./needs.js";

/** A redis-server child on 127.0.0.1:`port`, without persistence. */
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

/**
 * Starts a redis-server for one test file on a free loopback port; `args` are added to its command line (e.g.
 * `["--requirepass", secret]`). Where redis-server is missing this throws, so a test that is not skipped fails: guard
 * the suite with `describe.skipIf(skipWithout("redis-server"))`.
 *
 * @example
 * const redis = await startRedis();
 * onTestFinished(() => redis.stop());
 */
export async function startRedis(args: readonly string[] = []): Promise<RedisServer> {
  if (!hasTool("redis-server")) throw missingTool("redis-server");
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = "";
  const start = () =>
    new Promise<void>((resolve, reject) => {
      output = "";
      const flags = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
      const proc = spawn("redis-server", [...flags, "--maxmemory-policy", "noeviction", ...args], {
        stdio: ["ignore", "pipe", "pipe"],
      });
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
    start,
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
