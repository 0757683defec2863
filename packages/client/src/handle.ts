import type { jsonSchemaValidator, Transport, VersionNegotiationOptions } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { hideSecrets } from "./credentials.js";
import { clientError, losesConnection, toClientError } from "./errors.js";
import { createStateCell } from "./observable-state.js";
import { ANY_RESULT, progressOf, serverInfoOf, summary, toSpecs } from "./server-answers.js";
import type { TaskRequests } from "./tasks.js";
import { createdTaskOf, createTaskHandle, markTaskAnswers, TASKS_EXTENSION_ID, waitOptionsOf } from "./tasks.js";
import type {
  BaseSpec,
  CallToolOptions,
  CallToolOutcome,
  ClientError,
  ListToolsResult,
  McpHandle,
  Outcome,
  Progress,
  PromptResult,
  PromptSpec,
  ProtocolChoice,
  RequestOptions,
  ResourceContents,
  ResourceSpec,
  ResourceTemplateSpec,
  ServerInfo,
  StartResult,
  TaskCallOutcome,
  ToolResult,
  ToolSpec,
  TransportKind,
} from "./types.js";

/** What a connector opened for one start: an SDK transport not started yet, and what to free after it closes. */
interface Opened {
  transport: Transport;
  /** Frees what closing the client does not (a host, a worker). */
  dispose?: () => Promise<void>;
  /** What the connection left behind when it ended (the process, the tail of its stderr), for messages. */
  closedDetail?: () => string;
}

/**
 * One transport's way to open a connection: read the credentials (at start, never before) and build the SDK
 * transport, or answer why not (CREDENTIALS_MISSING, HOST_MISSING) without opening anything.
 */
export interface Connector {
  transport: TransportKind;
  /** The name messages start with. */
  source: string;
  versionNegotiation: VersionNegotiationOptions | undefined;
  /** The most bytes one message from the server may take, when the transport counts them (stdio, http). */
  maxResultBytes?: number;
  /**
   * Opens the transport. A transport that counts what it reads calls `exceeded` once a message passes
   * `maxResultBytes`, having stopped reading it; the handle then resets the connection.
   */
  open(
    exceeded: () => void,
  ): Promise<{ ok: true; opened: Opened; secrets: readonly string[] } | { ok: false; error: ClientError }>;
}

/** The MCP version negotiation for a spec's `protocol`. */
export function negotiation(choice: ProtocolChoice): VersionNegotiationOptions {
  if (choice === "auto") return { mode: "auto" };
  if (choice === "2025-11-25") return { mode: "legacy" };
  return { mode: { pin: choice } };
}

/** The name and version this client gives servers. */
export const CLIENT_INFO = { name: "skillport-client", version: "0.1.0" } as const;

/**
 * The handle every transport shares: lazy, idempotent start, observable state, calls that answer values. The
 * connector is all that differs between stdio, HTTP, inproc and worker.
 */
