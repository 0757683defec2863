import type {
  CallToolResult,
  ClientCapabilities,
  InputRequests,
  InputRequiredResult,
  InputResponses,
  JSONRPCMessage,
  ListToolsResult,
  LoggingLevel,
  LoggingMessageNotification,
  ProgressNotification,
  ProgressToken,
  RequestId,
} from "@modelcontextprotocol/server";
import { inputRequired, inputResponse, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Envelope, SkillLogger } from "@skillport/core";
import type { Caller } from "../entries/check-scopes.js";
import type { InputFeature } from "../entries/tool-entry.js";
import type { Host } from "../host.js";
import type { CallOptions, CallOutcome, RunRefusal, StageName } from "../pipeline/call.js";
import type { CallStop } from "../pipeline/call-stop.js";
import { listedTools } from "../registry/discovery-listings.js";
import type { Registry } from "../registry/registry.js";
import type { TraceContext, TraceSpan } from "../tracing/tracing.js";
import { CallTrace } from "../tracing/tracing.js";
import { createDiscoveryTools } from "./discovery-tools.js";
import type { Tasks, ToolsAnswer } from "./tasks.js";
import { createTasks, missingTasksCapability } from "./tasks.js";
import type { RequestOrigin } from "./trace-request.js";
import { endThrownSpan, endToolSpan, openRequestSpan } from "./trace-request.js";

/**
 * Watches tool calls: `outcome` is "ok", the envelope's error code, or UNKNOWN_TOOL; `stage` is the pipeline stage
 * that answered (an UNAVAILABLE from `ensure-loaded` is a skill that could not load).
 */
export interface CallObserver {
  started(): void;
  finished(
    tool: string,
    skill: string | undefined,
    outcome: string,
    seconds: number,
    stage: StageName | "error" | "search",
  ): void;
}

/** One tools/call as every transport reads it from the request. */
export interface ToolCallRequest {
  name: string;
  args: Record<string, unknown>;
  /** The client asked for progress with this token (`params._meta.progressToken`). */
  progressToken?: ProgressToken | undefined;
  /** The request's JSON-RPC id, for its span when the host traces. */
  id?: RequestId | undefined;
  /** The trace context the client sent (`_meta` `traceparent`, else the HTTP header), read when the host traces. */
  trace?: TraceContext | undefined;
}

/**
 * What the client can answer when asked (MCP elicitation, sampling, roots), read once from its capabilities; and
 * whether it takes URL-mode elicitation (a link the user opens, 2025-11-25), which carries a connect link.
 */
export type ClientSupports = Readonly<Record<InputFeature, boolean>> & { readonly elicitationUrl?: boolean };

/**
 * What the core needs of the connection a tools/call came on: what its client can answer, who is calling, how the
 * call is stopped, the answers to the questions asked before, and where its notifications go. Each transport makes
 * one (stdio and in memory: one per connection and call; HTTP: one per request; the SDK's handlers: one from their
 * request context).
 */
export interface ToolConnection extends RequestOrigin {
  /** From {@link supportsOf}. */
  readonly supports: ClientSupports;
  /** Who is calling over HTTP; undefined for local transports, whose calls are not checked. */
  readonly caller?: Caller | undefined;
  /** Aborted when the client cancels or goes away. */
  readonly signal?: AbortSignal | undefined;
  /** The call's own stop, for a transport that cancels through it instead of a signal (see CallStop). */
  readonly stop?: CallStop | undefined;
  /** The client's answers to the previous round's questions, by key (`inputResponses`). */
  readonly responses?: Readonly<Record<string, unknown>> | undefined;
  /** The state this server minted for the previous round, as the client sent it back (`requestState`). */
  readonly state?: string | undefined;
  /** Sends a notification about the call (progress) before its answer; resolves once it is on its way. */
  readonly notify?: ((notification: ProgressNotification) => Promise<void>) | undefined;
  /** Sends one of the capability's log lines, as the transport's era and the client's level allow. */
  readonly log?: ((params: LoggingMessageNotification["params"]) => void) | undefined;
  /**
   * The client declared the Tasks extension (SEP-2663), for this request or its session: a task-capable tool's call
   * may then answer a task (see tasks.ts).
   */
  readonly tasks?: boolean | undefined;
  /**
   * Set by the Tasks extension on a round of a task it runs: the call runs as any call (the task branch is not taken
   * again), and `beforeRun`, once its checks passed, makes the task (see tasks.ts).
   */
  readonly taskRound?: { readonly beforeRun?: (() => Promise<RunRefusal | undefined>) | undefined } | undefined;
}

