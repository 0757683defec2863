// Every default of the manifest, once. The manifest's schema (manifest-schema.ts) takes its `.default(…)`s from here,
// so manifest.schema.json publishes them; parseManifest fills them in from here. Plain values, cheap to import.

/** The file name `skillport` looks for when no manifest is given. */
export const DEFAULT_MANIFEST = "skills.manifest.json";

/** Defaults of the manifest's top-level fields, `audit` and `confirmation`. */
export const MANIFEST_DEFAULTS = {
  name: "skillport",
  version: "0.0.0",
  separator: ".",
  auditArguments: false,
  confirmationTtlSeconds: 300,
  confirmationFallback: "refuse",
} as const;

/**
 * Defaults of the manifest's `discovery`: how clients find the tools. "all" lists every tool in tools/list; "search"
 * lists the always-loaded ones and two tools that find and call the rest.
 */
export const DISCOVERY_DEFAULTS = {
  mode: "all",
  searchTool: "search_tools",
  callTool: "call_tool",
  /** How many tools search_tools answers when the caller gives no limit. */
  results: 5,
  /** The most a caller may ask for. */
  maxResults: 50,
} as const;

/** Defaults of a skill entry; the registry applies them when it builds the instance. */
export const SKILL_DEFAULTS = {
  enabled: true,
  alwaysLoad: false,
  prefix: true,
  concurrency: 8,
  queue: 64,
  isolation: "in-process",
} as const;

/** Defaults of an upstream server entry (`servers[i]`). */
export const SERVER_DEFAULTS = {
  enabled: true,
  alwaysLoad: false,
  /** What `npx` needs to find node and its cache; nothing secret. */
  inheritEnv: ["PATH", "HOME"] as readonly string[],
  timeoutMs: 30_000,
  startTimeoutMs: 30_000,
  /**
   * 4 MiB: the most one message from the server may take (a stdio line, an HTTP JSON body, an SSE event), counted
   * while it is read. Reading an answer costs the host several times its size (decoding, parsing, the envelope,
   * redaction, the answer written out), so this bounds what one call can cost it.
   */
  maxResultBytes: 4 * 1024 * 1024,
  concurrency: 8,
  queue: 64,
  /** A server failing again and again waits 0.5 s, 1 s, 2 s … up to 30 s between starts. */
  restart: { initialDelayMs: 500, maxDelayMs: 30_000 },
} as const;

/** Defaults of the manifest's `http` object. */
export const HTTP_DEFAULTS = {
  host: "127.0.0.1",
  port: 3333,
  path: "/mcp",
  allowedOrigins: [] as readonly string[],
  maxBodyBytes: 1024 * 1024,
  requestsPerMinute: 600,
  headersMs: 10_000,
  requestMs: 30_000,
  idleMs: 5_000,
  shutdownGraceMs: 10_000,
  sessions: false,
} as const;

/** Defaults inside `http.auth`: a static token's scopes and a JWT's clock leeway. */
export const HTTP_AUTH_DEFAULTS = {
  tokenScopes: [] as readonly string[],
  clockToleranceSec: 5,
} as const;

/** Defaults of the manifest's `stdio` object. */
export const STDIO_DEFAULTS = {
  /**
   * 64 MiB: the largest call the bundled skills accept, as a standard JSON encoder writes it, fits. That is
   * files.write_file at its 8 MiB ceiling: about 11.2 MB as base64, at most 48 MiB as text whose every character a
   * JSON encoder escapes (`\u0001`).
   */
  maxMessageBytes: 64 * 1024 * 1024,
} as const;

/** Defaults of the manifest's `state` object, and the environment variable that selects Redis without editing it. */
export const STATE_DEFAULTS = {
  store: "memory",
  /** A redis:// or rediss:// URL: when set, replicas share state in that Redis, whatever the manifest says. */
  urlVariable: "SKILLPORT_STATE_URL",
} as const;

/** Defaults of the manifest's `tasks` object: how long-running calls run as tasks (the Tasks extension, SEP-2663). */
export const TASK_DEFAULTS = {
  /** One hour: how long a finished task and its result are kept after its last change. */
  ttlMs: 60 * 60 * 1000,
  /** How often a client is told to poll tasks/get. */
  pollIntervalMs: 1000,
  /** A call that answers within this time is answered as a plain call, no task made. */
  immediateMs: 250,
  /** Tasks one caller may have running or waiting for answers at once. */
  maxActivePerCaller: 16,
  /** 1 MiB: the largest result a task keeps (as JSON). */
  maxResultBytes: 1024 * 1024,
  /** 15 s: the longest a task stays working once the replica running it stopped. */
  leaseMs: 15_000,
} as const;

/** Defaults of the manifest's `credentials` object: per-caller credentials. */
export const CREDENTIAL_DEFAULTS = {
  /** Keep sealed records where the shared state is. */
  store: "state",
  /** Ten minutes: how long a connect link can be opened. */
  linkTtlSeconds: 600,
} as const;
