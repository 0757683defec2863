import type {
  ElicitAnswer,
  ElicitRequest,
  RegisteredSkill,
  RegisterSkill,
  Root,
  SampleAnswer,
  SampleRequest,
  SkillContext,
} from "@skillport/core";
import { SkillError } from "@skillport/core";
import { instanceConfig, surfaceOf } from "@skillport/host/surface";
import { createRedactor, credentialAccess } from "@skillport/host/testing";

/** Options for {@link mockContext}. */
export interface MockContextOptions<Config = unknown> {
  /**
   * The instance's `token` credential, as the host would resolve it. Also appears as `credentials.token`.
   * @default undefined (no credential)
   * @example "test-token"
   */
  token?: string;
  /**
   * Every credential by name, as the skill declares them. `token` above wins over `credentials.token`.
   * @default {}
   */
  credentials?: Readonly<Record<string, string | undefined>>;
  /**
   * The instance config. With `skill`, as written in a manifest: the context holds what the host would build from
   * it — validated against the skill's config schema, defaults filled in, `format: "path"` fields resolved against
   * `dir` — and an invalid config throws, naming each field at fault (`config.vault: is required but missing`).
   * Without `skill`, as the capability receives it, used as given.
   * @default {}
   */
  config?: Config;
  /**
   * With `skill`: the folder that relative `format: "path"` fields of `config` resolve against, as the manifest's
   * folder does for the host.
   * @default process.cwd()
   */
  dir?: string;
  /**
   * Aborted when the test wants the capability to stop; pass `AbortSignal.abort()` for an already-cancelled call.
   * @default a signal that never aborts
   */
  signal?: AbortSignal;
  /** @default "mock-trace-id" */
  traceId?: string;
  /**
   * Secrets the host would know (other instances' credentials, HTTP tokens); `ctx.findSecret` finds these and
   * this context's own credentials with the host's own redactor: plainly or encoded (base64, base64url, hex,
   * URL-encoded, HTML-escaped), split across lines or cut short, in text or bytes, as `skillport serve` would.
   * @default []
   */
  secrets?: readonly string[];
  /**
   * The network under `ctx.fetch`: the global fetch, or your own to assert on the requests. With `skill`, `ctx.fetch`
   * adds the credentials the skill declares with `fetch` above it, exactly as the host does (declared origins only,
   * redirects followed and checked hop by hop), so your stand-in sees the headers a real API would.
   * @default the global fetch
   */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /**
   * The skill under test (its `register`, or what it returns). Given, the context is built as the host builds it:
   * `config` is validated and completed by the skill's config schema (see `config`), and the credential
   * declarations are followed: a credential declared with `fetch` is left out of `ctx.token` and `ctx.credentials`
   * and added by `ctx.fetch` for its declared origins (computed from the config).
   * @default undefined (`config` used as given; every credential reaches `ctx.token`/`ctx.credentials`; `ctx.fetch` adds nothing)
   * @example mockContext({ skill: register, token: "test-token", config: { vault: "./vault" } })
   */
  skill?: RegisterSkill | RegisteredSkill;
  /**
   * The client the capability may ask (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`): how it answers each. What is
   * left out, the client cannot answer (`ctx.clientSupports` says false, and asking rejects with UNAVAILABLE).
   * @default {} (a client that answers nothing)
   * @example { elicit: () => ({ action: "accept", content: { branch: "main" } }), roots: [{ uri: "file:///work" }] }
   */
  client?: MockClient;
}

/** How a {@link mockContext}'s client answers the capability's questions. */
export interface MockClient {
  elicit?: (request: ElicitRequest) => ElicitAnswer | Promise<ElicitAnswer>;
  sample?: (request: SampleRequest) => SampleAnswer | Promise<SampleAnswer>;
  roots?: readonly Root[];
}

/** One question the capability asked the client. */
export type AskedQuestion =
  | { kind: "elicit"; request: ElicitRequest }
  | { kind: "sample"; request: SampleRequest }
  | { kind: "roots" };
/**
 * The type of `ctx.config` when `mockContext` builds it from the skill's schema: the capability under test names it
 * (`searchNotes(params, ctx: SkillContext<NotesConfig>)`), or the test does (`mockContext<NotesConfig>({ skill, … })`).
 */
// biome-ignore lint/suspicious/noExplicitAny: built at run time from a JSON Schema; the capability's own type applies
type SkillConfig = any;

/** One `ctx.progress(done, total?, message?)` call. */
export interface ProgressCall {
  done: number;
  total: number | undefined;
  message: string | undefined;
}

