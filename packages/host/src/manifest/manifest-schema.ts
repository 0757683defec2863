// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests write environment variables as ${NAME}, literally
// The manifest, defined once. manifest.schema.json is generated from these schemas at build time
// (scripts/generate-manifest-schema.mjs), and the manifest's TypeScript types are inferred from them (manifest.ts).
// The host never imports this module at run time: it validates with ajv against the generated JSON Schema, compiled
// once, so start-up pays for neither zod nor a conversion. Every default comes from defaults.ts.
import { z } from "zod";
import {
  HTTP_AUTH_DEFAULTS,
  HTTP_DEFAULTS,
  MANIFEST_DEFAULTS,
  SERVER_DEFAULTS,
  SKILL_DEFAULTS,
  STATE_DEFAULTS,
  STDIO_DEFAULTS,
} from "./defaults.js";

/**
 * Names every JavaScript object already answers to: code reading a map from the manifest would confuse a key named
 * like one of them with the object's own property.
 */
export const OBJECT_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "toString",
  "valueOf",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
] as const;

// --- building blocks ---

/** A string matching a pattern, published as written (a RegExp's `source` would escape every "/"). */
const matching = (pattern: string) => z.string().regex(new RegExp(pattern, "u")).meta({ pattern });

/** An array without duplicates: checked here, published as `uniqueItems`. */
const unique = <T extends z.ZodType>(items: T) =>
  z
    .array(items)
    .refine((list) => new Set(list.map((item) => JSON.stringify(item))).size === list.length, "items must be unique")
    .meta({ uniqueItems: true });

const SafeName = z
  .string()
  .refine((name) => !(OBJECT_NAMES as readonly string[]).includes(name), "is not allowed as a name")
  .meta({
    id: "safeName",
    description:
      "A name used as a key in the manifest: anything but the names every JavaScript object already carries, which code reading the map would confuse with them.",
    not: { enum: OBJECT_NAMES },
  });

export const SecretSourceSchema = z
  .xor([
    z.strictObject({
      env: matching("^[A-Za-z_][A-Za-z0-9_]*$").meta({
        description: "The environment variable holding it.",
        examples: ["GITHUB_TOKEN"],
      }),
    }),
    z.strictObject({
      file: z
        .string()
        .min(1)
        .meta({ description: "A file holding it, relative to the manifest.", examples: ["./secrets/github-token"] }),
    }),
  ])
  .meta({ id: "secretSource", description: "Where a secret comes from: an environment variable or a file (trimmed)." });

const Scope = matching("^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,128}$").meta({
  id: "scope",
  description: "An OAuth scope token (RFC 6749 §3.3): printable ASCII without spaces, quotes or backslashes.",
  examples: ["notes:read", "notes:write"],
});

const ScopeList = unique(Scope).max(64).meta({ id: "scopeList" });

// --- a skill entry ---

const ToolOverride = z.strictObject({
  title: z.string().min(1).max(200).optional(),
  description: z.string().min(1).max(4000).optional(),
  annotations: z
    .strictObject({ idempotentHint: z.boolean().optional(), openWorldHint: z.boolean().optional() })
    .meta({ description: "readOnlyHint and destructiveHint follow the tool's risk and cannot be overridden." })
    .optional(),
});

