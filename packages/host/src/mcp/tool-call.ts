import type {
  CallToolResult,
  InputRequests,
  InputRequiredResult,
  ListToolsResult,
  LoggingLevel,
  ProgressToken,
  RequestId,
  Server,
} from "@modelcontextprotocol/server";
import { inputRequired, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Envelope, SkillLogger } from "@skillport/core";
import type { Host } from "../host.js";
import type { CallOptions, CallOutcome } from "../pipeline/call.js";
import type { Registry } from "../registry/registry.js";
import type { CallObserver } from "./server.js";

/** One tools/call as both the SDK's handler and the fast path read it from the request. */
export interface ToolCallRequest {
  name: string;
  args: Record<string, unknown>;
  /** The client asked for progress with this token (`params._meta.progressToken`). */
  progressToken: ProgressToken | undefined;
}

/** Sends one notification about the call (progress) to its client; resolves once it is on its way. */
export type NotifyCall = (notification: {
  method: "notifications/progress";
  params: { progressToken: ProgressToken; progress: number; total?: number; message?: string };
}) => Promise<void>;

/**
 * Runs one tools/call through the pipeline, the one way both paths do: the observer told when it starts and ends,
 * progress sent as the client asked, and every progress notification on its way before this resolves (the client
 * ignores progress after the result). Rejects with what the pipeline threw (after telling the observer). Always
 * answers a promise, chained on the pipeline's rather than awaited in an async function: a call makes two promises
 * fewer, which counts where Node runs a hook for every promise (an AsyncLocalStorage in use).
 */