/** One `ctx.log.<level>(message, data?)` call. */
export interface LogRecord {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  data: Record<string, unknown> | undefined;
}

/** A {@link SkillContext} that records what the capability reported. */
export interface MockContext<Config = unknown> extends SkillContext<Config> {
  /** Every `ctx.progress` call, in order. */
  readonly progressCalls: ProgressCall[];
  /** Every `ctx.log` call, in order. */
  readonly logs: LogRecord[];
  /** Every question asked of the client, in order. */
  readonly asked: AskedQuestion[];
}

/**
 * A context for calling a capability directly, without a host or a real credential. It records progress and
 * log calls so a test can assert on them. Given the skill, it builds the config as the host does (validated,
 * defaults filled, paths resolved) and holds its credentials as the host does.
 *
 * @example
 * // in skills/skill-notes: the config as a manifest gives it; the context holds it validated, with defaults
 * const ctx = mockContext({ skill: register, token: "test-token", config: { vault: "../../examples/vault" } });
 * const out = await searchNotes({ keyword: "agent", limit: 5, scope: "ai-agent" }, ctx);
 * expect(out.data.hits.length).toBeGreaterThan(0);
 * expect(ctx.logs).toEqual([]);
 */
export function mockContext<Config = SkillConfig>(
  options: MockContextOptions<Readonly<Record<string, unknown>>> & { skill: RegisterSkill | RegisteredSkill },
): MockContext<Config>;
export function mockContext<Config = unknown>(options?: MockContextOptions<Config>): MockContext<Config>;
export function mockContext<Config = unknown>(options: MockContextOptions<Config> = {}): MockContext<Config> {
  const progressCalls: ProgressCall[] = [];
  const logs: LogRecord[] = [];
  const log =
    (level: LogRecord["level"]) =>
    (message: string, data?: Record<string, unknown>): void => {
      logs.push({ level, message, data });
    };
  const credentials: Record<string, string | undefined> = {
    ...options.credentials,
    ...(options.token === undefined ? {} : { token: options.token }),
  };
  const redactor = createRedactor();
  redactor.add([...Object.values(credentials), ...(options.secrets ?? [])]);
  const signal = options.signal ?? new AbortController().signal;
  const network = options.fetch ?? ((input, init) => fetch(input, init));
  const skill = typeof options.skill === "function" ? options.skill() : options.skill;
  // The host's own config builder: what the skill would receive from a manifest holding this config.
  const config = (
    skill === undefined
      ? (options.config ?? {})
      : instanceConfig(surfaceOf(skill), options.config, { dir: options.dir ?? process.cwd() }).config
  ) as Config;
  const access =
    skill === undefined ? undefined : credentialAccess(skill, credentials, config, { signal, fetch: network });
  const visible = access?.credentials ?? credentials;
  const asked: AskedQuestion[] = [];
  const client = options.client ?? {};
  const cannot = (feature: string) =>
    new SkillError({
      code: "UNAVAILABLE",
      message: `the mock client cannot answer ${feature}; give mockContext a client that does`,
    });
  return {
    token: visible.token,
    credentials: Object.freeze({ ...visible }),
    hasCredential:
      access?.hasCredential ?? ((name) => Object.hasOwn(credentials, name) && (credentials[name] ?? "") !== ""),
    signal,
    config,
    traceId: options.traceId ?? "mock-trace-id",
    progress(done, total, message) {
      progressCalls.push({ done, total, message });
    },
    log: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
    fetch: access?.fetch ?? ((input, init) => network(input, { ...init, signal: init?.signal ?? signal })),
    findSecret: async (content) => redactor.find(content),
    clientSupports: (feature) =>
      feature === "elicitation"
        ? client.elicit !== undefined
        : feature === "sampling"
          ? client.sample !== undefined
          : client.roots !== undefined,
    async elicit<T>(request: ElicitRequest): Promise<ElicitAnswer<T>> {
      asked.push({ kind: "elicit", request });
      if (client.elicit === undefined) throw cannot("elicitation");
      return (await client.elicit(request)) as ElicitAnswer<T>;
    },
    async sample(request) {
      asked.push({ kind: "sample", request });
      if (client.sample === undefined) throw cannot("sampling");
      return client.sample(request);
    },
    async listRoots() {
      asked.push({ kind: "roots" });
      if (client.roots === undefined) throw cannot("roots");
      return client.roots;
    },
    progressCalls,
    logs,
    asked,
  };
}
