import type { SkillContext } from "@skillport/core";
import { createRedactor } from "@skillport/host";

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
   * The instance config, as the host hands it after validation (defaults filled, paths resolved).
   * @default {}
   */
  config?: Config;
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
   * What `ctx.fetch` does. The host's adds the instance's credential for the origins the skill declares; here it
   * is the global fetch with the call's signal unless you pass your own (e.g. to assert on the requests).
   * @default the global fetch
   */
  fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>;
}

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
}

/**
 * A context for calling a capability directly, without a host or a real credential. It records progress and
 * log calls so a test can assert on them.
 *
 * @example
 * const ctx = mockContext({ token: "test-token", config: { vault: "./vault" } });
 * const out = await searchNotes({ keyword: "agent", limit: 5, scope: "ai-agent" }, ctx);
 * expect(ctx.logs).toEqual([]);
 */
export function mockContext<Config = unknown>(options: MockContextOptions<Config> = {}): MockContext<Config> {
  const progressCalls: ProgressCall[] = [];
  const logs: LogRecord[] = [];
  const log =
    (level: LogRecord["level"]) =>
    (message: string, data?: Record<string, unknown>): void => {
      logs.push({ level, message, data });
    };
  const credentials = {
    ...options.credentials,
    ...(options.token === undefined ? {} : { token: options.token }),
  };
  const redactor = createRedactor();
  redactor.add([...Object.values(credentials), ...(options.secrets ?? [])]);
  const signal = options.signal ?? new AbortController().signal;
  const doFetch = options.fetch ?? fetch;
  return {
    token: options.token ?? credentials.token,
    credentials: Object.freeze(credentials),
    signal,
    config: options.config ?? ({} as Config),
    traceId: options.traceId ?? "mock-trace-id",
    progress(done, total, message) {
      progressCalls.push({ done, total, message });
    },
    log: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
    fetch: (input, init) => doFetch(input, { ...init, signal: init?.signal ?? signal }),
    findSecret: async (content) => redactor.find(content),
    progressCalls,
    logs,
  };
}
