import type { AudioContent, ImageContent, TextContent } from "./content.js";
import type { SchemaInput } from "./schema.js";

/**
 * Structured log lines from a capability. The host writes them to its log (stderr) with the call's traceId and, where
 * the protocol era has them, sends them to the client as MCP logging notifications (at the level the client asked
 * for); both are redacted.
 */
export interface SkillLogger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/**
 * Everything a capability may use besides its parameters. No hidden globals: a skill never reads
 * `process.env`, never keeps module-level mutable state, never writes to stdout.
 */
export interface SkillContext<Config = unknown> {
  /**
   * This skill instance's `token` credential, resolved by the host from the manifest. Undefined when the skill
   * declares `token` with `fetch`: the host holds it and `ctx.fetch` adds it.
   */
  token?: string | undefined;
  /**
   * The credentials this instance was given, by name (`token` included). Never another instance's. Leaves out
   * those the skill declares with `fetch` (the host holds them): use `ctx.fetch`, and `ctx.hasCredential(name)`
   * to know whether one is configured.
   */
  credentials: Readonly<Record<string, string | undefined>>;
  /** Whether this instance has the credential `name` configured, whether the skill or the host holds it. */
  hasCredential(name: string): boolean;
  /** Aborted when the client cancels or the call times out. Pass it to every I/O you start. */
  signal: AbortSignal;
  /** The instance's config from the manifest, validated against the skill's config schema. */
  config: Config;
  /** Report progress of long work; sent to clients that asked for it. */
  progress(done: number, total?: number, message?: string): void;
  log: SkillLogger;
  /** Identifies this call in results, logs and audit lines. */
  traceId: string;
  /**
   * Who is calling, when the call came over HTTP, and the scopes it holds. `id` names the source first, so
   * identities from different sources never meet: `token:<name>` for a static bearer token, `jwt:<sub>` (or
   * `jwt:<client_id>`) for a JWT, `anonymous` on an unauthenticated loopback server. Never the caller's token.
   * Unset for local calls (stdio, `skillport call`).
   */
  auth?: { id: string; scopes: readonly string[] } | undefined;
  /**
   * `fetch` through the host. Use it instead of the global `fetch` for requests that need this instance's
   * credential: for each credential declared with `fetch` (`CredentialSpec.fetch`), the host sets its header
   * on requests to the declared origins (replacing any value the skill set), follows redirects itself and stops
   * adding it once a redirect leaves those origins. Under worker or process isolation the request runs in the
   * host, so the credential never enters the skill's code; the response body then arrives whole, not streamed.
   * Takes `ctx.signal` unless `init.signal` is given.
   */
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
  /**
   * Whether `content` holds a secret the host knows (any instance's credential, an HTTP token, the confirmation
   * secret), plainly or encoded (base64, base64url, hex, URL-encoded, HTML-escaped). Never says which secret.
   * A skill that returns content it did not write (a file, a web page) checks it before returning it, and
   * refuses with PERMISSION_DENIED when a secret is found.
   */
  findSecret(content: string | Uint8Array): Promise<SecretFinding | undefined>;
  /**
   * Asks the user for input through the client (MCP elicitation): a message and a flat object schema of strings,
   * numbers, booleans and enums. Resolves with the user's answer, its `content` checked against the schema.
   *
   * The question ends this run: the host answers the client with the question, and when the answer comes back it
   * runs the capability again from the start, this time resolving `elicit` with the answer (MCP's multi-round-trip
   * requests, in both protocol eras). So do nothing that must not happen twice before asking; ask first, act after.
   * Questions asked in the same turn (`Promise.all`) go to the client together. Refuses with UNAVAILABLE when the
   * client cannot ask its user (see {@link SkillContext.clientSupports}).
   *
   * @example
   * const answer = await ctx.elicit({ message: "Which branch?", schema: { type: "object", properties: { branch: { type: "string" } }, required: ["branch"] } });
   * if (answer.action !== "accept") throw new SkillError({ code: "PERMISSION_DENIED", message: "the user declined" });
   */
  elicit<T = Record<string, unknown>>(request: ElicitRequest): Promise<ElicitAnswer<T>>;
  /**
   * Asks the client's model for a completion (MCP sampling), the way {@link SkillContext.elicit} asks the user:
   * the run ends, and runs again with the answer.
   */
  sample(request: SampleRequest): Promise<SampleAnswer>;
  /** Asks the client for its roots (MCP roots), the way {@link SkillContext.elicit} asks the user. */
  listRoots(options?: { key?: string }): Promise<readonly Root[]>;
  /** Whether the client can answer `elicit` (elicitation), `sample` (sampling) or `listRoots` (roots). */
  clientSupports(feature: "elicitation" | "sampling" | "roots"): boolean;
}

/** A question to the user. */
export interface ElicitRequest {
  /** What to ask, shown to the user. */
  message: string;
  /** The answer's shape: a flat object schema (zod or JSON Schema) of strings, numbers, booleans and enums. */
  schema: SchemaInput;
  /**
   * Names the question, so its answer finds it when the run starts again. Defaults to its place among this run's
   * questions (`elicit-1`, `elicit-2`, …): give one when which questions a run asks depends on earlier answers.
   */
  key?: string;
}

/** The user's answer: accepted with content, declined, or dismissed. */
export type ElicitAnswer<T = Record<string, unknown>> =
  | { action: "accept"; content: T }
  | { action: "decline" }
  | { action: "cancel" };

/** A request for the client's model (MCP `sampling/createMessage`). */
export interface SampleRequest {
  messages: readonly SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: readonly string[];
  /** Names the request, like {@link ElicitRequest.key}. @default `sample-1`, `sample-2`, … */
  key?: string;
}

/** A message to or from the client's model. */
export interface SamplingMessage {
  role: "user" | "assistant";
  content: TextContent | ImageContent | AudioContent;
}

/** What the client's model answered. */
export interface SampleAnswer {
  role: "user" | "assistant";
  content: TextContent | ImageContent | AudioContent;
  model: string;
  stopReason?: string;
}

/** A folder or location the client shares (MCP roots). */
export interface Root {
  uri: string;
  name?: string;
}

/** Where {@link SkillContext.findSecret} found a secret: the encoding it was in, never the secret. */
export interface SecretFinding {
  form: "plain" | "base64" | "base64url" | "hex" | "url" | "html";
}