export type { ToolsAnswer } from "./tasks.js";

/**
 * The one tools core: `tools/list` and `tools/call` for every transport (stdio, in memory, Streamable HTTP in both
 * eras, the web handler, the SDK's own handlers). Each transport reads the request and describes its connection;
 * the core runs the call through the pipeline and answers. What the client can answer, how a call's log lines and
 * progress reach it, how a dangerous call is confirmed, and how an outcome becomes a result or an error are decided
 * here, once.
 */
export interface ToolsCore {
  readonly host: Host;
  /** The Tasks extension's methods (tasks/get, tasks/update, tasks/cancel) over the calls this core made tasks. */
  readonly tasks: Tasks;
  /** The tools/list result, built once per tool table (again after an upstream server's tools change), redacted. */
  list(): ListToolsResult;
  /** {@link list}'s result as JSON, serialised once per list, for a transport that writes text. */
  listJson(): string;
  /** Runs one tools/call through the pipeline and answers it. Rejects only with what the pipeline threw. */
  call(request: ToolCallRequest, connection: ToolConnection): Promise<ToolsAnswer>;
  /**
   * The one hand-over to the SDK. A call the core ran itself (its fast case) whose answer is a question is the SDK's
   * to ask, or to refuse for a client that did not declare it can answer: the transport passes the request on to
   * the SDK's server, with its answer noted here under what the server's tools handler will see (the connection's
   * server and the request's id; over HTTP the request as the SDK receives it), and with the log lines the client
   * has not been sent yet. The handler takes it once ({@link takePassedOn}) instead of running the call again.
   */
  passOn(key: object, id: RequestId, passed: PassedOn): void;
  /** The answer noted by {@link passOn} for this request, taken once; undefined for any other request. */
  takePassedOn(key: object, id: RequestId): PassedOn | undefined;
}

/** A question the core has for a request it passed on to the SDK, and the log lines to send before it. */
export interface PassedOn {
  readonly answer: { readonly question: InputRequiredResult };
  readonly logged?: readonly LoggingMessageNotification["params"][];
}

/** Options for {@link createToolsCore}. */
export interface ToolsCoreOptions {
  /** Told when each tools/call starts and ends, e.g. for metrics. */
  observer?: CallObserver;
}

/**
 * The tools core over one host. Cheap to keep for the host's life; every connection and request shares it.
 *
 * @example
 * const core = createToolsCore(host);
 * const answer = await core.call({ name: "notes.search_notes", args: { keyword: "agent" } }, { supports: supportsOf(undefined) });
 */
