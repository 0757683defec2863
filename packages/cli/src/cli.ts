import { DEFAULT_MANIFEST, HostError } from "@skillport/host";
import type { ServeOptions } from "./commands/serve.js";
import { quickServeOptions } from "./serve-args.js";

/**
 * Runs the `skillport` command with process-style argv and resolves its exit code. Startup problems
 * (invalid manifest, unknown package, name conflict) print their message to stderr and exit 1.
 */
export async function main(argv: readonly string[]): Promise<number> {
  // `serve` as MCP clients spawn it is read without loading commander (a few ms of every start); any other command
  // line, or one quickServeOptions does not read as commander would, goes through commander.
  const quick = argv[2] === "serve" ? quickServeOptions(argv.slice(3), DEFAULT_MANIFEST) : undefined;
  if (quick !== undefined) {
    if (quick.logLevel !== undefined) process.env.SKILLPORT_LOG_LEVEL = quick.logLevel;
    try {
      return await serveWith(quick);
    } catch (error) {
      if (!(error instanceof HostError)) throw error;
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
  }
  const [{ buildProgram }, { CommanderError }] = await Promise.all([import("./program.js"), import("commander")]);
  const { program, exitCode } = buildProgram(serveWith);
  // Bare `skillport` asks what the command does: the help, on stdout, and no error.
  if (argv.length <= 2) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof HostError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  return exitCode();
}

// --- internal ---

async function serveWith(options: ServeOptions): Promise<number> {
  return (await import("./commands/serve.js")).serve(options);
}
