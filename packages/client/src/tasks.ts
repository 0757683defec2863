// The client side of the MCP Tasks extension (SEP-2663): reading a tools/call answered with a task, and the task's
// handle (tasks/get, tasks/update, tasks/cancel), waiting for it as a plain call. The SDK client (2.4.0) reads no
// task: in the 2026-07-28 era it refuses `resultType: "task"`, in the 2025-11-25 era it drops the field. So the
// handle's transport marks such an answer as it arrives (`markTaskAnswers`), before the SDK reads it.
import type { Transport } from "@modelcontextprotocol/client";
import { clientError } from "./errors.js";
import type {
  CallToolOptions,
  CallToolOutcome,
  ClientError,
  InputRequest,
  Outcome,
  RequestOptions,
  TaskHandle,
  TaskInfo,
  TaskStatus,
  ToolResult,
} from "./types.js";

/** The Tasks extension's id, under `capabilities.extensions`. */
export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";

/**
 * Rewrites, on a connected transport, every answer carrying `resultType: "task"` into a result the SDK passes on
 * untouched in both eras: `isError` (so no output schema check applies), no content, and the task's fields under a
 * `_meta` key of this client's. Only `createdTaskOf` reads that key.
 *
 * A task can be made for a call the caller has just cancelled: the server answered with the task before the
 * cancel reached it, and the SDK drops that answer. Such a task would run on unseen, so `orphaned` is told its id,
 * to cancel it.
 */
export function markTaskAnswers(transport: Transport, orphaned: (taskId: string) => void): void {
  const inner = transport.onmessage;
  if (inner === undefined) return;
  // The requests this client cancelled (notifications/cancelled), whose answer may still come.
  const abandoned = new Set<string | number>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
    const id = params?.requestId;
    if (method === "notifications/cancelled" && (typeof id === "string" || typeof id === "number")) {
      if (abandoned.size >= MAX_ABANDONED) abandoned.clear();
      abandoned.add(id);
    }
    return send(message, options);
  };
  transport.onmessage = (message, extra) => {
    const { id } = message as { id?: unknown };
    const late = (typeof id === "string" || typeof id === "number") && abandoned.delete(id);
    const result = (message as { result?: unknown }).result;
    if (!isRecord(result) || result.resultType !== "task" || typeof result.taskId !== "string") {
      inner(message, extra);
      return;
    }
    if (late) {
      orphaned(result.taskId);
      return;
    }
    const { resultType: _task, content: _content, _meta, ...task } = result;
    const marked = {
      content: [],
      isError: true,
      resultType: "complete",
      _meta: { ...(isRecord(_meta) ? _meta : {}), [CREATED_KEY]: task },
    };
    inner({ ...message, result: marked } as typeof message, extra);
  };
}

/** The task a tools/call answered with (as `markTaskAnswers` marked it), or undefined for a plain answer. */
export function createdTaskOf(result: ToolResult): TaskInfo | undefined {
  const created = result._meta?.[CREATED_KEY];
  return created === undefined ? undefined : taskInfoOf(created);
}

/** What a task handle needs of its MCP handle: requests on its connection, answering values. */
export interface TaskRequests {
  /** The name messages start with. */
  source: string;
  /** The tool the task runs, for messages. */
  tool: string;
  /** One request on the handle's connection (started again if it was lost). */
  send(
    doing: string,
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; error: ClientError }>;
  /** A tool's result as a call's outcome (TOOL_ERROR for `isError`). */
  outcomeOf(result: ToolResult): CallToolOutcome;
  /** Keeps the handle busy (no idle stop) while a wait runs. */
  busy<T>(work: () => Promise<T>): Promise<T>;
  /** Whether the handle was stopped since the task was made: a wait then ends (a new connection is not its own). */
  stopped(): boolean;
}