export function createToolsCore(host: Host, options: ToolsCoreOptions = {}): ToolsCore {
  const { observer } = options;
  // Undefined for discovery "all": then a call costs nothing more than it did before discovery existed. Made again
  // when the host swaps its table (Host.reload): the one branch a swap adds to a call, a comparison.
  let discovery = createDiscoveryTools(host);
  let discoveryOf = host.registry;
  const { tracing } = host;
  // By the key the SDK's handler sees (a connection's server, an HTTP request), then by request id.
  const passed = new WeakMap<object, Map<RequestId, PassedOn>>();
  // A task's rounds run as calls of this core (see ToolConnection.taskRound).
  const tasks = createTasks(host, { run: (request, connection) => core.call(request, connection) });
  const core: ToolsCore = {
    host,
    tasks,
    passOn(key, id, pass) {
      let byId = passed.get(key);
      if (byId === undefined) {
        byId = new Map();
        passed.set(key, byId);
      }
      byId.set(id, pass);
    },
    takePassedOn(key, id) {
      const byId = passed.get(key);
      const pass = byId?.get(id);
      if (pass !== undefined) byId?.delete(id);
      return pass;
    },
    list: () => listOf(host).result,
    listJson: () => {
      const listed = listOf(host);
      listed.json ??= JSON.stringify(listed.result);
      return listed.json;
    },
    // Chained on the pipeline's promise rather than awaited in an async function: a call makes two promises fewer,
    // which counts where Node runs a hook for every promise (an AsyncLocalStorage in use).
    call(asked, connection) {
      let request = asked;
      if (host.registry !== discoveryOf) {
        discoveryOf = host.registry;
        discovery = createDiscoveryTools(host);
      }
      if (discovery !== undefined) {
        const routed = discovery.route(asked.name, asked.args, connection.caller);
        if (routed !== undefined) {
          if ("envelope" in routed) {
            // Traced as any call: its own span, named after the discovery tool, with its outcome.
            const span =
              tracing === undefined ? undefined : openRequestSpan(tracing, "tools/call", asked.name, asked, connection);
            return answerDiscovery(routed.tool, routed.envelope, observer, span);
          }
          // The call tool stands for the tool it names: from here on the call is that tool's, and nothing else's
          // (its progress token, JSON-RPC id and trace context stay the request's).
          request = { ...asked, name: routed.call.name, args: routed.call.args };
        }
      }
      // The Tasks extension's branch: a task-capable tool's call from a client that declared it becomes a task
      // (tasks.ts), whose rounds come back here as calls.
      const { taskRound } = connection;
      if (taskRound === undefined) {
        const mode = tasks.modeOf(request.name, connection);
        if (mode === "task") return tasks.start(request, connection);
        if (mode === "refused") return Promise.resolve({ error: missingTasksCapability(`the tool ${request.name}`) });
      }
      const { name, progressToken } = request;
      const startedAt = performance.now();
      // Progress notifications still being sent, made on the first: most calls send none.
      let notifying: Set<Promise<unknown>> | undefined;
      const { notify } = connection;
      const callOptions = optionsOf(connection);
      if (taskRound?.beforeRun !== undefined) callOptions.beforeRun = taskRound.beforeRun;
      // Traced, the request has a span of its own, the pipeline's stages spans under it.
      const span =
        tracing === undefined ? undefined : openRequestSpan(tracing, "tools/call", name, request, connection);
      if (span !== undefined) callOptions.trace = new CallTrace(span);
      if (progressToken !== undefined && notify !== undefined) {
        callOptions.onProgress = (progress, total, message) => {
          const params: ProgressNotification["params"] = { progressToken, progress };
          if (total !== undefined) params.total = total;
          if (message !== undefined) params.message = message;
          // A client gone away must not fail the call.
          const sent = notify({ method: "notifications/progress", params }).catch(() => undefined);
          notifying ??= new Set();
          notifying.add(sent);
          void sent.finally(() => notifying?.delete(sent));
        };
      }
      const answered = (outcome: CallOutcome): ToolsAnswer | Promise<ToolsAnswer> => {
        const { tool } = outcome;
        const seconds = (performance.now() - startedAt) / 1000;
        // An unknown name is not a label: it would let any client grow the metrics without bound.
        if (tool === undefined) observer?.finished("(unknown)", undefined, "UNKNOWN_TOOL", seconds, outcome.stage);
        else {
          const code = outcome.envelope.ok ? "ok" : outcome.envelope.error.code;
          observer?.finished(name, tool.instance, code, seconds, outcome.stage);
        }
        if (span !== undefined) endToolSpan(span, outcome, host.registry, name);
        const answer = answerOf(outcome, connection.supports);
        // Every progress notification is on its way before the answer (the client ignores progress after it).
        return notifying !== undefined && notifying.size > 0 ? Promise.all(notifying).then(() => answer) : answer;
      };
      const failed = (error: unknown): never => {
        observer?.finished(name, undefined, "INTERNAL", (performance.now() - startedAt) / 1000, "error");
        if (span !== undefined) endThrownSpan(span);
        throw error;
      };
      try {
        observer?.started();
        return host.pipeline.call(name, request.args, callOptions).then(answered, failed);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
  return core;
}

/**
 * The pipeline's options for a request on this connection (a call, a resource read, a prompt's rendering): what the
 * client can answer and its answers, how a dangerous call is confirmed, who is calling, what stops it, and where its
 * log lines go.
 */
export function optionsOf(connection: ToolConnection): CallOptions {
  // A literal, not a spread: V8 copies a spread slowly.
  const options: CallOptions = {
    input: { supports: connection.supports, responses: connection.responses, state: connection.state },
    confirmation: confirmationOf(connection),
  };
  if (connection.signal !== undefined) options.signal = connection.signal;
  if (connection.stop !== undefined) options.stop = connection.stop;
  if (connection.caller !== undefined) options.caller = connection.caller;
  const { log } = connection;
  if (log !== undefined) {
    options.onLog = (level, message, data) =>
      log({ level: LOG_LEVELS[level], data: data === undefined ? message : { message, ...data }, logger: LOGGER });
  }
  return options;
}

/**
 * A result or an error as the JSON-RPC message answering request `id`, for a transport that answers without the
 * SDK's server (a question is the SDK's to ask: see {@link ToolsCore.passOn}).
 */
export function answerMessageOf(id: RequestId, answer: Exclude<ToolsAnswer, { question: unknown }>): JSONRPCMessage {
  if ("result" in answer) return { result: answer.result, jsonrpc: "2.0", id } as JSONRPCMessage;
  if ("task" in answer) return { result: answer.task, jsonrpc: "2.0", id } as JSONRPCMessage;
  const { code, message, data } = answer.error;
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** What the pipeline threw, as the SDK's server answers a handler's throw: an internal error with its message. */
export function thrownMessageOf(id: RequestId, error: unknown): JSONRPCMessage {
  const message = error instanceof Error && error.message !== "" ? error.message : "Internal error";
  return { jsonrpc: "2.0", id, error: { code: ProtocolErrorCode.InternalError, message } };
}

/** What the client can answer, from the capabilities it declared (at initialize, or in a request's envelope). */
export function supportsOf(capabilities: ClientCapabilities | undefined): ClientSupports {
  if (capabilities === undefined) return NOTHING;
  const { elicitation, sampling, roots } = capabilities;
  if (elicitation === undefined && sampling === undefined && roots === undefined) return NOTHING;
  const supports = {
    elicitation: elicitation !== undefined,
    sampling: sampling !== undefined,
    roots: roots !== undefined,
  };
  return elicitation?.url === undefined ? supports : { ...supports, elicitationUrl: true };
}

/** The text rendering for clients that ignore structured output, from the envelope as it leaves (redacted). */
export function textOf(envelope: Envelope): string {
  if (envelope.ok) {
    // No data (null), no line for it.
    return envelope.data === undefined || envelope.data === null
      ? envelope.message
      : `${envelope.message}\n${JSON.stringify(envelope.data)}`;
  }
  const at = envelope.error.field === undefined ? "" : ` (at ${envelope.error.field})`;
  return `${envelope.error.code}${at}: ${envelope.message}`;
}

// --- internal ---

/** The key of a dangerous call's confirmation question, in the answer the client sends back. */
const CONFIRM_KEY = "skillport_confirm";

/** A skill's log levels as MCP's logging levels: every log line a client is sent goes through this. */
const LOG_LEVELS: Record<keyof SkillLogger, LoggingLevel> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};

/** The logger name every log line a client is sent carries. */
const LOGGER = "skillport";

const NOTHING: ClientSupports = Object.freeze({ elicitation: false, sampling: false, roots: false });

const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const, title: "Allow", description: "Run this operation" } },
  required: ["confirm"],
};

