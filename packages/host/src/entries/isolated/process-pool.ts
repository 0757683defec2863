import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { SandboxMount, SandboxStatus } from "@skillport/core/sandbox";
import { hostFile } from "../../package/package-files.js";
import { moduleMounts, orderMounts, packageDirOf } from "./process-mounts.js";
import type { Isolate, SpawnIsolate } from "./worker-pool.js";
import type { FromWorker, ToWorker } from "./worker-protocol.js";

/** The built child-process entry (tests, which run the sources, use it too). */
const PROCESS_URL = hostFile("dist/process.js");

/** What the child's stderr says when V8 gives up on its heap limit. */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit/;

/** Options for {@link processSpawner}. */
export interface ProcessSpawnerOptions {
  /**
   * Says whether bubblewrap works here.
   * @default sandboxAvailable from @skillport/core/sandbox (probed once per process)
   */
  sandbox?: () => Promise<SandboxStatus>;
}

/**
 * Starts one instance in a child process (`isolation: "process"`). The child's environment is empty: its setup,
 * with the credentials its skill reads itself, arrives as the first message on the IPC channel. Where bubblewrap
 * works, the child runs in a sandbox: no network, its own pid namespace and `/proc` (the host and its environment
 * are invisible), and of the file system only the system folders, node, the skill's package with its dependencies
 * (read-only) and the paths its config names (`format: "path"`, read-write). `ctx.fetch` runs in the host.
 */
export function processSpawner(options: ProcessSpawnerOptions = {}): SpawnIsolate {
  // The sandbox helpers load with the first child process: a composition without one never loads them.
  const sandboxStatus = options.sandbox ?? (async () => (await sandboxHelpers()).sandboxAvailable());
  return async (instance, setup, events) => {
    const { SYSTEM_PATHS, sandboxCommand } = await sandboxHelpers();
    const entry = realpathSync(fileURLToPath(setup.entryUrl));
    const main = realpathSync(fileURLToPath(PROCESS_URL));
    const node = realpathSync(process.execPath);
    const skillDir = packageDirOf(entry);
    const nodeArgs = [...(instance.memoryMb === undefined ? [] : [`--max-old-space-size=${instance.memoryMb}`]), main];
    const sandbox = await sandboxStatus();
    let run: { command: string; args: string[]; env: Record<string, string> };
    if (sandbox.available) {
      const mounts: SandboxMount[] = [
        ...moduleMounts(skillDir, { extra: ["@skillport/core"] }).map((p) => ({ path: p })),
        ...moduleMounts(path.dirname(main), { extra: ["@skillport/core"], declared: false }).map((p) => ({ path: p })),
        ...(SYSTEM_PATHS.some((p) => node.startsWith(`${p}/`)) ? [] : [{ path: node }]),
        ...instance.configPaths.filter((p) => existsSync(p)).map((p) => ({ path: p, writable: true })),
      ];
      run = sandboxCommand({
        bwrap: sandbox.bwrap,
        command: node,
        args: nodeArgs,
        cwd: skillDir,
        // Node finds its IPC channel (stdio slot 3 below) through these; bubblewrap passes nothing else.
        env: { NODE_CHANNEL_FD: "3", NODE_CHANNEL_SERIALIZATION_MODE: "advanced" },
        mounts: orderMounts(mounts),
        network: false,
      });
    } else {
      run = { command: node, args: nodeArgs, env: {} };
    }
    const child = spawn(run.command, run.args, {
      cwd: skillDir,
      env: run.env,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      serialization: "advanced",
      detached: true, // its own process group, killed as a whole
    });
    let tail = "";
    const output = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      tail = (tail + text).slice(-8192);
      events.output?.(text, stream);
    };
    child.stdout?.on("data", output("stdout"));
    child.stderr?.on("data", output("stderr"));
    let killed = false;
    child.on("message", (message: FromWorker) => events.message(message));
    child.on("error", (error) => events.failed(error, false));
    child.on("exit", (code, signal) => {
      if (!killed && (code !== 0 || signal !== null)) {
        const why = tail.trim().split("\n").at(-1) ?? "";
        events.failed(
          new Error(`the child process ended (${signal ?? `exit code ${code}`})${why === "" ? "" : `: ${why}`}`),
          OUT_OF_MEMORY.test(tail),
        );
      }
      events.exited();
    });
    const pipes = [child.stdout, child.stderr] as unknown as ({ ref?(): void; unref?(): void } | null)[];
    const isolate: Isolate = {
      post: (message: ToWorker) => {
        if (child.connected) child.send(message, (error) => error && undefined);
      },
      kill: () => {
        killed = true;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      },
      ref: () => {
        child.ref();
        child.channel?.ref();
        for (const pipe of pipes) pipe?.ref?.();
      },
      unref: () => {
        child.unref();
        child.channel?.unref();
        for (const pipe of pipes) pipe?.unref?.();
      },
    };
    isolate.post({ type: "setup", setup: { ...setup, entryUrl: pathToFileURL(entry).href } });
    return isolate;
  };
}

/** {@link processSpawner} with bubblewrap wherever it works. */
export const spawnProcess: SpawnIsolate = processSpawner();

// --- internal ---

const sandboxHelpers = () => import("@skillport/core/sandbox");