/** A handle on the task `created` (see {@link TaskHandle}). */
export function createTaskHandle(created: TaskInfo, requests: TaskRequests): TaskHandle {
  const { source, tool, send } = requests;
  const { taskId } = created;
  let info = created;
  // What the last tasks/get inlined once the task ended: the tool's result, or the server's error.
  let ended: { result?: ToolResult; error?: { code: number; message: string } } = {};

  const failure = (error: ClientError): { ok: false; error: ClientError } => ({
    ok: false,
    error: { ...error, taskId },
  });

  const get = async (options: RequestOptions = {}): Promise<Outcome<"task", TaskInfo>> => {
    const got = await send(`getting task ${taskId} of "${tool}"`, "tasks/get", { taskId }, options);
    if (!got.ok) return failure(got.error);
    const seen = taskInfoOf(got.value);
    if (seen === undefined) {
      return failure(clientError(source, "PROTOCOL_ERROR", `tasks/get for "${tool}" answered no task`));
    }
    info = seen;
    ended = {
      ...(isRecord(got.value.result) ? { result: got.value.result as unknown as ToolResult } : {}),
      ...(isRecord(got.value.error) ? { error: rpcErrorOf(got.value.error) } : {}),
    };
    return { ok: true, task: info };
  };

  const acked = async (
    doing: string,
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Outcome<"task", TaskInfo>> => {
    const sent = await send(doing, method, { taskId, ...params }, options);
    if (!sent.ok) return failure(sent.error);
    return get(options);
  };

  const respond: TaskHandle["respond"] = (responses, options = {}) =>
    acked(`answering task ${taskId} of "${tool}"`, "tasks/update", { inputResponses: responses }, options);

  const cancel: TaskHandle["cancel"] = (options = {}) =>
    acked(`cancelling task ${taskId} of "${tool}"`, "tasks/cancel", {}, options);

  /** The outcome of an ended task, as a plain call's. */
  const outcome = (): CallToolOutcome => {
    if (info.status === "completed" && ended.result !== undefined) {
      const answered = requests.outcomeOf(ended.result);
      return answered.ok ? answered : { ...answered, error: { ...answered.error, taskId } };
    }
    if (info.status === "cancelled") {
      return failure(clientError(source, "CANCELLED", `"${tool}": the task ${taskId} was cancelled`));
    }
    const error = ended.error ?? { code: INTERNAL_ERROR, message: "the task ended without a result" };
    return failure(
      clientError(source, "PROTOCOL_ERROR", `"${tool}": the task ${taskId} failed: ${error.message}`, {
        rpcCode: error.code,
      }),
    );
  };

  const result: TaskHandle["result"] = (options = {}) =>
    requests.busy(async () => {
      const { signal, onInputRequired, onTaskStatus } = options;
      const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_WAIT_MS);
      // Ends the wait: the task is cancelled on the server, and the call answers why.
      const giveUp = async (error: ClientError): Promise<CallToolOutcome> => {
        await cancel({ timeoutMs: CANCEL_TIMEOUT_MS });
        return failure(error);
      };
      const stopped = (): Promise<CallToolOutcome> | undefined => {
        if (requests.stopped()) {
          const error = clientError(source, "UNAVAILABLE", `"${tool}": the handle was stopped while it waited`);
          return Promise.resolve(failure(error));
        }
        if (signal?.aborted) return giveUp(clientError(source, "CANCELLED", `"${tool}": cancelled by the caller`));
        if (Date.now() >= deadline) {
          return giveUp(
            clientError(
              source,
              "TIMEOUT",
              `"${tool}": the task ${taskId} did not end within ${options.timeoutMs ?? DEFAULT_WAIT_MS} ms; it was cancelled`,
            ),
          );
        }
        return undefined;
      };
      let last = statusKey(info);
      for (;;) {
        if (TERMINAL.has(info.status)) return outcome();
        if (info.status === "input_required") {
          const requests = info.inputRequests ?? {};
          if (onInputRequired === undefined) {
            return giveUp(
              clientError(
                source,
                "INPUT_REQUIRED",
                `"${tool}" asked for input (${Object.keys(requests).sort().join(", ")}) and the call has no onInputRequired; the task was cancelled`,
              ),
            );
          }
          let responses: Record<string, unknown>;
          try {
            responses = await onInputRequired(requests, info);
          } catch (error) {
            return giveUp(clientError(source, "INTERNAL", `"${tool}": onInputRequired threw: ${String(error)}`));
          }
          if (!Object.keys(responses).some((key) => Object.hasOwn(requests, key))) {
            return giveUp(
              clientError(source, "INPUT_REQUIRED", `"${tool}": onInputRequired answered none of the task's questions`),
            );
          }
          const answered = await respond(responses, { timeoutMs: Math.max(1, deadline - Date.now()) });
          if (!answered.ok) return answered;
        } else {
          await delay(Math.min(info.pollIntervalMs, Math.max(0, deadline - Date.now())), signal);
          const stop = stopped();
          if (stop !== undefined) return stop;
          const polled = await get({
            timeoutMs: Math.max(1, deadline - Date.now()),
            ...(signal === undefined ? {} : { signal }),
          });
          if (!polled.ok) {
            const code = polled.error.code;
            // A lost connection is started again at the next poll: the task lives on the server.
            if (code === "UNAVAILABLE" && !signal?.aborted) continue;
            const stopping = stopped();
            if (stopping !== undefined) return stopping;
            return polled;
          }
        }
        const now = statusKey(info);
        if (now !== last) {
          last = now;
          onTaskStatus?.(info);
        }
        const stop = stopped();
        if (stop !== undefined && !TERMINAL.has(info.status)) return stop;
      }
    });

  return {
    taskId,
    get info() {
      return info;
    },
    get,
    result,
    respond,
    cancel,
  };
}

