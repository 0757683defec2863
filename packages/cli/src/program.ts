import { createRequire } from "node:module";
import { DEFAULT_MANIFEST } from "@skillport/host";
import { Command, InvalidArgumentError, Option } from "commander";
import type { ServeOptions } from "./commands/serve.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** Where the docs site serves its pages: the repository's docs/<page>.md, as /docs/<page>. */
const DOCS_URL = "https://skillport.dev/docs/";

/** The levels of SKILLPORT_LOG_LEVEL and --log-level. */
const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"];

/** Where the variables a manifest names are read: said by every command that reads the manifest's secrets. */
const MANIFEST_VARIABLES = `the variables the manifest names: credentials ({ "env": "NAME" }) and \${NAME} in servers' env, headers and url`;

// Commands load on demand, so `skillport list` never pays for the MCP SDK that `serve` needs.

/**
 * The `skillport` command line with commander: every command, its options and help (what it does, examples, the
 * environment it reads, its docs page). Each action runs its command (`serve` through `serveWith`) and keeps its exit
 * code for `exitCode()`. `--log-level` sets SKILLPORT_LOG_LEVEL for the run, before the command starts.
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
    .showHelpAfterError()
    .hook("preAction", (_program, command) => {
      const level = (command.opts() as { logLevel?: string }).logLevel;
      if (level !== undefined) process.env.SKILLPORT_LOG_LEVEL = level;
    });
  explain(program, {
    examples: [
      ["pnpm start", "in this repository: build, then serve the default manifest over HTTP"],
      ["skillport serve --stdio", "what an MCP client spawns"],
      ["skillport list", "the tools skills.manifest.json serves"],
      ["skillport <command> --help", "what a command does, its options and examples"],
    ],
    environment: [
      ["SKILLPORT_LOG_LEVEL", `${LOG_LEVELS.join(", ")} (--log-level sets it for one run)`],
      [
        "NODE_COMPILE_CACHE",
        "a folder for Node's compile cache (Node 22.1+); NODE_DISABLE_COMPILE_CACHE=1 turns it off",
      ],
    ],
    docs: "",
  });

  const serve = program
    .command("serve")
    .summary("serve the manifest's tools to an MCP client (stdio or HTTP)")
    .description(
      "Serve the manifest's tools, resources and prompts to MCP clients: over stdin/stdout (what a client spawns; the default) or Streamable HTTP. With the manifest's lock current, no skill is imported before its first call.",
    );
  manifestOption(serve, "the manifest to serve");
  serve
    .option("--stdio", "serve over stdin/stdout (what MCP clients spawn); the default")
    .option("--http", "serve over Streamable HTTP (manifest http settings; the flags below override them)")
    .option("--frozen-lock", "refuse to start unless the manifest's lock matches it (CI, production)")
    .option("--no-lock", "ignore the manifest's lock and import every skill at start-up");
  transportOptions(serve);
  logLevelOption(serve, "info");
  explain(serve, {
    examples: [
      ["skillport serve --stdio", "for a client that starts its own server"],
      ["skillport serve --http --banner", "on http://127.0.0.1:3333/mcp, printing how to connect"],
      ["skillport serve --http --host 0.0.0.0 --frozen-lock", "in a container (http.auth required)"],
    ],
    environment: [
      ["SKILLPORT_LOG_LEVEL", "how much to log on stderr (default info)"],
      ["SKILLPORT_STATE_URL", "a redis:// URL replicas share rate limits and confirmations through"],
      ["…", MANIFEST_VARIABLES],
    ],
    docs: "cli",
  });
  serve.action(async (options: ServeOptions) => {
    exitCode = await serveWith(options);
  });

  const dev = program
    .command("dev")
    .summary("serve, and reload local skills as you edit them without dropping clients")
    .description(
      "Serve like serve (the same flags, stdio or HTTP) and watch the manifest and every local skill folder: a saved change runs that skill's own build script (if it has one), imports it anew and swaps the tools without dropping connected clients, who get notifications/tools/list_changed. Each swap prints what changed in the tools (added, removed, changed: breaking or not, as check classifies it); a failed build, import or manifest keeps serving the last good tools and prints the error. Never from the lock.",
    );
  manifestOption(dev, "the manifest to serve and watch");
  dev
    .option("--stdio", "serve over stdin/stdout (what MCP clients spawn); the default")
    .option("--http", "serve over Streamable HTTP, with 2025-era sessions so that those clients hear of changes");
  transportOptions(dev);
  logLevelOption(dev, "info");
  explain(dev, {
    examples: [
      ["skillport dev --http --banner", "on http://127.0.0.1:3333/mcp; connect a client, then edit a skill"],
      ["skillport dev --stdio -m app.manifest.json", "what a client spawns while you work on app's skills"],
      ["skillport dev --http --port 0 --log-level warn", "on a free port, only dev's own lines and warnings"],
    ],
    environment: [
      ["SKILLPORT_LOG_LEVEL", "how much to log on stderr (default info); dev's own lines are always printed"],
      ["…", MANIFEST_VARIABLES],
    ],
    docs: "dev",
  });
  dev.action(async (options: ServeOptions) => {
    exitCode = await (await import("./commands/dev.js")).dev(options);
  });

  const list = program
    .command("list")
    .summary("list the served tools: full name, risk, skill@version, title")
    .description(
      "List the tools the manifest serves: full name, risk, skill@version and title (from the lock when it is current).",
    );
  manifestOption(list, "the manifest whose tools to list");
  list.option("--json", "print JSON");
  logLevelOption(list, "warn");
  explain(list, {
    examples: [
      ["skillport list", "the tools of skills.manifest.json"],
      ["skillport list --json --manifest app.manifest.json", "as JSON, for another manifest"],
    ],
    environment: [
      ["SKILLPORT_LOG_LEVEL", "how much to log on stderr (default warn)"],
      ["…", MANIFEST_VARIABLES],
    ],
    docs: "cli",
  });
  list.action(async (options) => {
    exitCode = await (await import("./commands/list.js")).list(options);
  });

  const call = program
    .command("call")
    .summary("call one tool through the full pipeline and print its envelope")
    .description(
      "Call one tool through the full pipeline (validation, confirmation, timeout, redaction, audit) and print its envelope. Exit 1 when the call fails, 2 when the arguments are not JSON.",
    )
    .argument("<tool>", "the full tool name, as skillport list shows it, e.g. notes_search_notes")
    .argument("[arguments]", "the arguments as a JSON object", "{}");
  manifestOption(call, "the manifest whose tool to call");
  call.option(
    "-y, --yes",
    "confirm a dangerous tool's call after printing what it will do (otherwise you are asked when stdin is a terminal)",
  );
  logLevelOption(call, "warn");
  explain(call, {
    examples: [
      [`skillport call notes_search_notes '{"keyword":"agent"}'`, "search the sample notes"],
      [`skillport call files_delete_file '{"path":"old.txt"}' --yes`, "a dangerous call, confirmed without asking"],
    ],
    environment: [
      ["SKILLPORT_LOG_LEVEL", "how much to log on stderr (default warn; info also prints the call's audit line)"],
      ["…", MANIFEST_VARIABLES],
    ],
    docs: "calls",
  });
  call.action(async (tool: string, json: string, options) => {
    exitCode = await (await import("./commands/call.js")).call(tool, json, options);
  });

  const check = program
    .command("check")
    .summary("check the manifest, its skills and servers, and what changed since the lock")
    .description(
      "Check the manifest: load every enabled skill and upstream server, and report what would fail or mislead at run time (load failures, missing credentials, names a client rejects, the spec lint, the size of tools/list, every change since the lock). Exit 0 clean, 1 on errors.",
    );
  manifestOption(check, "the manifest to check");
  check
    .option("--compat <clients>", "also check tool names for these clients: anthropic, openai or strict")
    .option("--json", "print JSON");
  logLevelOption(check, "warn");
  explain(check, {
    examples: [
      ["skillport check", "the manifest, its skills and what changed since skills.lock.json"],
      ["skillport check --compat anthropic", "also the tool names the Anthropic API takes"],
    ],
    environment: [
      ["SKILLPORT_LOG_LEVEL", "how much to log on stderr (default warn)"],
      ["…", `${MANIFEST_VARIABLES}; one that is not set is reported`],
    ],
    docs: "manifest#checking-a-manifest",
  });
  check.action(async (options) => {
    exitCode = await (await import("./commands/check.js")).check(options);
  });

  const lock = program
    .command("lock")
    .summary("write the manifest's lock beside it")
    .description(
      "Write the manifest's lock beside it (skills.lock.json for skills.manifest.json, <name>.lock.json for <name>.manifest.json): each skill's resolved version and tool surface, hashed, so a host starts without importing any skill.",
    );
  manifestOption(lock, "the manifest to lock (its lock is written beside it)");
  logLevelOption(lock, "warn");
  explain(lock, {
    examples: [
      ["skillport lock", "writes skills.lock.json"],
      ["skillport lock --manifest notes-only.manifest.json", "writes notes-only.lock.json"],
    ],
    environment: [
      ["SKILLPORT_LOG_LEVEL", "how much to log on stderr (default warn)"],
      ["…", `${MANIFEST_VARIABLES} (an upstream server is started to list its tools)`],
    ],
    docs: "manifest#the-lock",
  });
  lock.action(async (options) => {
    exitCode = await (await import("./commands/lock.js")).lock(options);
  });

  const credentials = program
    .command("credentials")
    .summary("set, list or remove callers' own credentials kept by a host (per-caller slots)")
    .description(
      "Manage the credentials each caller brings (a manifest's per-caller slots: a skill credential { \"perCaller\": true } or a server's auth), in the store the manifest names (credentials.store: a file, or the state's Redis), sealed with its credentials.keys. No skill is loaded and no server started. Values are never printed, and never taken on the command line.",
    );
  const credentialsSet = credentials
    .command("set")
    .summary("store a caller's personal token for a token slot")
    .description(
      "Seal a caller's personal token for a token slot. The value is read from stdin (not echoed on a terminal), --from-env or --from-file: never from the command line, where the process list would show it.",
    )
    .argument("<slot>", "<mcp>.<credential>, e.g. gh.token (a server's is <mcp>.token)")
    .option("--caller <id>", "required: the caller's id as the host sees it, token:<name> or jwt:<sub>")
    .option("--from-env <variable>", "read the value from this environment variable")
    .option("--from-file <path>", "read the value from this file (trimmed)");
  const credentialsList = credentials
    .command("list")
    .summary("list kept credentials: slot, caller, kind, state and times, never values")
    .option("--slot <slot>", "only this slot's")
    .option("--json", "print JSON");
  const credentialsRemove = credentials
    .command("remove")
    .summary("remove what a caller connected for a slot")
    .argument("<slot>", "<mcp>.<credential>, e.g. gh.token")
    .option("--caller <id>", "required: the caller's id, token:<name> or jwt:<sub>");
  const credentialsExplanation: Explanation = {
    examples: [
      ["skillport credentials set gh.token --caller token:alice", "asks for alice's token (not shown as typed)"],
      ["skillport credentials set gh.token --caller jwt:bob --from-env BOB_GH", "from a variable"],
      ['printf %s "$TOKEN" | skillport credentials set tickets.token --caller token:ci', "from stdin"],
      ["skillport credentials list --slot gh.token", "whose gh.token is kept, and its state"],
      ["skillport credentials remove gh.token --caller token:alice", "forget alice's"],
    ],
    environment: [
      ["SKILLPORT_STATE_URL", 'the Redis the records are in, with "store": "state" (else the manifest\'s state)'],
      ["…", "the variables credentials.keys names (the sealing keys)"],
    ],
    docs: "cli#skillport-credentials",
  };
  for (const command of [credentials, credentialsSet, credentialsList, credentialsRemove]) {
    if (command !== credentials) manifestOption(command, "the manifest whose credentials to manage");
    if (command !== credentials) logLevelOption(command, "warn");
    explain(command, credentialsExplanation);
  }
  // Bare `skillport credentials` asks what it does: its help, on stdout, and no error.
  credentials.action(() => {
    credentials.outputHelp();
  });
  credentialsSet.action(async (slot: string, options) => {
    exitCode = await (await import("./commands/credentials.js")).credentialsSet(slot, options);
  });
  credentialsList.action(async (options) => {
    exitCode = await (await import("./commands/credentials.js")).credentialsList(options);
  });
  credentialsRemove.action(async (slot: string, options) => {
    exitCode = await (await import("./commands/credentials.js")).credentialsRemove(slot, options);
  });

  const scaffold = program
    .command("new")
    .summary("scaffold a new skill package and add it to the manifest, disabled")
    .description(
      "Scaffold skills/skill-<capability>: a package with one example tool, its test, SKILL.md, README and a first changeset; add it to the manifest, disabled, keeping the manifest's comments.",
    )
    .argument("<capability>", "the skill's name: lowercase letters, digits and -, e.g. weather");
  manifestOption(scaffold, "the manifest to add the new skill to");
  scaffold.option("--scope <scope>", "the npm scope of the new package", "@skillport");
  logLevelOption(scaffold, "warn");
  explain(scaffold, {
    examples: [
      ["skillport new weather", "skills/skill-weather, as @skillport/skill-weather"],
      ["skillport new git-history --scope @acme", "as @acme/skill-git-history"],
    ],
    environment: [["(none)", "it reads no environment variable"]],
    docs: "writing-skills",
  });
  scaffold.action(async (capability: string, options: { manifest: string; scope: string }) => {
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

/** What a command's help says after its options: examples, the environment it reads, and its page of the docs. */
interface Explanation {
  examples: [string, string][];
  environment: [string, string][];
  /** The page (and anchor) under DOCS_URL; "" for the docs' index. */
  docs: string;
}

