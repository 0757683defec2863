import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import type { SkillContext } from "@skillport/core";
import { defineTool, result, SkillError } from "@skillport/core";
import { z } from "zod";
import type { ShellConfig } from "./config.js";
import { MAX_TIMEOUT_LIMIT_MS } from "./config.js";
import { resolveCwd } from "./cwd.js";

export const RunCommandInput = z
  .object({
    command: z
      .string()
      .min(1)
      .max(4096)
      .describe(
        "The program to run, exactly as the instance's allowlist names it (e.g. git). Not a shell line: no pipes, redirects, variables or globs",
      )
      .meta({ examples: ["git", "ls"] }),
    args: z
      .array(
        z
          .string()
          .max(32768)
          .describe("One argument, passed to the program as is: quotes, $, *, ; and the like are plain characters")
          .meta({ examples: ["status", "--short"] }),
      )
      .max(256)
      .default([])
      .describe("The arguments, one string each; nothing is split or expanded")
      .meta({ examples: [["status", "--short"], ["-la"]] }),
    cwd: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe("The folder to run in: relative to the first root or absolute inside a root. Default: the first root")
      .meta({ examples: ["repo", "/srv/workspace/site"] }),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(MAX_TIMEOUT_LIMIT_MS)
      .optional()
      .describe(
        "Kill the command (its whole process group) after this many milliseconds. Default: the instance's defaultTimeoutMs; at most its maxTimeoutMs",
      )
      .meta({ examples: [30000] }),
  })
  .strict();

export const RunCommandOutput = z.object({
  command: z.string(),
  args: z.array(z.string()),
  cwd: z.string().describe("The real folder the command ran in"),
  exitCode: z.number().int().nullable().describe("The exit code; null when a signal ended the command"),
  signal: z.string().nullable().describe("The signal that ended the command, if one did"),
  stdout: z.string(),
  stderr: z.string(),
  stdoutBytes: z.number().int().describe("Bytes the command wrote to stdout, kept or not"),
  stderrBytes: z.number().int().describe("Bytes the command wrote to stderr, kept or not"),
  stdoutTruncated: z.boolean().describe("True when stdout went past maxOutputBytes and only its start is kept"),
  stderrTruncated: z.boolean().describe("True when stderr went past maxOutputBytes and only its start is kept"),
  durationMs: z.number(),
});

export type RunCommandParams = z.output<typeof RunCommandInput>;
export type RunCommandData = z.output<typeof RunCommandOutput>;

/**
 * Runs an allowlisted command without a shell (arguments reach it as they are), in a folder inside the roots, with
 * only the environment the instance configures. Output is captured up to a cap. On timeout or cancel the command's
 * whole process group gets SIGTERM, then SIGKILL after the grace period; when the command exits, anything it left
 * running in its group is killed. A non-zero exit is a normal answer: `exitCode` says it.
 */
export async function runCommand(params: RunCommandParams, ctx: SkillContext<ShellConfig>) {
  ctx.signal.throwIfAborted();
  const { config } = ctx;
  if (!config.commands.includes(params.command)) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/command",
      message: `command ${JSON.stringify(params.command)} is not on this instance's allowlist; allowed: ${config.commands.join(", ")}. Pass only the program name in command and its arguments in args`,
    });
  }
  const args = params.args ?? [];
  args.forEach((arg, index) => {
    if (arg.includes("\0")) {
      throw new SkillError({
        code: "ARGUMENT_INVALID",
        field: `/args/${index}`,
        message: `argument ${index} contains a NUL byte, which no program can receive; remove it`,
      });
    }
  });
  const timeoutMs = params.timeoutMs ?? config.defaultTimeoutMs;
  if (timeoutMs > config.maxTimeoutMs) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: "/timeoutMs",
      message: `timeoutMs ${timeoutMs} is over this instance's maxTimeoutMs (${config.maxTimeoutMs}); ask for less`,
    });
  }
  const cwd = await resolveCwd(config, params.cwd ?? ".", "/cwd");
  ctx.signal.throwIfAborted();

  const started = performance.now();
  const ended = await supervise(params.command, args, cwd, timeoutMs, ctx);
  const durationMs = Math.round(performance.now() - started);
  const data: RunCommandData = {
    command: params.command,
    args,
    cwd,
    exitCode: ended.exitCode,
    signal: ended.signal,
    stdout: ended.stdout.text(),
    stderr: ended.stderr.text(),
    stdoutBytes: ended.stdout.total,
    stderrBytes: ended.stderr.total,
    stdoutTruncated: ended.stdout.truncated,
    stderrTruncated: ended.stderr.truncated,
    durationMs,
  };

  if (ended.stoppedBy === "timeout") {
    throw new SkillError({
      code: "TIMEOUT",
      field: "/timeoutMs",
      message: `${params.command} did not finish within ${timeoutMs} ms, so its process group was killed; give it a larger timeoutMs (at most ${config.maxTimeoutMs}) or less work.${tails(data)}`,
    });
  }
  if (ended.stoppedBy === "abort") {
    throw new SkillError({
      code: "CANCELLED",
      message: `${params.command} was cancelled after ${durationMs} ms and its process group was killed`,
    });
  }
  const warnings = [
    ...(data.stdoutTruncated
      ? [`stdout was ${data.stdoutBytes} bytes; only the first ${config.maxOutputBytes} are kept`]
      : []),
    ...(data.stderrTruncated
      ? [`stderr was ${data.stderrBytes} bytes; only the first ${config.maxOutputBytes} are kept`]
      : []),
  ];
  const how = data.exitCode === null ? `was ended by ${data.signal}` : `exited with code ${data.exitCode}`;
  return result(data, { message: `${params.command} ${how} after ${durationMs} ms`, warnings });
}