/** The options of a wait, from a call's options and what is left of its time. */
export function waitOptionsOf(options: CallToolOptions, timeoutMs: number): Parameters<TaskHandle["result"]>[0] {
  const { signal, onInputRequired, onTaskStatus } = options;
  return {
    timeoutMs,
    ...(signal === undefined ? {} : { signal }),
    ...(onInputRequired === undefined ? {} : { onInputRequired }),
    ...(onTaskStatus === undefined ? {} : { onTaskStatus }),
  };
}

// --- internal ---

/** Where `markTaskAnswers` keeps a created task in the marked result's `_meta`. */
const CREATED_KEY = "dev.skillport.client/createdTask";
const DEFAULT_WAIT_MS = 60_000;
/** How many cancelled requests `markTaskAnswers` remembers (their answers usually come at once, or never). */
const MAX_ABANDONED = 1024;
const CANCEL_TIMEOUT_MS = 5_000;
const INTERNAL_ERROR = -32603;
const STATUSES = new Set<TaskStatus>(["working", "input_required", "completed", "failed", "cancelled"]);
const TERMINAL = new Set<TaskStatus>(["completed", "failed", "cancelled"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A task's fields as the server sent them, checked: undefined when they are not a task. */
function taskInfoOf(raw: unknown): TaskInfo | undefined {
  if (!isRecord(raw) || typeof raw.taskId !== "string" || !STATUSES.has(raw.status as TaskStatus)) return undefined;
  const info: TaskInfo = {
    taskId: raw.taskId,
    status: raw.status as TaskStatus,
    createdAt: String(raw.createdAt ?? ""),
    lastUpdatedAt: String(raw.lastUpdatedAt ?? ""),
    ttlMs: typeof raw.ttlMs === "number" ? raw.ttlMs : 0,
    pollIntervalMs:
      typeof raw.pollIntervalMs === "number" && raw.pollIntervalMs > 0 ? raw.pollIntervalMs : DEFAULT_POLL_MS,
  };
  if (typeof raw.statusMessage === "string") info.statusMessage = raw.statusMessage;
  if (isRecord(raw.inputRequests)) info.inputRequests = raw.inputRequests as Record<string, InputRequest>;
  return info;
}

/** A server that names no poll interval is polled every second. */
const DEFAULT_POLL_MS = 1000;

function rpcErrorOf(raw: Record<string, unknown>): { code: number; message: string } {
  return {
    code: typeof raw.code === "number" ? raw.code : INTERNAL_ERROR,
    message: typeof raw.message === "string" ? raw.message : "no message",
  };
}

/** What a status change is, for onTaskStatus: the status, its message and its open questions. */
function statusKey(info: TaskInfo): string {
  return `${info.status}\u0000${info.statusMessage ?? ""}\u0000${Object.keys(info.inputRequests ?? {}).join(",")}`;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
