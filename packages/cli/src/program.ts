import { createRequire } from "node:module";
import { DEFAULT_MANIFEST } from "@skillport/host";
import { Command, InvalidArgumentError } from "commander";
import type { ServeOptions } from "./commands/serve.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
const MANIFEST_HELP = "the manifest to serve";

// Commands load on demand, so `skillport list` never pays for the MCP SDK that `serve` needs.

/**
 * The `skillport` command line with commander: every command, its options and help. Each action runs its command
 * (`serve` through `serveWith`) and keeps its exit code for `exitCode()`.
 */
export function buildProgram(serveWith: (options: ServeOptions) => Promise<number>): {
  program: Command;
  exitCode(): number;
} {
  let exitCode = 0;
  const program = new Command()
    .name("skillport")
    .description("Compose MCP tools from versioned skill packages and serve them from a manifest.")
    .version(version)
    .exitOverride()
    .showHelpAfterError();

  program
    .command("serve")
    .description("serve the manifest's tools to an MCP client")
    .option("-m, --manifest <path>", MANIFEST_HELP, DEFAULT_MANIFEST)
    .option("--stdio", "serve over stdin/stdout (what MCP clients spawn); the default")
    .option("--http", "serve over Streamable HTTP (manifest http settings; the flags below override them)")
    .option("--frozen-lock", "refuse to start unless the manifest's lock matches it (CI, production)")
    .option("--no-lock", "ignore the manifest's lock and import every skill at start-up")
    .option("--host <address>", "HTTP: the address to bind (default 127.0.0.1; beyond loopback requires http.auth)")
    .option("--port <number>", "HTTP: the port (default 3333; 0 picks a free one)", integer("--port"))
    .option("--path <path>", "HTTP: the MCP endpoint's path (default /mcp)")
    .option(
      "--shutdown-grace <ms>",
      "HTTP: how long in-flight calls may finish on SIGTERM (default 10000)",
      integer("--shutdown-grace"),
    )
    .option("--banner", "print the tool table and how to connect to stderr")
    .action(async (options: ServeOptions) => {
      exitCode = await serveWith(options);
    });

  program
    .command("list")
    .description("list the served tools: full name, risk, skill@version, title")
    .option("-m, --manifest <path>", MANIFEST_HELP, DEFAULT_MANIFEST)
    .option("--json", "print JSON")
    .action(async (options) => {
      exitCode = await (await import("./commands/list.js")).list(options);
    });

  program
    .command("call")
    .description("call one tool through the full pipeline and print its envelope (exit 1 when it fails)")
    .argument("<tool>", "the full tool name, e.g. notes.search_notes")
    .argument("[arguments]", "the arguments as a JSON object", "{}")
    .option("-m, --manifest <path>", MANIFEST_HELP, DEFAULT_MANIFEST)
    .option(
      "-y, --yes",
      "confirm a dangerous tool's call after printing what it will do (otherwise you are asked when stdin is a terminal)",
    )
    .action(async (tool: string, json: string, options) => {
      exitCode = await (await import("./commands/call.js")).call(tool, json, options);
    });

  program
    .command("check")
    .description("validate the manifest, load every enabled skill and report the tool table")
    .option("-m, --manifest <path>", MANIFEST_HELP, DEFAULT_MANIFEST)
    .option("--compat <clients>", "also check tool names for these clients: anthropic, openai or strict")
    .option("--json", "print JSON")
    .action(async (options) => {
      exitCode = await (await import("./commands/check.js")).check(options);
    });

  program
    .command("lock")
    .description(
      "write the manifest's lock beside it (skills.lock.json for skills.manifest.json, <name>.lock.json for <name>.manifest.json)",
    )
    .option("-m, --manifest <path>", MANIFEST_HELP, DEFAULT_MANIFEST)
    .action(async (options) => {
      exitCode = await (await import("./commands/lock.js")).lock(options);
    });

  program
    .command("new")
    .description(
      "scaffold skills/skill-<capability>: one example tool, its test, README and changeset; adds it to the manifest, disabled",
    )
    .argument("<capability>", "the skill's name: lowercase letters, digits and -, e.g. weather")
    .option("-m, --manifest <path>", "the manifest to add the new skill to", DEFAULT_MANIFEST)
    .option("--scope <scope>", "the npm scope of the new package", "@skillport")
    .action(async (capability: string, options: { manifest: string; scope: string }) => {
      exitCode = await (await import("./commands/new.js")).newSkill(capability, { ...options, version });
    });
  return { program, exitCode: () => exitCode };
}

// --- internal ---

function integer(flag: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${flag} takes a whole number, got "${value}"`);
    return Number(value);
  };
}
