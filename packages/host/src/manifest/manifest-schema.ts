// The manifest, defined once. manifest.schema.json is generated from these schemas at build time
// (scripts/generate-manifest-schema.mjs), and the manifest's TypeScript types are inferred from them (manifest.ts).
// The host never imports this module at run time: it validates with ajv against the generated JSON Schema, compiled
// once, so start-up pays for neither zod nor a conversion. Every default comes from defaults.ts. It is written in
// sections: the building blocks (schema-blocks.ts), a skill entry (skill-entry-schema.ts), an upstream server
// (server-entry-schema.ts), the HTTP settings (http-settings-schema.ts), and here stdio, state and the manifest.
import { z } from "zod";
import { CredentialSettingsSchema } from "./credential-settings-schema.js";
import { DISCOVERY_DEFAULTS, MANIFEST_DEFAULTS, STATE_DEFAULTS, STDIO_DEFAULTS, TASK_DEFAULTS } from "./defaults.js";
import { HttpSettingsSchema } from "./http-settings-schema.js";
import { matching, SecretSourceSchema } from "./schema-blocks.js";
import { ServerEntrySchema } from "./server-entry-schema.js";
import { SkillEntrySchema } from "./skill-entry-schema.js";

// --- stdio ---

export const StdioSettingsSchema = z
  .strictObject({
    maxMessageBytes: z
      .int()
      .min(64 * 1024)
      .max(1024 * 1024 * 1024)
      .default(STDIO_DEFAULTS.maxMessageBytes)
      .describe(
        "The largest JSON-RPC message (one line) accepted on stdin. A longer one is skipped without being held in memory and answered with a JSON-RPC error; the server keeps serving. The default fits the largest call the bundled skills accept (files.write_file at its 8 MiB ceiling, as base64 or as escaped text).",
      ),
  })
  .meta({ id: "stdio", description: "How `skillport serve --stdio` reads messages from its client." });

// --- tasks ---

export const TaskSettingsSchema = z
  .strictObject({
    ttlMs: z
      .int()
      .min(1000)
      .max(7 * 24 * 60 * 60 * 1000)
      .default(TASK_DEFAULTS.ttlMs)
      .describe(
        "How long a task is kept after its last change (a finished task: after it finished), in milliseconds; then tasks/get answers it as unknown. A task that runs is kept while it runs.",
      ),
    pollIntervalMs: z
      .int()
      .min(100)
      .max(60_000)
      .default(TASK_DEFAULTS.pollIntervalMs)
      .describe("How often clients are told to poll tasks/get, in milliseconds."),
    immediateMs: z
      .int()
      .min(0)
      .max(10_000)
      .default(TASK_DEFAULTS.immediateMs)
      .describe(
        "A call to a task-capable tool that answers within this time (a result, or a question asked before it waits on anything) is answered as a plain call, with no task; 0 makes a task of every such call once its checks pass.",
      ),
    maxActivePerCaller: z
      .int()
      .min(1)
      .max(10_000)
      .default(TASK_DEFAULTS.maxActivePerCaller)
      .describe(
        "Tasks one caller may have running or waiting for answers at once; past it a call answers RATE_LIMITED (retryable).",
      ),
    maxResultBytes: z
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(TASK_DEFAULTS.maxResultBytes)
      .describe(
        "The largest result a task keeps, as JSON; a larger one is replaced by an error result saying so (isError, INTERNAL).",
      ),
    leaseMs: z
      .int()
      .min(200)
      .max(10 * 60_000)
      .default(TASK_DEFAULTS.leaseMs)
      .describe(
        "The longest a task stays working once the replica running it stopped, in milliseconds: the replica renews its task's lease every quarter of it, and a task whose lease lapsed ends failed (-32603) at the next tasks/get or sweep on any replica.",
      ),
  })
  .meta({
    id: "tasks",
    description:
      "How calls to task-capable tools run as tasks (the MCP Tasks extension, io.modelcontextprotocol/tasks) for clients that declare it: the client gets a task at once and polls tasks/get for its result.",
  });

// --- state ---

export const StateSettingsSchema = z
  .xor([
    z.strictObject({
      store: z.literal("memory").describe("Keep shared state in this process: right for one replica."),
    }),
    z.strictObject({
      store: z.literal("redis").describe("Keep shared state in Redis 6.2 or later (or Valkey)."),
      url: SecretSourceSchema.meta({
        description:
          "Where the Redis URL comes from (redis://[user:password@]host:port[/db], or rediss:// for TLS): an environment variable or a file, since it may hold a password. The host redacts it like a credential.",
        examples: [{ env: "REDIS_URL" }],
      }),
      prefix: matching("^[A-Za-z0-9:._-]{1,64}$")
        .meta({
          description:
            'Put before every key this composition writes, so several compositions can share one Redis. Default: "skillport:<name>:".',
          examples: ["skillport:prod:"],
        })
        .optional(),
    }),
  ])
  .default({ store: STATE_DEFAULTS.store })
  .meta({
    id: "state",
    description:
      'What replicas of this composition share: per-caller rate limits, one-time confirmations (operation ids and answers to confirmation questions), and the list of ready replicas. "memory" (the default) keeps them in each process, so behind N replicas a caller gets N times its rate and a confirmation can be used once per replica; "redis" shares them. The environment variable SKILLPORT_STATE_URL (a redis:// URL), when set, selects Redis at that URL instead. While Redis cannot be reached, dangerous tools refuse (UNAVAILABLE, retryable) and rate limits are counted per replica.',
    examples: [{ store: "redis", url: { env: "REDIS_URL" } }],
  });

