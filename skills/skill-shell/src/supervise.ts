import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { SkillError } from "@skillport/core";
import { descendantsOf, signalEach } from "./process-tree.js";

/** What to spawn: a program, or bubblewrap running it. */
export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** argv[0] as the program sees it, when it differs from `command`. */
  argv0?: string;
  /** True when `command` is bubblewrap: killing it ends everything in the sandbox. */
  sandboxed: boolean;
}

export interface SuperviseOptions {
  launch: Launch;
  cwd: string;
  timeoutMs: number;
  killGraceMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
  /** Called every few seconds while the command runs. */
  progress?: (elapsedMs: number, totalMs: number, message: string) => void;
  /** The command's name, for messages. */
  label: string;
}

/** How a supervised run ended. */
export interface Ended {
  exitCode: number | null;
  signal: string | null;
  stdout: Capture;
  stderr: Capture;
  stoppedBy: "timeout" | "abort" | undefined;
}

/** Keeps the first `cap` bytes of a stream and counts the rest. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  add(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.cap - this.kept;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part !== chunk) this.truncated = true;
    this.chunks.push(part);
    this.kept += part.length;
  }

  text(): string {
    return new TextDecoder("utf-8").decode(Buffer.concat(this.chunks));
  }
}

/**
 * Runs a launch to its end and captures its output. On timeout or cancel every process below it gets SIGTERM
 * (found through /proc, so `setsid` children too), and after `killGraceMs` SIGKILL, with its process group. Under
 * the sandbox, the SIGKILL to bubblewrap ends its pid namespace: every process in it, however detached. When the
 * command exits, what it left in its process group is killed; without the sandbox, a process that left the group
 * and whose parent is gone cannot be found (it belongs to init), which is the sandbox's reason to exist.
 */
export function supervise(options: SuperviseOptions): Promise<Ended> {
  const { launch, timeoutMs, killGraceMs, label } = options;
  const posix = process.platform !== "win32";
  return new Promise<Ended>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(launch.command, launch.args, {
        cwd: options.cwd,
        env: launch.env, // the whole environment: never the host's own
        ...(launch.argv0 === undefined ? {} : { argv0: launch.argv0 }),
        shell: false,
        detached: posix, // its own process group, so the group can be killed as one
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (error) {
      reject(spawnError(error, label));
      return;
    }
    const stdout = new Capture(options.maxOutputBytes);
    const stderr = new Capture(options.maxOutputBytes);
    child.stdout?.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.add(chunk));

    let stoppedBy: Ended["stoppedBy"];
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        if (posix) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // the group is already gone
      }
    };
    const closePipesLater = () => {
      // A process that left the group (setsid) may hold the pipes open forever; stop waiting for it.
      timers.push(
        setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }, PIPE_DRAIN_MS),
      );
    };
    const stop = async (why: "timeout" | "abort") => {
      if (stoppedBy !== undefined || settled || child.pid === undefined) return;
      stoppedBy = why;
      const pid = child.pid;
      // The command and everything below it first get the chance to stop cleanly. bubblewrap itself is spared:
      // a signal to it ends the sandbox at once, which is the SIGKILL step.
      const tree = await descendantsOf(pid);
      await signalEach(tree, "SIGTERM");
      if (!launch.sandboxed) killGroup("SIGTERM");
      timers.push(
        setTimeout(() => {
          void descendantsOf(pid).then(async (later) => {
            killGroup("SIGKILL");
            await signalEach([...tree, ...later], "SIGKILL");
          });
        }, killGraceMs),
      );
    };
    const onAbort = () => void stop("abort");
    const started = Date.now();
    const ticker = setInterval(() => {
      const elapsed = Date.now() - started;
      options.progress?.(elapsed, timeoutMs, `${label} running for ${Math.round(elapsed / 1000)} s`);
    }, PROGRESS_EVERY_MS);
    const finish = () => {
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      clearInterval(ticker);
      options.signal.removeEventListener("abort", onAbort);
    };

    timers.push(setTimeout(() => void stop("timeout"), timeoutMs));
    options.signal.addEventListener("abort", onAbort, { once: true });

    child.on("error", (error) => {
      if (settled) return;
      finish();
      killGroup("SIGKILL");
      reject(spawnError(error, label));
    });
    child.on("exit", () => {
      // The command is done: whatever it started in its group and left running goes with it.
      killGroup("SIGKILL");
      closePipesLater();
    });
    child.on("close", (exitCode, signal) => {
      if (settled) return;
      finish();
      resolve({ exitCode, signal, stdout, stderr, stoppedBy });
    });
  });
}

// --- internal ---

/** How long to wait for the output pipes to close once the process is gone, before closing them ourselves. */
const PIPE_DRAIN_MS = 1000;

/** How often a running command reports progress (which also tells clients the call is alive). */
const PROGRESS_EVERY_MS = 5000;

function spawnError(error: unknown, label: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") {
    return new SkillError({ code: "NOT_FOUND", field: "/command", message: `${label} could not be started (ENOENT)` });
  }
  if (code === "EACCES" || code === "EPERM") {
    return new SkillError({
      code: "PERMISSION_DENIED",
      field: "/command",
      message: `command ${JSON.stringify(label)} cannot be executed (${code}); check that it is a program with execute permission`,
    });
  }
  return error;
}