/**
 * How a dangerous call is confirmed on this connection: by asking the user when the client can (elicitation) and,
 * on a retry, the answer with the state it came back with. An answer without this server's state (sent unasked on a
 * first request) is passed on as such, and the pipeline asks instead of taking it.
 */
function confirmationOf(connection: ToolConnection): NonNullable<CallOptions["confirmation"]> {
  const elicit = connection.supports.elicitation;
  if (connection.responses === undefined) return elicit ? ELICIT : NO_ELICIT;
  const view = inputResponse(connection.responses as InputResponses, CONFIRM_KEY);
  if (view.kind !== "elicit") return elicit ? ELICIT : NO_ELICIT;
  const accepted = view.action === "accept" && view.content?.confirm === true;
  return {
    elicit,
    answer: {
      action: accepted ? "accept" : view.action === "accept" ? "decline" : view.action,
      state: connection.state,
    },
  };
}

const ELICIT = Object.freeze({ elicit: true });
const NO_ELICIT = Object.freeze({ elicit: false });

/** The answer of a discovery tool of its own (a search, or bad arguments to the call tool): a result, as any tool's. */
function answerDiscovery(
  tool: string,
  envelope: Promise<Envelope>,
  observer: CallObserver | undefined,
  span: TraceSpan | undefined,
): Promise<ToolsAnswer> {
  const startedAt = performance.now();
  observer?.started();
  return envelope.then(
    (done) => {
      const seconds = (performance.now() - startedAt) / 1000;
      observer?.finished(tool, undefined, done.ok ? "ok" : done.error.code, seconds, "search");
      if (span !== undefined) {
        span.set({ "skillport.stage": "search", "skillport.outcome": done.ok ? "OK" : done.error.code });
        if (!done.ok) span.fail(done.error.code);
        span.end();
      }
      const result: CallToolResult = {
        content: [{ type: "text", text: textOf(done) }],
        structuredContent: done as unknown as Record<string, unknown>,
      };
      if (!done.ok) result.isError = true;
      return { result };
    },
    (error: unknown) => {
      observer?.finished(tool, undefined, "INTERNAL", (performance.now() - startedAt) / 1000, "error");
      if (span !== undefined) endThrownSpan(span);
      throw error;
    },
  );
}

