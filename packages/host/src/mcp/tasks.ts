import { randomBytes } from "node:crypto";
import type {
  CallToolResult,
  InputRequiredResult,
  ProgressNotification,
  ProgressToken,
} from "@modelcontextprotocol/server";
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Caller } from "../entries/check-scopes.js";
import type { Host } from "../host.js";
import type { RunRefusal } from "../pipeline/call.js";
import { CallStop } from "../pipeline/call-stop.js";
import { StoreUnavailableError } from "../state/store.js";
import type { TaskError, TaskRecord, TaskStore } from "../state/task-store.js";
import { ACTIVE_STATUSES } from "../state/task-store.js";

/** The Tasks extension's id (SEP-2663), under `capabilities.extensions`. */
export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";

/** The methods of the Tasks extension. (`tasks/result` and `tasks/list` are gone from it: they stay unknown.) */
export const TASKS_GET_METHOD = "tasks/get";
export const TASKS_UPDATE_METHOD = "tasks/update";
export const TASKS_CANCEL_METHOD = "tasks/cancel";

/** The error code of a request the client did not declare the capability for (SEP-2575): -32021. */
const MISSING_CAPABILITY = -32021;

/** What a tools/call answers when it made a task: flat, the task's fields beside `resultType: "task"`. */
interface CreateTaskResult {
  [key: string]: unknown;
  resultType: "task";
  taskId: string;
  status: "working";
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
}

/** What tasks/get answers: the task, with its result, error or open questions inlined. */
interface DetailedTask {
  [key: string]: unknown;
  taskId: string;
  status: TaskRecord["status"];
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  statusMessage?: string;
  result?: Record<string, unknown>;
  error?: TaskError;
  inputRequests?: Record<string, unknown>;
}

/** A tools/call as a task's round makes it (the tools core's ToolCallRequest has these fields). */
interface TaskCall {
  name: string;
  args: Record<string, unknown>;
  progressToken?: ProgressToken | undefined;
}

/**
 * What a task needs of the connection a call came on, and what it hands the tools core for a round (the tools core's
 * ToolConnection, as far as tasks go): declared here so that this file does not import the core that imports it.
 */
interface TaskConnection {
  readonly transport?: "pipe" | "tcp" | undefined;
  readonly sessionId?: string | undefined;
  readonly supports: TaskRecord["supports"];
  readonly caller?: Caller | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly stop?: CallStop | undefined;
  readonly responses?: Readonly<Record<string, unknown>> | undefined;
  readonly state?: string | undefined;
  readonly notify?: ((notification: ProgressNotification) => Promise<void>) | undefined;
  readonly tasks?: boolean | undefined;
  readonly taskRound?: { readonly beforeRun?: (() => Promise<RunRefusal | undefined>) | undefined } | undefined;
}

/**
 * A tools/call's answer, the same for every transport: the result, a JSON-RPC error (an unknown tool, round state
 * this server cannot accept), a task the client polls for its result (tasks.ts), or the questions to ask the client
 * first, which the SDK asks (in the 2026-07-28 era in its answer, in the 2025 era with real requests to the client,
 * then it calls again with the answers) or refuses for a client that did not declare it can answer them.
 */
export type ToolsAnswer =
  | { readonly result: CallToolResult }
  | {
      readonly error: {
        readonly code: number;
        readonly message: string;
        readonly data?: Readonly<Record<string, unknown>> | undefined;
      };
    }
  | { readonly question: InputRequiredResult }
  | { readonly task: CreateTaskResult };

/**
 * Runs one round of a call as the tools core runs any call (its connection's `taskRound` keeps it off the task
 * branch): limits, audit line, metrics, spans and redaction. `taskRound.beforeRun` is the pipeline's hook once the
 * call's checks passed.
 */
type RunRound = (request: TaskCall, connection: TaskConnection) => Promise<ToolsAnswer>;

/**
 * The Tasks extension over one host's task store: the tools core's task branch (`start`) and the three task
 * methods. A call of a task-capable tool from a client that declared the extension passes its checks (scopes,
 * validation, confirmation), then becomes a task, unless it answers within `tasks.immediateMs`; the run goes on
 * after the request ends, and what it answers is kept in the store for tasks/get. A task belongs to its caller.
 */
