// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests write environment variables as ${NAME}, literally
// The manifest's section for one upstream MCP server (`servers[]`).
import { z } from "zod";
import { ServerAuthSchema } from "./credential-settings-schema.js";
import { SERVER_DEFAULTS } from "./defaults.js";
import { alwaysLoad, matching, SafeName, ScopeList, ToolOverride, unique } from "./schema-blocks.js";

/**
 * A string of a program's command line or folder, taken as written: a `${NAME}` there is refused (the process list
 * shows a command line to every local user, unredacted), so a secret goes in `env`.
 */
const Literal = (description: string, examples: readonly string[]) =>
  z
    .string()
    .max(8192)
    .meta({
      description: `${description} Taken as written: \`\${NAME}\` is refused here (every local user can read a command line in the process list); give a secret to the program in \`env\`.`,
      examples: [...examples],
    });

/** A string in which `${NAME}` is replaced by the host's environment variable NAME at start. */
const Expandable = (description: string, examples: readonly string[]) =>
  z
    .string()
    .max(8192)
    .meta({
      description: `${description} \`\${NAME}\` is replaced by the host's environment variable NAME at start; a variable that is not set stops the host.`,
      examples: [...examples],
    });

export const ServerEntrySchema = z
  .strictObject({
    mcp: matching("^[A-Za-z][A-Za-z0-9-]{0,31}$").meta({
      description: "This server's id, the prefix of its tool names (fs.read_file).",
      examples: ["fs", "remote"],
    }),
    command: Literal("A program that speaks MCP over stdio, as MCP clients configure it.", ["npx"]).min(1).optional(),
    args: z
      .array(Literal("One argument.", ["-y", "./docs"]))
      .max(256)
      .describe("The program's arguments.")
      .optional(),
    env: z
      .record(
        matching("^[A-Za-z_][A-Za-z0-9_]*$").and(SafeName),
        Expandable("The value. Values read from the host's environment are secrets to the redactor.", ["${API_KEY}"]),
      )
      .meta({
        description:
          "The program's environment, exactly: besides these it gets only the `inheritEnv` variables, never the host's whole environment.",
        examples: [{ GITHUB_TOKEN: "${GITHUB_TOKEN}" }],
      })
      .optional(),
    inheritEnv: unique(matching("^[A-Za-z_][A-Za-z0-9_]*$"))
      .max(64)
      .default([...SERVER_DEFAULTS.inheritEnv])
      .describe(
        "Variables the program gets from the host's environment, when set. The default lets `npx` find node and its cache; [] gives none.",
      ),
    cwd: Literal("The program's working folder, relative to the manifest.", ["./data"]).min(1).optional(),
    url: Expandable("A remote server's Streamable HTTP endpoint. Use instead of command.", [
      "https://tools.example.com/mcp",
    ])
      .min(1)
      .optional(),
    auth: ServerAuthSchema.optional(),
    headers: z
      .record(
        matching("^[A-Za-z0-9-]{1,128}$").and(SafeName),
        Expandable("The header's value. Values read from the host's environment are secrets to the redactor.", [
          "Bearer ${TOOLS_TOKEN}",
        ]),
      )
      .meta({
        description:
          "Headers sent to a remote server with every request. The caller's own token is never forwarded: a server gets only what its entry names.",
        examples: [{ Authorization: "Bearer ${TOOLS_TOKEN}" }],
      })
      .optional(),
    enabled: z
      .boolean()
      .default(SERVER_DEFAULTS.enabled)
      .describe("false keeps the server in the manifest without starting or listing it."),
    tools: z
      .strictObject({
        include: unique(z.string().min(1))
          .describe("Serve only these tools (names as the server lists them).")
          .optional(),
        exclude: unique(z.string().min(1)).describe("Serve every tool but these.").optional(),
        rename: z
          .record(SafeName, matching("^[A-Za-z0-9_-]{1,64}$"))
          .meta({
            description: 'New names for tools, as { "old_name": "new_name" } (names as the server lists them).',
            examples: [{ read_text_file: "read" }],
          })
          .optional(),
        override: z
          .record(SafeName, ToolOverride)
          .meta({
            description: "Per tool (as the server names it): a title, description or annotation hints to show instead.",
            examples: [{ read_text_file: { description: "Read a file of the team's docs." } }],
          })
          .optional(),
      })
      .describe("Which of the server's tools are served.")
      .optional(),
    alwaysLoad: alwaysLoad("this server's tools", "them").default(SERVER_DEFAULTS.alwaysLoad),
    allow: unique(z.string().min(1))
      .meta({
        description:
          "Tools of this server whose annotations say destructiveHint: true (and not readOnlyHint: true) that may run, each call after its user confirms it. Every other such tool is refused.",
        examples: [["write_file"]],
      })
      .optional(),
    scopes: z
      .record(z.string().min(1).max(128).and(SafeName), ScopeList)
      .meta({
        description:
          'Scopes a caller over HTTP must hold to call this server\'s tools: tool name (as the server lists it) → scopes; "*" for every tool. A server entry passes through tools only (not its resources or prompts), so "resources:*" and "prompts:*" have no place here.',
        examples: [{ "*": ["fs:read"] }],
      })
      .optional(),
    timeoutMs: z
      .int()
      .min(1)
      .max(3_600_000)
      .default(SERVER_DEFAULTS.timeoutMs)
      .describe("How long one call may take before it answers TIMEOUT and the server is told to cancel it."),
    startTimeoutMs: z
      .int()
      .min(1)
      .max(600_000)
      .default(SERVER_DEFAULTS.startTimeoutMs)
      .describe("How long starting the server (spawn or connect, handshake, tools/list) may take."),
    maxResultBytes: z
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .default(SERVER_DEFAULTS.maxResultBytes)
      .describe(
        "The most bytes one message from the server may take (a stdio line, an HTTP JSON body, one SSE event), counted while it is read, before it is parsed. An answer past it is UPSTREAM_ERROR naming this field, and the connection is reset (a stdio server is killed and started again on the next call). timeoutMs does not bound what a fast server sends.",
      ),
    concurrency: z
      .int()
      .min(1)
      .max(1000)
      .default(SERVER_DEFAULTS.concurrency)
      .describe("Calls to this server at once; more wait in a queue."),
    queue: z
      .int()
      .min(0)
      .max(100_000)
      .default(SERVER_DEFAULTS.queue)
      .describe("Calls that may wait for a free slot; beyond it a call answers RATE_LIMITED."),
    restart: z
      .strictObject({
        initialDelayMs: z
          .int()
          .min(100)
          .max(3_600_000)
          .default(SERVER_DEFAULTS.restart.initialDelayMs)
          .describe("The wait before the third start after two failures in a row; it doubles with each further one."),
        maxDelayMs: z
          .int()
          .min(100)
          .max(3_600_000)
          .default(SERVER_DEFAULTS.restart.maxDelayMs)
          .describe("The longest wait between two starts."),
      })
      .meta({
        description:
          "How a server that keeps failing (a failed start, or a connection lost before it answered a call) is started again: the first failure is retried on the next call, each further one waits a doubling delay with jitter, during which its tools answer UNAVAILABLE without starting it.",
        examples: [{ initialDelayMs: 1000, maxDelayMs: 60000 }],
      })
      .optional(),
    idleStopMs: z
      .int()
      .min(1000)
      .max(86_400_000)
      .meta({
        description:
          "Stop a stdio server after this long without a call (never while a call runs); the next call starts it again. Default: keep it running.",
        examples: [300000],
      })
      .optional(),
  })
  .meta({
    id: "server",
    description:
      'An upstream MCP server, written as MCP clients configure one: { "mcp": "fs", "command": "npx", "args": [...] } or { "mcp": "remote", "url": "https://…/mcp", "headers": {...} }. Its tools are served beside the skills\' as <mcp><separator><tool>, through the same checks.',
  });