export function runToolCall(
  host: Host,
  observer: CallObserver | undefined,
  request: ToolCallRequest,
  options: Omit<CallOptions, "onProgress">,
  notify: NotifyCall,
): Promise<CallOutcome> {
  const { name, progressToken } = request;
  const startedAt = performance.now();
  // Progress notifications still being sent, made on the first: most calls send none.
  let notifying: Set<Promise<unknown>> | undefined;
  const answered = (outcome: CallOutcome): CallOutcome | Promise<CallOutcome> => {
    const { tool } = outcome;
    if (tool === undefined) {
      // An unknown name is not a label: it would let any client grow the metrics without bound.
      observer?.finished("(unknown)", undefined, "UNKNOWN_TOOL", seconds(startedAt), outcome.stage);
    } else {
      observer?.finished(
        name,
        tool.instance,
        outcome.envelope.ok ? "ok" : outcome.envelope.error.code,
        seconds(startedAt),
        outcome.stage,
      );
    }
    return notifying !== undefined && notifying.size > 0 ? Promise.all(notifying).then(() => outcome) : outcome;
  };
  const failed = (error: unknown): never => {
    observer?.finished(name, undefined, "INTERNAL", seconds(startedAt), "error");
    throw error;
  };
  try {
    observer?.started();
    return host.pipeline
      .call(
        name,
        request.args,
        progressToken === undefined
          ? options
          : {
              ...options,
              onProgress: (progress, total, message) => {
                const sent = notify({
                  method: "notifications/progress",
                  params: {
                    progressToken,
                    progress,
                    ...(total === undefined ? {} : { total }),
                    ...(message === undefined ? {} : { message }),
                  },
                }).catch(() => undefined); // a client gone away must not fail the call
                notifying ??= new Set();
                notifying.add(sent);
                void sent.finally(() => notifying?.delete(sent));
              },
            },
      )
      .then(answered, failed);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * A call's outcome as tools/call answers it: the result (projected through the server's era), or the questions to
 * ask the client (`inputRequired`, which the SDK asks and calls again with the answers); throws the protocol's
 * invalid-params error for an unknown tool or round state this server cannot accept.
 */
export function toolAnswerOf(server: Server, outcome: CallOutcome): CallToolResult | InputRequiredResult {
  const { tool } = outcome;
  if (tool === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.envelope.message);
  if (outcome.rejected !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.rejected);
  if (outcome.elicit !== undefined) {
    // Ask the user through the client; the SDK calls the handler again with the answer.
    // The state names the question (tool, arguments, caller) and comes back with the answer: in the 2026 era
    // through the client, in the 2025 era through the SDK's shim, which keeps it in this process.
    return inputRequired({
      inputRequests: {
        [CONFIRM_KEY]: inputRequired.elicit({ message: outcome.elicit.message, requestedSchema: CONFIRM_SCHEMA }),
      },
      requestState: outcome.elicit.state,
    });
  }
  if (outcome.input !== undefined) {
    // The capability asked the client (ctx.elicit, ctx.sample, ctx.listRoots): the SDK refuses questions the
    // client cannot answer with the protocol's missing-capability error, else asks, and calls again.
    return inputRequired({
      inputRequests: outcome.input.requests as unknown as InputRequests,
      requestState: outcome.input.state,
    });
  }
  const result: CallToolResult = {
    content: [
      { type: "text", text: textOf(outcome.envelope) },
      ...((outcome.content ?? []) as CallToolResult["content"]),
    ],
    structuredContent: outcome.envelope as unknown as Record<string, unknown>,
    ...(outcome.isError ? { isError: true } : {}),
  };
  return server.projectCallToolResult(result, tool.listing.outputSchema);
}

/** The text rendering for clients that ignore structured output, from the envelope as it leaves (redacted). */
export function textOf(envelope: Envelope): string {
  if (envelope.ok) return `${envelope.message}\n${JSON.stringify(envelope.data)}`;
  const at = envelope.error.field === undefined ? "" : ` (at ${envelope.error.field})`;
  return `${envelope.error.code}${at}: ${envelope.message}`;
}

/**
 * Hands a call the fast path has run to the SDK's server to answer, when its answer needs what only the SDK does
 * (a round of questions to the client, content blocks the SDK checks): the SDK's tools/call handler takes this
 * outcome instead of running the call again. Keyed by server and request id, taken once.
 */
export function adoptOutcome(
  server: Server,
  id: RequestId,
  name: string,
  outcome: CallOutcome,
  logged: readonly LoggedLine[] = [],
): void {
  let pending = adopted.get(server);
  if (pending === undefined) {
    pending = new Map();
    adopted.set(server, pending);
  }
  pending.set(id, { name, outcome, logged });
}

/**
 * The outcome the fast path ran for this request, if it handed one over (see {@link adoptOutcome}), with the log
 * lines the call wrote that its client has not been sent yet (the SDK sends them before the answer).
 */
export function takeAdopted(
  server: Server,
  id: RequestId,
  name: string,
): { outcome: CallOutcome; logged: readonly LoggedLine[] } | undefined {
  const pending = adopted.get(server);
  const taken = pending?.get(id);
  if (taken === undefined || taken.name !== name) return undefined;
  pending?.delete(id);
  return taken;
}

/** A log line a call wrote: the skill's level and what MCP's `notifications/message` carries as its data. */
export interface LoggedLine {
  level: keyof SkillLogger;
  data: unknown;
}

/** A skill's log levels as MCP's logging levels: every log line a client is sent goes through this. */
export const LOG_LEVELS: Record<keyof SkillLogger, LoggingLevel> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};

/**
 * The tools/list answer, built once per registry and again after its tools change (upstream servers): every server
 * of a host and the fast path answer the same object. It passes the redactor as it is built: an upstream server's
 * listing is its own text (a careless one describes a tool with the credential the host gave it).
 */
export function toolsListOf({ registry, redactor }: Pick<Host, "registry" | "redactor">): ListToolsResult {
  let cached = toolsLists.get(registry);
  if (cached === undefined) {
    const entry: { result: ListToolsResult | undefined } = { result: undefined };
    registry.subscribe(() => {
      entry.result = undefined;
    });
    toolsLists.set(registry, entry);
    cached = entry;
  }
  cached.result ??= {
    tools: registry.listings.map((l) => (redactor.active ? redactor.value({ ...l }) : { ...l })),
  };
  return cached.result;
}

/** The key of a dangerous call's confirmation question, in the answer the client sends back. */
export const CONFIRM_KEY = "skillport_confirm";

// --- internal ---

const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const, title: "Allow", description: "Run this operation" } },
  required: ["confirm"],
};

const toolsLists = new WeakMap<Registry, { result: ListToolsResult | undefined }>();
const adopted = new WeakMap<
  Server,
  Map<RequestId, { name: string; outcome: CallOutcome; logged: readonly LoggedLine[] }>
>();

function seconds(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