export interface Tasks {
  /**
   * How a call of `name` from this connection runs: as a task, as a plain call, or refused with -32021 (a tool
   * that only runs as a task, from a client that did not declare the extension).
   */
  modeOf(name: string, connection: TaskConnection): "task" | "plain" | "refused";
  /** The tools core's task branch: runs the call and answers its result, its question, or a new task. */
  start(request: TaskCall, connection: TaskConnection): Promise<ToolsAnswer>;
  /** tasks/get. Throws -32602 for a task this caller does not have. */
  get(caller: Caller | undefined, taskId: string): Promise<DetailedTask>;
  /** tasks/update: the client's answers to an input_required task's questions; the task resumes once all are in. */
  update(caller: Caller | undefined, taskId: string, responses: Record<string, unknown>): Promise<void>;
  /** tasks/cancel: the task ends `cancelled` and its run's `ctx.signal` aborts. */
  cancel(caller: Caller | undefined, taskId: string): Promise<void>;
}

/** Options for {@link createTasks}. */
export interface TasksOptions {
  /** Runs a round of a call through the pipeline (the tools core's own path). */
  run: RunRound;
}

/** The Tasks extension over a host (see {@link Tasks}). One per tools core. */
export function createTasks(host: Host, options: TasksOptions): Tasks {
  const { run } = options;
  const store: TaskStore = host.tasks;
  const settings = host.manifest.tasks;
  const { redactor, logger } = host;
  // Each run holds its task's lease in the store while it lasts, and stops when the task ends elsewhere.
  const leases = host.taskLeases;
  leases.sweep();
  const holding = new WeakMap<CallStop, () => void>();
  const track = (id: string, stop: CallStop) => {
    holding.set(stop, leases.hold(id, stop));
  };
  const untrack = (_id: string, stop: CallStop) => {
    holding.get(stop)?.();
    holding.delete(stop);
  };

  /** A task of this caller's, or the same error as for a task that does not exist. */
  const ownTask = async (caller: Caller | undefined, taskId: string): Promise<TaskRecord> => {
    const task = await reachable(store.get(taskId));
    if (task === undefined || task.owner !== ownerOf(caller)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "No task with this id (it may have expired)");
    }
    return task;
  };

  /** Keeps what a round answered as the task's next state; a task cancelled meanwhile stays cancelled. */
  const settle = async (id: string, answer: ToolsAnswer): Promise<void> => {
    let patch: Parameters<TaskStore["update"]>[2];
    if ("result" in answer) patch = finished(answer.result, settings.maxResultBytes, redactor.string);
    else if ("error" in answer)
      patch = { status: "failed", error: { code: answer.error.code, message: redactor.string(answer.error.message) } };
    else if ("question" in answer) {
      const { inputRequests, requestState } = answer.question as { inputRequests?: object; requestState?: string };
      patch = {
        status: "input_required",
        inputRequests: { ...(inputRequests ?? {}) } as Record<string, unknown>,
        round: { state: requestState ?? "", responses: {} },
      };
    } else patch = { status: "failed", error: { code: ProtocolErrorCode.InternalError, message: "Internal error" } };
    await kept(() => store.update(id, ["working"], { statusMessage: undefined, ...patch }));
  };

  /** What the pipeline threw (a bug, not the tool's answer): the task fails with an internal error. */
  const crash = async (id: string, error: unknown): Promise<void> => {
    logger.error({ err: error, task: id }, "a task's run threw");
    const message = error instanceof Error && error.message !== "" ? redactor.string(error.message) : "Internal error";
    await kept(() =>
      store.update(id, ["working"], { status: "failed", error: { code: ProtocolErrorCode.InternalError, message } }),
    );
  };

  /**
   * Writes a run's answer, again while the store cannot be reached (every quarter of the lease, up to the task's
   * ttl): the run still holds the lease meanwhile, so the answer is kept when the store returns within it.
   */
  const kept = async (write: () => Promise<boolean>): Promise<void> => {
    const giveUpAt = Date.now() + settings.ttlMs;
    for (;;) {
      try {
        await write();
        return;
      } catch (error) {
        if (!(error instanceof StoreUnavailableError) || Date.now() >= giveUpAt) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.max(100, settings.leaseMs / 4)).unref());
      }
    }
  };

  /** Runs one round of a task in the background; what it answers becomes the task's state. */
  const runRound = (task: TaskRecord, caller: Caller | undefined, round?: TaskRecord["round"]) => {
    const stop = new CallStop();
    track(task.id, stop);
    const connection = taskConnection(task, caller, stop, round, store, redactor.string);
    run({ name: task.tool, args: task.args, progressToken: task.id }, connection)
      .then(
        (answer) => settle(task.id, answer),
        (error: unknown) => crash(task.id, error),
      )
      .catch((error: unknown) => logger.warn({ err: error, task: task.id }, "could not keep a task's answer"))
      .finally(() => untrack(task.id, stop));
  };

  return {
    modeOf(name, connection) {
      const support = host.registry.tools.get(name)?.listing.execution?.taskSupport;
      if (support === undefined) return "plain";
      if (connection.tasks === true) return "task";
      return support === "required" ? "refused" : "plain";
    },

    start(request, connection) {
      const id = randomBytes(16).toString("base64url");
      const stop = new CallStop();
      const taskOf = (at: number): TaskRecord => ({
        id,
        owner: ownerOf(connection.caller),
        tool: request.name,
        args: request.args,
        supports: { ...connection.supports },
        status: "working",
        createdAt: at,
        lastUpdatedAt: at,
        ttlMs: settings.ttlMs,
        pollIntervalMs: settings.pollIntervalMs,
        leaseMs: leases.holdMs,
      });
      let task = taskOf(Date.now());
      let created = false;
      let announce: (() => void) | undefined;
      // The task is made once the call passed its checks, never for a call they refused.
      const beforeRun = async (): Promise<RunRefusal | undefined> => {
        let made: Awaited<ReturnType<TaskStore["create"]>>;
        try {
          task = taskOf(Date.now());
          made = await store.create(task, settings.maxActivePerCaller);
        } catch (error) {
          if (!(error instanceof StoreUnavailableError)) throw error;
          return { code: "UNAVAILABLE", message: "the task store cannot be reached; retry shortly" };
        }
        if (made === "owner-limit") {
          return {
            code: "RATE_LIMITED",
            message: `this caller has ${settings.maxActivePerCaller} tasks running or waiting for answers (tasks.maxActivePerCaller); wait for one to finish, or cancel one`,
          };
        }
        if (made === "full")
          return { code: "UNAVAILABLE", message: "this server keeps as many tasks as it may; retry shortly" };
        created = true;
        track(id, stop);
        announce?.();
        return undefined;
      };
      // Until the task is announced, the request's own cancel stops the run.
      const untilAnnounced = connection.signal ?? connection.stop;
      const detach = listen(untilAnnounced, (reason) => stop.abort(reason));
      // The first round carries what the request carried: answers to questions asked before there was a task.
      const first: TaskConnection = {
        ...taskConnection(task, connection.caller, stop, undefined, store, redactor.string),
        responses: connection.responses,
        state: connection.state,
        sessionId: connection.sessionId,
        taskRound: { beforeRun },
      };
      const answering = run({ ...request, progressToken: id }, first);

      return new Promise<ToolsAnswer>((resolve, reject) => {
        let announced = false;
        let timer: NodeJS.Timeout | undefined;
        const reveal = () => {
          if (announced) return;
          announced = true;
          detach();
          resolve({ task: createResultOf(task) });
        };
        announce = () => {
          if (settings.immediateMs === 0) reveal();
          else timer = setTimeout(reveal, settings.immediateMs);
        };
        // Answered before it was announced: a plain answer (the immediate-result shortcut), and no task remains.
        const unannounced = () => {
          announced = true;
          detach();
          if (timer !== undefined) clearTimeout(timer);
          if (!created) return;
          untrack(id, stop);
          store.remove(id).catch((error: unknown) => logger.warn({ err: error, task: id }, "could not drop a task"));
        };
        answering.then(
          (answer) => {
            if (!announced) {
              unannounced();
              resolve(answer);
              return;
            }
            settle(id, answer)
              .catch((error: unknown) => logger.warn({ err: error, task: id }, "could not keep a task's answer"))
              .finally(() => untrack(id, stop));
          },
          (error: unknown) => {
            if (!announced) {
              unannounced();
              reject(error);
              return;
            }
            crash(id, error)
              .catch((failure: unknown) => logger.warn({ err: failure, task: id }, "could not keep a task's answer"))
              .finally(() => untrack(id, stop));
          },
        );
      });
    },

    async get(caller, taskId) {
      return detailedOf(await ownTask(caller, taskId));
    },

    async update(caller, taskId, responses) {
      const task = await ownTask(caller, taskId);
      const outcome = await reachable(store.answer(task.id, responses));
      if (outcome.kind === "resume") runRound(task, caller, outcome.round);
    },

    async cancel(caller, taskId) {
      const task = await ownTask(caller, taskId);
      // Cancelling a finished task changes nothing, and is answered the same.
      await reachable(
        store.update(task.id, ACTIVE_STATUSES, { status: "cancelled", inputRequests: undefined, round: undefined }),
      );
    },
  };
}

