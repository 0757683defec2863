import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { defineTool, result, SkillError } from "@skillport/core";
import { createConfinement } from "@skillport/core/confine";
import { z } from "zod";
import type { ShellConfig } from "./config.js";
import { MAX_TIMEOUT_LIMIT_MS } from "./config.js";
import { confineArguments } from "./confine-arguments.js";
import { resolveCwd } from "./cwd.js";
import { checkGitRepository, gitEnvironment } from "./git-hardening.js";
import { launcherFor } from "./launch.js";
import { checkArguments } from "./policies/index.js";
import { repositoryOptions } from "./policies/programs/git.js";
import { findProgram } from "./program-path.js";
import type { SuperviseOptions } from "./supervise.js";
import { supervise } from "./supervise.js";

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
  args: z.array(z.string()).describe("The arguments the program received (a policy may add one, e.g. sed --sandbox)"),
  cwd: z.string().describe("The real folder the command ran in"),
  sandboxed: z.boolean().describe("True when the command ran under bubblewrap (only the roots visible, no network)"),
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
 * only the environment the instance configures. Before anything runs: the command's argument policy refuses
 * options that run programs or write elsewhere, every argument that names a file must resolve inside the roots,
 * and for git the repository's own configuration must set nothing that runs a program. Then the command runs
 * under bubblewrap where it works (only the roots and system folders visible, no network, its own process table),
 * its output captured up to a cap. On timeout or cancel everything it started gets SIGTERM, then SIGKILL after
 * the grace period. A non-zero exit is a normal answer: `exitCode` says it.
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
  const requested = params.args ?? [];
  requested.forEach((arg, index) => {
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
  const decision = checkArguments(config, params.command, requested);
  const jail = await createConfinement({
    roots: config.roots,
    base: cwd,
    protectedNames: [],
    hint: `arguments that name files must stay inside the roots (${config.roots.join(", ")}); relative paths start at the cwd`,
  });
  await confineArguments(jail, decision.paths, decision.mode === "paths");
  const program = await findProgram(params.command, config.env.PATH);
  const launcher = await launcherFor(config, jail.roots, cwd);
  const isGit = path.posix.basename(params.command) === "git";
  const env = isGit ? gitEnvironment(config.env) : { ...config.env };
  ctx.signal.throwIfAborted();

  const run = (args: readonly string[], ms: number, progress?: SuperviseOptions["progress"]) =>
    supervise({
      launch: launcher.launch(program, params.command, args, env),
      cwd,
      timeoutMs: ms,
      killGraceMs: config.killGraceMs,
      maxOutputBytes: config.maxOutputBytes,
      signal: ctx.signal,
      label: params.command,
      ...(progress === undefined ? {} : { progress }),
    });
  if (isGit) {
    await checkGitRepository(
      async (args) => {
        const ended = await run(args, Math.min(timeoutMs, GIT_CHECK_TIMEOUT_MS));
        if (ended.stoppedBy === "abort") throw cancelled(params.command, 0);
        return {
          exitCode: ended.stoppedBy === undefined ? ended.exitCode : null,
          stdout: ended.stdout.text(),
          stderr: ended.stderr.text(),
        };
      },
      decision.git?.repository ?? repositoryOptions(requested),
      cwd,
      async (dir) => {
        try {
          await jail.resolve(dir, "/cwd");
          return true;
        } catch {
          return false;
        }
      },
    );
  }

  const started = performance.now();
  const ended = await run(decision.args, timeoutMs, (done, total, message) => ctx.progress(done, total, message));
  const durationMs = Math.round(performance.now() - started);
  const data: RunCommandData = {
    command: params.command,
    args: decision.args,
    cwd,
    sandboxed: launcher.sandboxed,
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
      message: `${params.command} did not finish within ${timeoutMs} ms, so it was killed with everything it started; give it a larger timeoutMs (at most ${config.maxTimeoutMs}) or less work.${tails(data)}`,
    });
  }
  if (ended.stoppedBy === "abort") throw cancelled(params.command, durationMs);
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
    "Run one allowlisted program with arguments, without a shell: each argument reaches the program exactly as given (no pipes, redirects, $VARIABLES or globs). Options that run other programs or write outside the allowed roots are refused, and file arguments must be inside the roots. Runs in a folder inside the roots with only the configured environment, sandboxed where the machine allows. Returns the exit code (non-zero is not an error), stdout and stderr (capped, with truncation flagged). On timeout everything it started is killed and the call fails with TIMEOUT.",
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

/** The longest the repository check before a git call may take (it is two quick git commands). */
const GIT_CHECK_TIMEOUT_MS = 15_000;

function cancelled(command: string, durationMs: number): SkillError {
  return new SkillError({
    code: "CANCELLED",
    message: `${command} was cancelled after ${durationMs} ms and everything it started was killed`,
  });
}

function tails(data: RunCommandData): string {
  const tail = (name: string, text: string) =>
    text === "" ? "" : ` Last ${name}: ${JSON.stringify(text.length > 300 ? `…${text.slice(-300)}` : text)}`;
  return tail("stdout", data.stdout) + tail("stderr", data.stderr);
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