export const SkillEntrySchema = z
  .strictObject({
    package: matching("^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$")
      .min(1)
      .max(214)
      .meta({
        description: "An installed npm package, resolved as Node resolves an import from the manifest's folder.",
        examples: ["@skillport/skill-notes"],
      })
      .optional(),
    path: z
      .string()
      .min(1)
      .meta({
        description: "A local skill package folder, relative to the manifest. Use instead of package.",
        examples: ["./skills/skill-notes"],
      })
      .optional(),
    version: z
      .string()
      .min(1)
      .meta({
        description: "A semver range the installed package must satisfy, or the host refuses to start.",
        examples: ["^0.1.0"],
      })
      .optional(),
    mcp: matching("^[A-Za-z][A-Za-z0-9-]{0,31}$")
      .meta({
        description: "This instance's id, the prefix of its tool names. Defaults to the skill's own name.",
        examples: ["notes", "work"],
      })
      .optional(),
    enabled: z
      .boolean()
      .default(SKILL_DEFAULTS.enabled)
      .describe("false keeps the instance in the manifest without loading it."),
    config: z
      .record(z.string(), z.unknown())
      .describe("The instance's config, validated against the skill's config schema.")
      .optional(),
    tools: z
      .strictObject({
        include: unique(z.string().min(1))
          .describe("Serve only these tools (names as the skill defines them).")
          .optional(),
        exclude: unique(z.string().min(1)).describe("Serve every tool but these.").optional(),
        rename: z
          .record(SafeName, matching("^[A-Za-z0-9_-]{1,64}$"))
          .meta({
            description: 'New names for tools, as { "old_name": "new_name" } (names as the skill defines them).',
            examples: [{ search_notes: "find_notes" }],
          })
          .optional(),
        override: z
          .record(SafeName, ToolOverride)
          .meta({
            description:
              "Per tool (as the skill names it): a title, description or annotation hints to show instead of the skill's own.",
            examples: [{ search_notes: { description: "Search the team handbook." } }],
          })
          .optional(),
      })
      .describe("Which of the skill's tools this instance serves.")
      .optional(),
    resources: z
      .strictObject({
        include: unique(z.string().min(1))
          .describe("Serve only these resources and resource templates (names as the skill defines them).")
          .optional(),
        exclude: unique(z.string().min(1)).describe("Serve every resource and template but these.").optional(),
        rename: z
          .record(SafeName, matching("^[A-Za-z0-9._-]{1,64}$"))
          .meta({
            description:
              'New names for resources and templates in resources/list, as { "old_name": "new_name" }; their URIs do not change.',
            examples: [{ note: "handbook_page" }],
          })
          .optional(),
      })
      .describe(
        "Which of the skill's resources and resource templates this instance serves. Their URIs are served under the instance's mcp id (scheme://<mcp>/…) unless prefix is false.",
      )
      .optional(),
    prompts: z
      .strictObject({
        include: unique(z.string().min(1))
          .describe("Serve only these prompts (names as the skill defines them).")
          .optional(),
        exclude: unique(z.string().min(1)).describe("Serve every prompt but these.").optional(),
        rename: z
          .record(SafeName, matching("^[A-Za-z0-9_-]{1,64}$"))
          .meta({
            description: 'New names for prompts, as { "old_name": "new_name" } (names as the skill defines them).',
            examples: [{ code_review: "review_pr" }],
          })
          .optional(),
      })
      .describe('Which of the skill\'s prompts this instance serves, named "<mcp><separator><prompt>" like tools.')
      .optional(),
    credentials: z
      .record(SafeName, SecretSourceSchema)
      .meta({
        description:
          "Where each credential the skill declares comes from. `token` reaches ctx.token; every one reaches ctx.credentials.<name>.",
        examples: [{ token: { env: "GITHUB_TOKEN" } }],
      })
      .optional(),
    timeoutMs: z
      .int()
      .min(1)
      .max(3_600_000)
      .meta({
        description: "Overrides every tool's timeout for this instance (default: the tool's own, else 30000).",
        examples: [10000],
      })
      .optional(),
    concurrency: z
      .int()
      .min(1)
      .max(1000)
      .default(SKILL_DEFAULTS.concurrency)
      .describe("Calls this instance runs at once; more wait in a queue."),
    queue: z
      .int()
      .min(0)
      .max(100_000)
      .default(SKILL_DEFAULTS.queue)
      .describe("Calls that may wait for a free slot; beyond it a call answers RATE_LIMITED."),
    isolation: z
      .enum(["in-process", "worker", "process"])
      .default(SKILL_DEFAULTS.isolation)
      .describe(
        "\"worker\" runs the instance's capabilities in worker threads: a stuck or runaway capability is terminated without harming the host (a thread shares the host's process and environment). \"process\" runs them in child processes with an empty environment, sandboxed with bubblewrap where it works (no network, only the skill's code and its config's paths): the instance cannot read the host's or another instance's credentials.",
      ),
    memoryMb: z
      .int()
      .min(16)
      .max(65_536)
      .meta({
        description: 'With isolation "worker" or "process": the heap limit of each worker or child process, in MiB.',
        examples: [128],
      })
      .optional(),
    allow: unique(z.string().min(1))
      .meta({
        description:
          "Dangerous tools this instance may run (after confirmation). Every other dangerous tool is refused.",
        examples: [["run_command"]],
      })
      .optional(),
    scopes: z
      .record(z.string().min(1).max(128).and(SafeName), ScopeList)
      .meta({
        description:
          'OAuth-style scopes a caller over HTTP must hold to use this instance: tool name (as the skill defines it) → scopes, all required. "*" applies to everything the instance serves: tools, resources and prompts. "resources:*" adds scopes its resources and resource templates require (lists, reads, subscriptions, completions), "prompts:*" those its prompts require (lists, renders, completions); tool names never hold ":". An instance that gives any tool its own key and serves resources (or prompts) without "resources:*" (or "prompts:*") fails closed: they are refused to every caller over HTTP (`skillport check` warns); give the key [] when the "*" scopes are enough. What a caller lacks is left out of its lists, and a call answers PERMISSION_DENIED. Calls over stdio and `skillport call` are local and not checked. The SKILL.md files (skill://) are instructions, like the tool descriptions, and are not scoped.',
        examples: [
          { create_study_task: ["notes:write"], "*": ["notes:read"], "resources:*": [] },
          { read_note: ["notes:read"], search_notes: ["notes:read"], "resources:*": ["notes:read"] },
        ],
      })
      .optional(),
    prefix: z
      .boolean()
      .default(SKILL_DEFAULTS.prefix)
      .describe(
        'false mounts the tools and prompts without the "<mcp><separator>" prefix (search_notes instead of notes.search_notes), resources without their scheme://<mcp>/ prefix, and the SKILL.md at skill://<name>/SKILL.md instead of skill://<mcp>/<name>/SKILL.md.',
      ),
  })
  .meta({
    id: "skill",
    description: "One skill instance: a package (or local folder) with its own mcp id and config.",
  });