/** A call's outcome as tools/call answers it. */
function answerOf(outcome: CallOutcome, supports: ClientSupports): ToolsAnswer {
  const { tool } = outcome;
  if (outcome.connect !== undefined && supports.elicitationUrl === true) {
    // The caller connects a credential first: a client that takes URL-mode elicitation shows them the link, and
    // calls again once they are done (MCP's URLElicitationRequiredError).
    const { url, message, elicitationId } = outcome.connect;
    return {
      error: {
        code: ProtocolErrorCode.UrlElicitationRequired,
        message: outcome.envelope.message,
        data: { elicitations: [{ mode: "url", elicitationId, url, message }] },
      },
    };
  }
  if (tool === undefined)
    return { error: { code: ProtocolErrorCode.InvalidParams, message: outcome.envelope.message } };
  if (outcome.rejected !== undefined) {
    return { error: { code: ProtocolErrorCode.InvalidParams, message: outcome.rejected } };
  }
  if (outcome.elicit !== undefined) {
    // The state names the question (tool, arguments, caller) and comes back with the answer: in the 2026 era
    // through the client, in the 2025 era through the SDK, which keeps it in this process while it asks.
    return {
      question: inputRequired({
        inputRequests: {
          [CONFIRM_KEY]: inputRequired.elicit({ message: outcome.elicit.message, requestedSchema: CONFIRM_SCHEMA }),
        },
        requestState: outcome.elicit.state,
      }),
    };
  }
  if (outcome.input !== undefined) {
    // The capability asked the client (ctx.elicit, ctx.sample, ctx.listRoots): the SDK asks, or refuses what the
    // client did not declare it can answer (the 2026-07-28 era's -32021; the 2025 era's legacy shim, an error result).
    const { requests, state } = outcome.input;
    return { question: inputRequired({ inputRequests: requests as unknown as InputRequests, requestState: state }) };
  }
  const result: CallToolResult = {
    content: [{ type: "text", text: textOf(outcome.envelope) }],
    structuredContent: outcome.envelope as unknown as Record<string, unknown>,
  };
  if (outcome.content !== undefined) result.content.push(...(outcome.content as CallToolResult["content"]));
  if (outcome.isError) result.isError = true;
  return { result };
}

/** The tools/list answer of a registry, and its JSON once asked for: built again after its tools change. */
interface Listed {
  result: ListToolsResult;
  json: string | undefined;
}

const lists = new WeakMap<Registry, { listed: Listed | undefined }>();

/**
 * It passes the redactor as it is built: an upstream server's listing is its own text (a careless one describes a
 * tool with the credential the host gave it).
 */
function listOf({ registry, redactor, manifest }: Pick<Host, "registry" | "redactor" | "manifest">): Listed {
  let cached = lists.get(registry);
  if (cached === undefined) {
    const entry: { listed: Listed | undefined } = { listed: undefined };
    registry.subscribe(() => {
      entry.listed = undefined;
    });
    lists.set(registry, entry);
    cached = entry;
  }
  cached.listed ??= {
    result: {
      tools: listedTools(registry, manifest.discovery).map((l) =>
        redactor.active ? redactor.value({ ...l }) : { ...l },
      ),
    },
    json: undefined,
  };
  return cached.listed;
}