// --- discovery ---

/** A discovery tool's name: what the strictest model APIs take (no dots, at most 64). */
const DiscoveryToolName = (description: string, fallback: string) =>
  matching("^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
    .default(fallback)
    .meta({ description, examples: [fallback] });

const DiscoveryMode = z
  .enum(["all", "search"])
  .describe(
    '"all": tools/list lists every tool. "search": tools/list lists only the always-loaded tools (`alwaysLoad`) and two more, one that searches the others by what a task needs (its answer: the best matching tools, each with its name, title, description and input schema) and one that calls any of them by name, through every check a direct call passes (scopes, validation against the tool\'s own schema, confirmation, limits, audit and metrics under the tool\'s own name).',
  );

export const DiscoverySchema = z
  .xor([
    DiscoveryMode,
    z.strictObject({
      mode: DiscoveryMode,
      searchTool: DiscoveryToolName("The name of the tool that searches the tools.", DISCOVERY_DEFAULTS.searchTool),
      callTool: DiscoveryToolName("The name of the tool that calls a tool by name.", DISCOVERY_DEFAULTS.callTool),
      results: z
        .int()
        .min(1)
        .max(DISCOVERY_DEFAULTS.maxResults)
        .default(DISCOVERY_DEFAULTS.results)
        .describe("How many tools a search answers when its caller gives no limit."),
    }),
  ])
  .default(DISCOVERY_DEFAULTS.mode)
  .meta({
    id: "discovery",
    description:
      'How clients find the tools: "all" (every tool in tools/list) or "search" (a few in tools/list, the rest found with a search tool and called with a call tool), written as the mode alone or as an object that also names the two tools. A composition of hundreds of tools puts every schema in the model\'s context on every turn with "all"; `skillport check` shows the tokens of tools/list both ways.',
    examples: ["search", { mode: "search", searchTool: "find_tools", callTool: "use_tool" }],
  });

// --- the manifest ---

export const SeparatorSchema = z
  .enum([".", "_", "__"])
  .default(MANIFEST_DEFAULTS.separator)
  .describe("Joins an instance's mcp id and a tool name into the full tool name (notes.search_notes).");

export const ConfirmationFallbackSchema = z
  .enum(["refuse", "operation-id"])
  .default(MANIFEST_DEFAULTS.confirmationFallback)
  .describe(
    'What a dangerous tool answers when the client cannot ask its user. "refuse": CONFIRMATION_REQUIRED, not retryable; the tool cannot run from that client. "operation-id": a one-time id the client repeats the call with in `_confirm`; opt in only for clients that show the brief to their user, since otherwise the model can confirm itself.',
  );

export const ManifestSchema = z
  .strictObject({
    $schema: z
      .string()
      .meta({
        description: "Path or URL of this schema, for editor completion.",
        examples: ["./node_modules/@skillport/host/manifest.schema.json"],
      })
      .optional(),
    name: z
      .string()
      .min(1)
      .max(100)
      .default(MANIFEST_DEFAULTS.name)
      .describe("The server's name, as MCP clients show it."),
    version: z
      .string()
      .min(1)
      .max(50)
      .default(MANIFEST_DEFAULTS.version)
      .describe("The server's version, as MCP clients show it."),
    separator: SeparatorSchema,
    discovery: DiscoverySchema,
    skills: z
      .array(SkillEntrySchema)
      .max(1000)
      .describe("The skill instances to serve. The same package may appear several times under different mcp ids."),
    servers: z
      .array(ServerEntrySchema)
      .max(100)
      .describe("Upstream MCP servers whose tools are served beside the skills', as MCP clients configure them.")
      .optional(),
    audit: z
      .strictObject({
        file: z
          .string()
          .min(1)
          .meta({
            description: "Append audit lines to this file (relative to the manifest) instead of stderr.",
            examples: ["./audit.log"],
          })
          .optional(),
        arguments: z
          .boolean()
          .default(MANIFEST_DEFAULTS.auditArguments)
          .describe(
            "Also log each call's arguments and its brief (which is made of them), with every known secret redacted.",
          ),
      })
      .describe(
        "One JSON line per call: time, traceId, tool, instance, skill@version, risk, outcome, durationMs, caller; with `arguments`, the call's brief and arguments too.",
      )
      .optional(),
    confirmation: z
      .strictObject({
        secret: SecretSourceSchema.meta({
          description:
            "Signs the confirmation questions and operation ids, so every replica can verify them; at least 32 bytes (e.g. openssl rand -hex 32). Default: a random secret per process.",
        }).optional(),
        ttlSeconds: z
          .int()
          .min(10)
          .max(86_400)
          .default(MANIFEST_DEFAULTS.confirmationTtlSeconds)
          .describe("How long a confirmation question or an operation id stays valid."),
        fallback: ConfirmationFallbackSchema,
      })
      .describe(
        "How dangerous tools are confirmed: by asking the user through the client (MCP elicitation), or, where the client cannot, as `fallback` says.",
      )
      .optional(),
    http: HttpSettingsSchema.optional(),
    stdio: StdioSettingsSchema.optional(),
    tasks: TaskSettingsSchema.optional(),
    state: StateSettingsSchema,
    credentials: CredentialSettingsSchema.optional(),
  })
  .meta({
    $id: "https://skillport.dev/schemas/manifest.schema.json",
    title: "Skillport manifest",
    description: "Which skills one Skillport MCP server serves, and how each instance is configured.",
  });