// --- an upstream MCP server ---

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

// --- http ---

export const StaticTokenSchema = z
  .strictObject({
    name: matching("^[A-Za-z0-9._:@-]{1,64}$").meta({
      description: "Names the caller: ctx.auth.id, logs and metrics show it as token:<name>. Never the token itself.",
      examples: ["ci-bot"],
    }),
    scopes: ScopeList.default([...HTTP_AUTH_DEFAULTS.tokenScopes]).meta({
      description: "The scopes a caller with this token holds.",
    }),
    token: SecretSourceSchema,
  })
  .meta({ id: "staticToken" });

export const JwtSettingsSchema = z
  .strictObject({
    jwksUrl: z
      .url()
      .meta({
        description: "The issuer's JWKS URL, fetched on first use and cached. Give jwksUrl or jwksFile.",
        examples: ["https://auth.example.com/.well-known/jwks.json"],
      })
      .optional(),
    jwksFile: z
      .string()
      .min(1)
      .meta({ description: "A JWKS file, relative to the manifest, read at startup.", examples: ["./jwks.json"] })
      .optional(),
    issuer: z
      .string()
      .min(1)
      .meta({
        description:
          "The required `iss` claim; also advertised as the authorization server in the protected-resource metadata.",
        examples: ["https://auth.example.com"],
      }),
    audience: z.xor([z.string().min(1), z.array(z.string().min(1)).min(1)]).meta({
      description: "The required `aud` claim: this server's resource identifier, usually its public URL.",
      examples: ["https://skills.example.com/mcp"],
    }),
    resource: z
      .url()
      .meta({
        description:
          "This server's public MCP URL, advertised as `resource` in /.well-known/oauth-protected-resource when http.publicUrl is not set (give one of them, or the same URL in both).",
        examples: ["https://skills.example.com/mcp"],
      })
      .optional(),
    algorithms: unique(z.string().min(1))
      .meta({
        description: "Accepted signing algorithms. Defaults to the asymmetric algorithms jose supports.",
        examples: [["RS256", "ES256"]],
      })
      .optional(),
    clockToleranceSec: z
      .int()
      .min(0)
      .max(300)
      .default(HTTP_AUTH_DEFAULTS.clockToleranceSec)
      .describe("Leeway for exp and nbf."),
  })
  .meta({
    id: "jwtAuth",
    description:
      "OAuth 2.1 resource-server mode: JWT access tokens verified against the issuer's keys (JWKS), with issuer, audience and expiry checked.",
  });

const HttpAuth = z
  .strictObject({
    tokens: z
      .array(StaticTokenSchema)
      .min(1)
      .describe("Static bearer tokens, each with a name (the caller's identity) and scopes.")
      .optional(),
    jwt: JwtSettingsSchema.optional(),
  })
  .meta({
    id: "httpAuth",
    description:
      "Bearer authentication for the MCP endpoint: static tokens, OAuth 2.1 JWT access tokens, or both. Required when `host` is not loopback.",
  });