function explain(command: Command, { examples, environment, docs }: Explanation): void {
  const rows = (list: [string, string][]) => {
    const width = Math.max(...list.map(([left]) => left.length));
    return list.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join("\n");
  };
  command.addHelpText(
    "after",
    `\nExamples:\n${rows(examples)}\n\nEnvironment:\n${rows(environment)}\n\nDocs: ${DOCS_URL}${docs}\n`,
  );
}

/** The flags serve and dev share after --stdio and --http: where HTTP binds, its grace period, the banner. */
function transportOptions(command: Command): void {
  command
    .option("--host <address>", "HTTP: the address to bind (default 127.0.0.1; beyond loopback requires http.auth)")
    .option("--port <number>", "HTTP: the port (default 3333; 0 picks a free one)", integer("--port"))
    .option("--path <path>", "HTTP: the MCP endpoint's path (default /mcp)")
    .option(
      "--shutdown-grace <ms>",
      "HTTP: how long in-flight calls may finish on SIGTERM (default 10000)",
      integer("--shutdown-grace"),
    )
    .option("--banner", "print the tool table and how to connect to stderr");
}

function manifestOption(command: Command, description: string): void {
  command.option("-m, --manifest <path>", description, DEFAULT_MANIFEST);
}

function logLevelOption(command: Command, byDefault: string): void {
  command.addOption(
    new Option(
      "--log-level <level>",
      `how much to log on stderr (default ${byDefault}; sets SKILLPORT_LOG_LEVEL)`,
    ).choices(LOG_LEVELS),
  );
}