export const runCommandTool = defineTool({
  name: "run_command",
  title: "Run command",
  description:
    "Run one allowlisted program with arguments, without a shell: each argument reaches the program exactly as given (no pipes, redirects, $VARIABLES or globs). Runs in a folder inside the allowed roots with only the configured environment. Returns the exit code (non-zero is not an error), stdout and stderr (capped, with truncation flagged). On timeout the whole process group is killed and the call fails with TIMEOUT.",
  input: RunCommandInput,
  output: RunCommandOutput,
  risk: "dangerous",
  annotations: { idempotentHint: false, openWorldHint: true },
  examples: [
    { command: "git", args: ["status", "--short"], cwd: "repo", timeoutMs: 30000 },
    { command: "ls", args: ["-la"] },
  ],
  buildBrief: (p) =>
    `Run ${[p.command, ...(p.args ?? [])].map(quote).join(" ")}${p.cwd === undefined ? "" : ` in ${p.cwd}`}${p.timeoutMs === undefined ? "" : ` (timeout ${p.timeoutMs} ms)`}`,
  run: runCommand,
});

// --- internal ---

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

interface Ended {
  exitCode: number | null;
  signal: string | null;
  stdout: Capture;
  stderr: Capture;
  stoppedBy: "timeout" | "abort" | undefined;
}

/** How long to wait for the output pipes to close once the process is gone, before closing them ourselves. */
const PIPE_DRAIN_MS = 1000;

/** How often a running command reports progress (which also tells clients the call is alive). */
const PROGRESS_EVERY_MS = 5000;

function supervise(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  ctx: SkillContext<ShellConfig>,
): Promise<Ended> {
  const { config } = ctx;
  const posix = process.platform !== "win32";
  return new Promise<Ended>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd,
        env: { ...config.env }, // the whole environment: never the host's own
        shell: false,
        detached: posix, // its own process group, so the group can be killed as one
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (error) {
      reject(spawnError(error, command, config));
      return;
    }
    const stdout = new Capture(config.maxOutputBytes);
    const stderr = new Capture(config.maxOutputBytes);
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
    const stop = (why: "timeout" | "abort") => {
      if (stoppedBy !== undefined || settled) return;
      stoppedBy = why;
      killGroup("SIGTERM");
      timers.push(setTimeout(() => killGroup("SIGKILL"), config.killGraceMs));
    };
    const onAbort = () => stop("abort");
    const started = Date.now();
    const ticker = setInterval(() => {
      const elapsed = Date.now() - started;
      ctx.progress(elapsed, timeoutMs, `${command} running for ${Math.round(elapsed / 1000)} s`);
    }, PROGRESS_EVERY_MS);
    const finish = () => {
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      clearInterval(ticker);
      ctx.signal.removeEventListener("abort", onAbort);
    };

    timers.push(setTimeout(() => stop("timeout"), timeoutMs));
    ctx.signal.addEventListener("abort", onAbort, { once: true });

    child.on("error", (error) => {
      if (settled) return;
      finish();
      killGroup("SIGKILL");
      reject(spawnError(error, command, config));
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

function spawnError(error: unknown, command: string, config: ShellConfig): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") {
    return new SkillError({
      code: "NOT_FOUND",
      field: "/command",
      message: `command ${JSON.stringify(command)} was not found${command.includes("/") ? "" : ` on the PATH this instance gives commands (${config.env.PATH ?? "no PATH set"})`}; fix "commands" or "env" in the manifest config`,
    });
  }
  if (code === "EACCES" || code === "EPERM") {
    return new SkillError({
      code: "PERMISSION_DENIED",
      field: "/command",
      message: `command ${JSON.stringify(command)} cannot be executed (${code}); check that it is a program with execute permission`,
    });
  }
  return error;
}

function tails(data: RunCommandData): string {
  const tail = (name: string, text: string) =>
    text === "" ? "" : ` Last ${name}: ${JSON.stringify(text.length > 300 ? `…${text.slice(-300)}` : text)}`;
  return tail("stdout", data.stdout) + tail("stderr", data.stderr);
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