/** Whether a client's capabilities declare the Tasks extension. */
export function declaresTasks(capabilities: unknown): boolean {
  if (typeof capabilities !== "object" || capabilities === null) return false;
  const { extensions } = capabilities as { extensions?: unknown };
  return typeof extensions === "object" && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION_ID);
}

/** The -32021 answer to a request of a client that did not declare the Tasks extension. */
export function missingTasksCapability(what: string): { code: number; message: string; data: Record<string, unknown> } {
  return {
    code: MISSING_CAPABILITY,
    message: `${what} needs the ${TASKS_EXTENSION_ID} extension: declare it in the client's capabilities`,
    data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
  };
}

// --- internal ---

/** A task method's store access: a store that cannot be reached answers a JSON-RPC error saying to retry. */
async function reachable<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    throw new ProtocolError(ProtocolErrorCode.InternalError, "the task store cannot be reached now; retry shortly");
  }
}

/** Whose task it is: the authenticated caller, or this process's local user (stdio, in memory). */
function ownerOf(caller: Caller | undefined): string {
  return caller === undefined ? "local:" : `caller:${caller.id}`;
}

function listen(stop: AbortSignal | CallStop | undefined, listener: (reason: unknown) => void): () => void {
  if (stop === undefined) return () => undefined;
  if (stop instanceof CallStop) return stop.onAbort(listener);
  if (stop.aborted) {
    listener(stop.reason);
    return () => undefined;
  }
  const onAbort = () => listener(stop.reason);
  stop.addEventListener("abort", onAbort, { once: true });
  return () => stop.removeEventListener("abort", onAbort);
}

