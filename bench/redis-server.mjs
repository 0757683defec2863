// A redis-server for a benchmark: a free loopback port, no persistence, killed by the caller (`child.kill`).
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

/** Starts redis-server and resolves once it accepts connections: its process, URL, port and version. */
export async function startRedis() {
  const port = await new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.once("error", reject);
  });
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("Ready to accept connections")) resolve();
    });
    child.once("error", (error) => reject(new Error(`redis-server could not start (${error.message}); install it`)));
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}:\n${out}`)));
  });
  const version = /v=([\d.]+)/.exec(spawnSync("redis-server", ["--version"], { encoding: "utf8" }).stdout ?? "")?.[1];
  return { child, port, url: `redis://127.0.0.1:${port}/0`, version: version ?? "" };
}