export const HttpSettingsSchema = z
  .strictObject({
    host: z
      .string()
      .min(1)
      .default(HTTP_DEFAULTS.host)
      .meta({
        description:
          "The address to bind. Loopback (127.0.0.1, ::1, localhost) by default; any other address requires `auth`, or the host refuses to start.",
        examples: ["127.0.0.1", "0.0.0.0"],
      }),
    port: z
      .int()
      .min(0)
      .max(65_535)
      .default(HTTP_DEFAULTS.port)
      .describe('The TCP port; 0 picks a free one (the bound URL is logged as {"msg":"listening","url":…}).'),
    path: matching("^/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$")
      .default(HTTP_DEFAULTS.path)
      .describe("The MCP endpoint's path."),
    publicUrl: matching("^https?://[^/?#@\\s]+(/[^?#\\s]*)?$")
      .meta({
        format: "uri",
        description:
          "The MCP endpoint's URL as clients reach it (behind a proxy: the public one), e.g. https://skills.example.com/mcp. Advertised as `resource` in /.well-known/oauth-protected-resource and in the WWW-Authenticate challenge; never taken from request headers. Defaults to auth.jwt.resource, else, on loopback, the bound URL. Required with JWT authentication beyond loopback.",
        examples: ["https://skills.example.com/mcp"],
      })
      .optional(),
    allowedHosts: unique(
      matching("^(\\*|[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*|\\[[0-9A-Fa-f:.]+\\])$").describe(
        'A hostname or address as the Host header carries it, without a port (IPv6 in brackets), or "*".',
      ),
    )
      .meta({
        description:
          'Host header hostnames (no port) the MCP endpoint answers besides localhost, 127.0.0.1 and [::1] (always answered), and the bound address when it is a specific one; any other Host gets 403 (DNS-rebinding protection). "*" accepts any Host (only behind a proxy that checks it).',
        examples: [["skills.example.com"]],
      })
      .optional(),
    allowedOrigins: unique(
      matching("^[a-z][a-z0-9+.-]*://([a-z0-9-]+(\\.[a-z0-9-]+)*|\\[[0-9a-f:.]+\\])(:[0-9]{1,5})?$").describe(
        "An origin as a browser sends it: scheme://host[:port] in lower case, no path, no trailing slash, no default port.",
      ),
    )
      .default([...HTTP_DEFAULTS.allowedOrigins])
      .meta({
        description:
          "Browser origins (scheme://host[:port], exactly as a browser sends them in Origin) that may call the MCP endpoint, with CORS. A request with any other Origin gets 403, loopback pages included; requests without an Origin (non-browser clients) pass. Default: none, so no web page can call the server.",
        examples: [["https://app.example.com", "http://localhost:5173"]],
      }),
    maxBodyBytes: z
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(HTTP_DEFAULTS.maxBodyBytes)
      .describe("The largest request body accepted; a larger one gets 413."),
    rateLimit: z
      .strictObject({
        requestsPerMinute: z
          .int()
          .min(0)
          .default(HTTP_DEFAULTS.requestsPerMinute)
          .describe("Sustained requests per minute per caller; 0 turns the limit off. Over it: 429 with Retry-After."),
        burst: z
          .int()
          .min(1)
          .describe(
            "How many requests a caller may send at once before the rate applies. Defaults to requestsPerMinute.",
          )
          .optional(),
      })
      .describe(
        "A token bucket per caller (token:<name>, jwt:<subject>, or the remote address when unauthenticated), kept in the state store (see `state`): with the default memory store each replica counts on its own, so behind N replicas a caller may get up to N times the limit; with Redis the budget is shared by every replica. Each request carries one JSON-RPC message (batches are refused), so the limit counts calls.",
      )
      .optional(),
    timeouts: z
      .strictObject({
        headersMs: z
          .int()
          .min(1)
          .default(HTTP_DEFAULTS.headersMs)
          .describe("Time allowed to receive a request's headers."),
        requestMs: z
          .int()
          .min(1)
          .default(HTTP_DEFAULTS.requestMs)
          .describe("Time allowed to receive a whole request (headers and body); not the time a tool may run."),
        idleMs: z
          .int()
          .min(1)
          .default(HTTP_DEFAULTS.idleMs)
          .describe("How long an idle keep-alive connection stays open between requests."),
      })
      .describe("Socket timeouts that keep slow or idle clients from holding connections.")
      .optional(),
    shutdownGraceMs: z
      .int()
      .min(0)
      .default(HTTP_DEFAULTS.shutdownGraceMs)
      .describe(
        "On SIGTERM or SIGINT, how long in-flight requests may run to completion after the server stops accepting new ones.",
      ),
    sessions: z
      .boolean()
      .default(HTTP_DEFAULTS.sessions)
      .describe(
        "true keeps a session for each 2025-11-25 client that initializes (Mcp-Session-Id), so that over HTTP in that era the server can ask the client during a call (elicitation, sampling, roots: confirmations and ctx.elicit) and remembers logging/setLevel. Sessions live in this process: behind a load balancer, route a session's requests to one replica (sticky sessions). The 2026-07-28 era needs none. Default false: every request is served on its own.",
      ),
    auth: HttpAuth.optional(),
  })
  .meta({
    id: "http",
    description:
      "How `skillport serve --http` serves this manifest over Streamable HTTP. Command-line flags override these fields.",
    examples: [
      {
        host: "0.0.0.0",
        port: 3333,
        allowedHosts: ["skills.example.com"],
        auth: { tokens: [{ name: "ci-bot", scopes: ["notes:read"], token: { env: "SKILLPORT_TOKEN_CI" } }] },
      },
    ],
  });

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
    state: StateSettingsSchema,
  })
  .meta({
    $id: "https://skillport.dev/schemas/manifest.schema.json",
    title: "Skillport manifest",
    description: "Which skills one Skillport MCP server serves, and how each instance is configured.",
  });