export function createHandle(connector: Connector, spec: BaseSpec): McpHandle {
  const { source } = connector;
  const cell = createStateCell();
  const startTimeoutMs = spec.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const tasks = spec.tasks ?? true;
  let current: Connection | undefined;
  // How the server named itself in the last handshake: said with the tools by every start() while it is ready.
  let serverInfo: ServerInfo | undefined;
  let starting: Promise<StartResult> | undefined;
  let generation = 0;
  let stops = 0;
  let activeCalls = 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let progressSeq = 0;
  const progressListeners = new Map<string, (progress: Progress) => void>();

  /** The connection's own listeners: assigned, so attaching twice is attaching once. */
  const attach = (connection: Connection) => {
    connection.client.onclose = () => void lost(connection, undefined);
    connection.client.onerror = () => {
      // Out-of-band transport errors (a bad line, a failed SSE stream); a real loss of the connection is onclose.
    };
  };

  /** The connection ended without stop(): the handle fails with the reason, and frees what is left. */
  const lost = async (connection: Connection, error: ClientError | undefined) => {
    if (connection !== current) return;
    current = undefined;
    clearIdle();
    const detail = connection.detail();
    cell.set("error", {
      error: error ?? clientError(source, "UNAVAILABLE", `the connection closed${detail === "" ? "" : ` (${detail})`}`),
    });
    await close(connection);
  };

  const start = (): Promise<StartResult> => {
    if (current !== undefined && cell.snapshot.value === "ready") {
      attach(current);
      return Promise.resolve(ready(cell.snapshot.tools ?? []));
    }
    if (starting !== undefined) return starting;
    const attempt = open(++generation);
    starting = attempt;
    void attempt.finally(() => {
      if (starting === attempt) starting = undefined;
    });
    return attempt;
  };

  const ready = (tools: readonly ToolSpec[]): StartResult =>
    serverInfo === undefined ? { ok: true, tools } : { ok: true, tools, server: serverInfo };

  const open = async (mine: number): Promise<StartResult> => {
    cell.set("starting");
    const stopped = (): StartResult => ({
      ok: false,
      error: clientError(source, "UNAVAILABLE", "stopped before it was ready"),
    });
    let reading: Awaited<ReturnType<Connector["open"]>>;
    let validator: jsonSchemaValidator | undefined;
    // Nothing is read before the connection exists, so `connection` is set by the time a message can pass the limit.
    let connection: Connection | undefined;
    try {
      validator = await linearValidator();
      reading = await connector.open(() => {
        if (connection !== undefined) tooLarge(connection);
      });
    } catch (cause) {
      reading = { ok: false, error: toClientError(cause, { source, doing: "starting" }) };
    }
    if (mine !== generation) {
      if (reading.ok) await reading.opened.dispose?.();
      return stopped();
    }
    if (!reading.ok) {
      cell.set("error", { error: reading.error });
      return { ok: false, error: reading.error };
    }
    connection = newConnection(reading.opened, reading.secrets, validator as jsonSchemaValidator);
    current = connection;
    try {
      await connection.client.connect(reading.opened.transport, { timeout: startTimeoutMs });
      if (tasks) {
        const { client } = connection;
        markTaskAnswers(reading.opened.transport, (taskId) => {
          client
            .request({ method: "tasks/cancel", params: { taskId } } as never, ANY_RESULT, { timeout: startTimeoutMs })
            .catch(() => undefined); // the task ends at its ttl anyway
        });
      }
      const listed = await connection.client.listTools(undefined, { timeout: startTimeoutMs });
      if (mine !== generation || connection !== current) {
        await close(connection);
        return stopped();
      }
      const tools = toSpecs(listed.tools, connection.client);
      serverInfo = serverInfoOf(connection.client.getServerVersion());
      attach(connection);
      cell.set("ready", { tools });
      armIdle();
      return ready(tools);
    } catch (cause) {
      await close(connection);
      if (mine !== generation) return stopped();
      const error =
        tooLargeError(connection, "starting") ??
        toClientError(cause, {
          source,
          doing: "starting",
          timeoutMs: startTimeoutMs,
          closed: connection.detail,
        });
      if (connection === current) current = undefined;
      cell.set("error", { error });
      return { ok: false, error };
    }
  };

  const newConnection = (opened: Opened, secrets: readonly string[], validator: jsonSchemaValidator): Connection => {
    const connection: Connection = {
      opened,
      closing: false,
      tooLarge: false,
      detail: () => hideSecrets(opened.closedDetail?.() ?? "", secrets),
      client: new Client(CLIENT_INFO, {
        ...(tasks ? { capabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } } : {}),
        // A server's output schemas are checked with every pattern run in linear time (RE2), never backtracking.
        jsonSchemaValidator: validator,
        ...(connector.versionNegotiation === undefined ? {} : { versionNegotiation: connector.versionNegotiation }),
        listChanged: {
          tools: {
            debounceMs: LIST_CHANGED_DEBOUNCE_MS,
            onChanged: (error, tools) => {
              if (error === null && tools !== null && connection === current)
                cell.setTools(toSpecs(tools, connection.client));
            },
          },
        },
      }),
    };
    connection.client.setNotificationHandler("notifications/progress", (notification) => {
      const { progressToken, ...progress } = notification.params;
      progressListeners.get(String(progressToken))?.(progressOf(progress));
    });
    return connection;
  };

  /**
   * A message from the server passed `maxResultBytes` (the transport stopped reading it): the connection is closed,
   * the requests on it answer RESULT_TOO_LARGE, and a ready handle goes back to `idle`, so the next call opens a new
   * connection, as after an idle stop. During a start, the start fails with it.
   */
  const tooLarge = (connection: Connection) => {
    if (connection.tooLarge) return;
    connection.tooLarge = true;
    if (connection === current && cell.snapshot.value === "ready") {
      current = undefined;
      clearIdle();
      cell.set("idle");
    }
    void close(connection);
  };

  const tooLargeError = (connection: Connection, doing: string): ClientError | undefined =>
    connection.tooLarge
      ? clientError(
          source,
          "RESULT_TOO_LARGE",
          `${doing}: an answer exceeded maxResultBytes (${connector.maxResultBytes} bytes) while it was read, before any of it was parsed; the connection was reset, and the next call opens a new one`,
        )
      : undefined;

  const stop = async (): Promise<void> => {
    generation++;
    stops++;
    starting = undefined;
    clearIdle();
    const connection = current;
    current = undefined;
    if (cell.snapshot.value !== "idle") cell.set("idle");
    if (connection !== undefined) await close(connection);
  };

  /** Keeps the handle from an idle stop while `work` runs (a request; a task's wait, between its polls). */
  const busy = async <T>(work: () => Promise<T>): Promise<T> => {
    activeCalls++;
    clearIdle();
    try {
      return await work();
    } finally {
      activeCalls--;
      armIdle();
    }
  };

  /**
   * Starts the handle if needed, then runs one request on the live connection. Every failure is a value; a lost
   * connection fails the handle. A request in flight keeps an idle handle from stopping.
   */
  const request = async <T>(
    doing: string,
    options: RequestOptions,
    run: (client: Client, sdk: { signal?: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; error: ClientError }> => {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    if (signal?.aborted)
      return { ok: false, error: clientError(source, "CANCELLED", `${doing}: cancelled before it started`) };
    return busy(async () => {
      const started = await start();
      if (!started.ok) return started;
      const connection = current;
      if (connection === undefined)
        return { ok: false, error: clientError(source, "UNAVAILABLE", `${doing}: stopped`) };
      if (signal?.aborted) return { ok: false, error: clientError(source, "CANCELLED", `${doing}: cancelled`) };
      try {
        return {
          ok: true,
          value: await run(connection.client, { ...(signal === undefined ? {} : { signal }), timeout: timeoutMs }),
        };
      } catch (cause) {
        const error =
          tooLargeError(connection, doing) ??
          toClientError(cause, {
            source,
            doing,
            signal,
            timeoutMs,
            closed: connection.closing ? () => "stopped" : connection.detail,
          });
        if (!signal?.aborted && losesConnection(cause)) await lost(connection, undefined);
        return { ok: false, error };
      }
    });
  };

  const listTools = async (): Promise<ListToolsResult> => {
    const listed = await request("listing tools", {}, async (client, sdk) => ({
      listed: await client.listTools(undefined, { ...sdk, cacheMode: "refresh" }),
      client,
    }));
    if (!listed.ok) return listed;
    const tools = toSpecs(listed.value.listed.tools, listed.value.client);
    if (cell.snapshot.value === "ready") cell.setTools(tools);
    return { ok: true, tools };
  };

  /** The outcome of a tool's result: TOOL_ERROR with the result when it is an error. */
  const outcomeOf = (name: string, result: ToolResult): CallToolOutcome =>
    result.isError === true
      ? { ok: false, error: clientError(source, "TOOL_ERROR", `"${name}" failed: ${summary(result)}`), result }
      : { ok: true, result };

  /** What a task's handle sends: requests of the Tasks extension, any answer taken as it is. */
  const taskRequests = (name: string, stopsAt = stops): TaskRequests => ({
    source,
    stopped: () => stops !== stopsAt,
    tool: name,
    outcomeOf: (result) => outcomeOf(name, result),
    busy,
    send: (doing, method, params, options) =>
      request(doing, options, (client, sdk) => client.request({ method, params } as never, ANY_RESULT, sdk)),
  });

  function callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallToolOptions & { task: "handle" },
  ): Promise<TaskCallOutcome>;
  function callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolOutcome>;
  async function callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<TaskCallOutcome> {
    const startedAt = Date.now();
    const called = await plainCall(name, args, options);
    const created = called.ok ? createdTaskOf(called.result) : undefined;
    if (created === undefined) return called;
    const task = createTaskHandle(created, taskRequests(name));
    if (options.task === "handle") return { ok: true, task };
    const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    return task.result(waitOptionsOf(options, Math.max(1, timeoutMs - (Date.now() - startedAt))));
  }

  const plainCall = async (
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): Promise<CallToolOutcome> => {
    const { onProgress } = options;
    // The handle's own progress token and handler, not the SDK's onprogress: the SDK forgets a call's progress
    // handler as soon as its answer arrives, before it dispatches a notification read just ahead of that answer, so
    // the last progress (often "done") would be lost.
    const progressToken = onProgress === undefined ? undefined : `skillport-client-${++progressSeq}`;
    if (progressToken !== undefined && onProgress !== undefined) progressListeners.set(progressToken, onProgress);
    const { meta } = options;
    const _meta =
      progressToken === undefined ? meta : meta === undefined ? { progressToken } : { ...meta, progressToken };
    const called = await request(`calling "${name}"`, options, (client, sdk) =>
      client.callTool({ name, arguments: args, ...(_meta === undefined ? {} : { _meta }) }, sdk),
    ).finally(() => {
      if (progressToken !== undefined) progressListeners.delete(progressToken);
    });
    if (!called.ok) return called;
    const result = called.value as ToolResult;
    // A task (marked as it arrived) is an error result to the SDK; callTool reads it before any caller sees it.
    if (result.isError === true && createdTaskOf(result) !== undefined) return { ok: true, result };
    return outcomeOf(name, result);
  };

  const listResources = async (): Promise<Outcome<"resources", ResourceSpec[]>> => {
    const listed = await request("listing resources", {}, (client, sdk) =>
      client.listResources(undefined, { ...sdk, cacheMode: "refresh" }),
    );
    return listed.ok ? { ok: true, resources: listed.value.resources as ResourceSpec[] } : listed;
  };

  const listResourceTemplates = async (): Promise<Outcome<"resourceTemplates", ResourceTemplateSpec[]>> => {
    const listed = await request("listing resource templates", {}, (client, sdk) =>
      client.listResourceTemplates(undefined, { ...sdk, cacheMode: "refresh" }),
    );
    return listed.ok
      ? { ok: true, resourceTemplates: listed.value.resourceTemplates as ResourceTemplateSpec[] }
      : listed;
  };

  const readResource = async (
    uri: string,
    options: RequestOptions = {},
  ): Promise<Outcome<"contents", ResourceContents[]>> => {
    const read = await request(`reading "${uri}"`, options, (client, sdk) =>
      client.readResource({ uri }, { ...sdk, cacheMode: "refresh" }),
    );
    return read.ok ? { ok: true, contents: read.value.contents as ResourceContents[] } : read;
  };

  const listPrompts = async (): Promise<Outcome<"prompts", PromptSpec[]>> => {
    const listed = await request("listing prompts", {}, (client, sdk) =>
      client.listPrompts(undefined, { ...sdk, cacheMode: "refresh" }),
    );
    return listed.ok ? { ok: true, prompts: listed.value.prompts as PromptSpec[] } : listed;
  };

  const getPrompt = async (
    name: string,
    args: Record<string, string> = {},
    options: RequestOptions = {},
  ): Promise<Outcome<"result", PromptResult>> => {
    const got = await request(`getting prompt "${name}"`, options, (client, sdk) =>
      client.getPrompt({ name, arguments: args }, sdk),
    );
    return got.ok ? { ok: true, result: got.value as PromptResult } : got;
  };

  const armIdle = () => {
    clearIdle();
    const ms = spec.idleTimeoutMs;
    if (ms === undefined || activeCalls > 0 || cell.snapshot.value !== "ready") return;
    idleTimer = setTimeout(() => {
      if (activeCalls === 0) void stop();
    }, ms);
    (idleTimer as { unref?: () => void }).unref?.();
  };

  const clearIdle = () => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = undefined;
  };

  return {
    transport: connector.transport,
    state: cell.observable,
    start,
    stop,
    listTools,
    callTool,
    listResources,
    listResourceTemplates,
    readResource,
    listPrompts,
    getPrompt,
  };
}

// --- internal ---

const DEFAULT_START_TIMEOUT_MS = 30_000;

/** The output schema check for one connection; ajv and re2js load with the first one, not with the client. */
let validatorModule: Promise<typeof import("./linear-json-schema-validator.js")> | undefined;
async function linearValidator(): Promise<jsonSchemaValidator> {
  validatorModule ??= import("./linear-json-schema-validator.js");
  return (await validatorModule).linearJsonSchemaValidator();
}
const DEFAULT_CALL_TIMEOUT_MS = 60_000;

const LIST_CHANGED_DEBOUNCE_MS = 50;

interface Connection {
  client: Client;
  opened: Opened;
  closing: boolean;
  /** A message from the server passed `maxResultBytes`: the connection is being reset. */
  tooLarge: boolean;
  detail: () => string;
}

async function close(connection: Connection): Promise<void> {
  if (connection.closing) return;
  connection.closing = true;
  connection.client.onclose = undefined;
  try {
    await connection.client.close();
  } catch {
    // Closing what is already gone.
  }
  try {
    await connection.opened.dispose?.();
  } catch {
    // Freeing what is already free.
  }
}
