/** Structured log lines from a capability; the host routes them to stderr with the call's traceId. */
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
}

/** Where {@link SkillContext.findSecret} found a secret: the encoding it was in, never the secret. */
export interface SecretFinding {
  form: "plain" | "base64" | "base64url" | "hex" | "url" | "html";
}