/**
 * A task's round as the tools core sees its connection: the task's caller and what its client could answer, the
 * task's own stop (its cancel), the answers of the round it resumes, and its progress kept as the task's status
 * message. Nothing reaches the request that created it: that request has ended.
 */
function taskConnection(
  task: TaskRecord,
  caller: Caller | undefined,
  stop: CallStop,
  round: TaskRecord["round"] | undefined,
  store: TaskStore,
  redact: (text: string) => string,
): TaskConnection {
  return {
    transport: "pipe",
    taskRound: {},
    supports: task.supports,
    caller,
    stop,
    ...(round === undefined ? {} : { responses: round.responses, state: round.state === "" ? undefined : round.state }),
    notify: async ({ params }) => {
      const { progress, total, message } = params;
      const said = message ?? (total === undefined ? `${progress}` : `${progress}/${total}`);
      await store.update(task.id, ["working"], { statusMessage: redact(said) });
    },
  };
}

/** The state a finished round leaves: completed with its result, or failed when the tool failed inside (INTERNAL). */
function finished(
  result: CallToolResult,
  maxResultBytes: number,
  redact: (text: string) => string,
): Parameters<TaskStore["update"]>[2] {
  const envelope = result.structuredContent as
    | { ok?: boolean; message?: string; error?: { code?: string; traceId?: string } }
    | undefined;
  // A tool's own failure is its result (completed, isError); an unexpected throw is the server's failure.
  if (result.isError === true && envelope?.error?.code === "INTERNAL") {
    return {
      status: "failed",
      error: {
        code: ProtocolErrorCode.InternalError,
        message: redact(envelope.message ?? "Internal error"),
        ...(envelope.error.traceId === undefined ? {} : { data: { traceId: envelope.error.traceId } }),
      },
    };
  }
  const size = Buffer.byteLength(JSON.stringify(result));
  if (size <= maxResultBytes) return { status: "completed", result: result as Record<string, unknown> };
  const message = `the result was ${size} bytes, more than the ${maxResultBytes} a task keeps (tasks.maxResultBytes); ask for less (narrower arguments, a smaller page)`;
  const traceId = envelope?.error?.traceId ?? (envelope as { meta?: { traceId?: string } } | undefined)?.meta?.traceId;
  const tooLarge = {
    ok: false,
    message,
    error: { code: "INTERNAL", retryable: false, ...(traceId === undefined ? {} : { traceId }) },
    warnings: [],
  };
  return {
    status: "completed",
    result: { content: [{ type: "text", text: `INTERNAL: ${message}` }], structuredContent: tooLarge, isError: true },
  };
}

function createResultOf(task: TaskRecord): CreateTaskResult {
  return {
    resultType: "task",
    taskId: task.id,
    status: "working",
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
}

function detailedOf(task: TaskRecord): DetailedTask {
  const detailed: DetailedTask = {
    taskId: task.id,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) detailed.statusMessage = task.statusMessage;
  if (task.status === "completed" && task.result !== undefined) detailed.result = task.result;
  if (task.status === "failed" && task.error !== undefined) detailed.error = task.error;
  if (task.status === "input_required" && task.inputRequests !== undefined) detailed.inputRequests = task.inputRequests;
  return detailed;
}
