// The contract every MCP connection has, whatever carries it. Nothing here imports the SDK: a caller holds plain
// data (tool specs, call results, structured errors) and never needs an SDK type. The MCP shapes themselves (a tool
// listing, content blocks, resource contents) are @skillport/core's, declared once for every package.
import type { McpContentBlock, McpResourceContents, McpTool, McpToolResult } from "@skillport/core";

/** How a handle reaches its server. */
export type TransportKind = "stdio" | "http" | "inproc" | "worker";

/** Where a handle is in its life: nothing opened yet, opening, serving, or failed (the reason is in `error`). */
export type ConnectionState = "idle" | "starting" | "ready" | "error";

/** A tool as the server lists it: its name, descriptions and JSON Schemas, as published (MCP's tool listing). */
export type ToolSpec = McpTool;

/** What a tool answered: MCP content blocks, and structured data when the tool gives it. */
export type ToolResult = McpToolResult;

/**
 * Why something failed, as a value: a stable `code` to branch on and a `message` a person can act on. Every
 * failure of a handle or a hub ends as one of these; none is thrown.
 *
 * | code                  | meaning                                                                                   |
 * | --------------------- | ----------------------------------------------------------------------------------------- |
 * | `CREDENTIALS_MISSING` | a required credential has no value; nothing was started (`credential` names it)            |
 * | `HOST_MISSING`        | the inproc or worker transport needs `@skillport/host`, which is not installed             |
 * | `UNAVAILABLE`         | the server could not be started or reached, or its connection closed (exit, crash, stop) |
 * | `UNAUTHORIZED`        | the server refused the credentials (HTTP 401 or 403; `status` holds which)                |
 * | `TIMEOUT`             | the call outlived its `timeoutMs`; the server was told to cancel it                       |
 * | `CANCELLED`           | the caller's signal aborted the call; the server was told to cancel it                    |
 * | `PROTOCOL_ERROR`      | the server answered with a JSON-RPC error (unknown tool, bad params…); see `rpcCode`      |
 * | `RESULT_TOO_LARGE`    | an answer passed the spec's `maxResultBytes` while it was read; the connection was reset   |
 * | `TOOL_ERROR`          | the tool ran and reported a failure (`isError`); the outcome's `result` holds what it said |
 * | `INPUT_REQUIRED`      | a task asked for input and the call has no `onInputRequired`; the task was cancelled       |
 * | `NOT_FOUND`           | (hub) no server offers a tool of that full name                                            |
 * | `CONFLICT`            | (hub) two servers offer the same full name                                                 |
 * | `INTERNAL`            | anything else; a bug to report                                                             |
 */
export interface ClientError {
  code: ClientErrorCode;
  message: string;
  /** CREDENTIALS_MISSING: the name of the credential, as the spec's `credentials` names it. */
  credential?: string;
  /** PROTOCOL_ERROR: the JSON-RPC error code the server answered (e.g. -32602). */
  rpcCode?: number;
  /** UNAUTHORIZED and HTTP failures: the HTTP status. */
  status?: number;
  /** A failure of a call the server ran as a task (see CallToolOptions.task): the task's id. */
  taskId?: string;
}

/** The stable codes of {@link ClientError}. */
export type ClientErrorCode =
  | "CREDENTIALS_MISSING"
  | "HOST_MISSING"
  | "UNAVAILABLE"
  | "UNAUTHORIZED"
  | "TIMEOUT"
  | "CANCELLED"
  | "PROTOCOL_ERROR"
  | "RESULT_TOO_LARGE"
  | "TOOL_ERROR"
  | "INPUT_REQUIRED"
  | "NOT_FOUND"
  | "CONFLICT"
  | "INTERNAL";

/** How a server names itself in the handshake (MCP's `serverInfo`): e.g. `secure-filesystem-server` `0.2.0`. */
export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
}

/**
 * What `start()` answers: the server's tools once it is ready (and its `serverInfo`, when it gave one), or why it is
 * not.
 */
export type StartResult =
  | { ok: true; tools: readonly ToolSpec[]; server?: ServerInfo }
  | { ok: false; error: ClientError };

/** What `listTools()` answers: the same shape as {@link StartResult}. */
export type ListToolsResult = StartResult;

/**
 * What `callTool()` answers. `ok` is true when the tool answered without `isError`. A tool's own failure is
 * `{ ok: false, error: { code: "TOOL_ERROR" }, result }`, with the result it gave; any other failure has no result.
 */
export type CallToolOutcome = { ok: true; result: ToolResult } | { ok: false; error: ClientError; result?: ToolResult };

/** A resource as the server lists it (`resources/list`), as published. */
export interface ResourceSpec {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** The size in bytes, when the server says. */
  size?: number;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** A resource template as the server lists it (`resources/templates/list`): an RFC 6570 URI template. */
export interface ResourceTemplateSpec {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** One part of what `resources/read` answered: text, or base64 `blob` for binary contents. */
export type ResourceContents = McpResourceContents;

/** A prompt as the server lists it (`prompts/list`), with the arguments it takes. */
export interface PromptSpec {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  _meta?: Record<string, unknown>;
}

/** What `prompts/get` answered: the rendered messages (MCP `PromptMessage`s: `role` and one content block). */
export interface PromptResult {
  description?: string;
  messages: { role: "user" | "assistant"; content: McpContentBlock }[];
  _meta?: Record<string, unknown>;
}

/**
 * What the resource and prompt methods answer: the value under its name, or why not. A server that does not offer
 * resources (or prompts) answers empty lists; reading from it answers PROTOCOL_ERROR with the server's `rpcCode`.
 */
export type Outcome<K extends string, T> = ({ ok: true } & { [key in K]: T }) | { ok: false; error: ClientError };

/** Options of one request (a read, a prompt): the same as a call's. */
export type RequestOptions = CallToolOptions;

/** Options of one call. */
export interface CallToolOptions {
  /**
   * What to do when the server answers the call with a task (the MCP Tasks extension, which the handle declares
   * unless its spec says `tasks: false`): `"wait"` polls `tasks/get` at the server's `pollIntervalMs` until the task
   * ends, and answers as a plain call would (`timeoutMs` and `signal` bound the whole wait, and cancel the task);
   * `"handle"` answers at once with a {@link TaskHandle} (see {@link TaskCallOutcome}).
   * @default "wait"
   */
  task?: "wait" | "handle";
  /**
   * Answers the questions a task asks while it runs (`input_required`: an elicitation, a sampling request…), by
   * key, as MCP's `inputResponses` (for an elicitation, `{ action: "accept", content }`); they are sent with
   * `tasks/update` and the wait goes on. Without it, a task that asks is cancelled and the call answers
   * INPUT_REQUIRED. Used by `"wait"` and by {@link TaskHandle.result}.
   */
  onInputRequired?: (
    requests: Readonly<Record<string, InputRequest>>,
    task: TaskInfo,
  ) => InputResponses | Promise<InputResponses>;
  /** Told of each change of the task seen while waiting (its status, its `statusMessage`, which carries its progress). */
  onTaskStatus?: (task: TaskInfo) => void;
  /** Aborting it cancels the call: the server is sent `notifications/cancelled` and the call answers CANCELLED. */
  signal?: AbortSignal;
  /**
   * How long to wait for the answer; past it the server is told to cancel and the call answers TIMEOUT.
   * @default 60000
   */
  timeoutMs?: number;
  /**
   * Told of each `notifications/progress` the server sends for this call (the call then carries a progress token).
   * Progress does not extend `timeoutMs`.
   */
  onProgress?: (progress: Progress) => void;
  /**
   * Sent as the request's `_meta`: W3C trace context (`traceparent`, `tracestate`) for a server that traces, or
   * any other key it reads there. Over Streamable HTTP, `traceparent` and `tracestate` go as HTTP headers too.
   */
  meta?: Readonly<Record<string, string>>;
}

/**
 * What a call answers with `{ task: "handle" }`: a `task` when the server made one, or else the call's own outcome
 * (a result the server answered at once, or a failure), exactly as without the option.
 */
export type TaskCallOutcome = { ok: true; task: TaskHandle } | (CallToolOutcome & { task?: undefined });

/** Where a task is (SEP-2663): running, waiting for answers, or ended one of three ways. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A question a task asks (MCP's `InputRequest`): a server-to-client request, e.g. `elicitation/create`. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** Answers to a task's questions, by the key the server gave each (MCP's `inputResponses`). */
export type InputResponses = Record<string, unknown>;

/** A task as the server last described it (`tools/call` or `tasks/get`). */
export interface TaskInfo {
  taskId: string;
  status: TaskStatus;
  /** What the run last said it is doing (its progress). */
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the server keeps the task after its last change. */
  ttlMs: number;
  /** How often the server asks to be polled. */
  pollIntervalMs: number;
  /** `input_required`: the open questions, by key. */
  inputRequests?: Record<string, InputRequest>;
}

/**
 * A call the server runs as a task. Its methods answer values, never throw, and start the handle again when its
 * connection was lost meanwhile (the task lives on the server).
 */
export interface TaskHandle {
  readonly taskId: string;
  /** The task as last seen (by the call, or by the latest `get`, `result`). */
  readonly info: TaskInfo;
  /** Asks the server once (`tasks/get`). */
  get(options?: RequestOptions): Promise<Outcome<"task", TaskInfo>>;
  /**
   * Polls until the task ends and answers as a plain call would: its result (TOOL_ERROR for an `isError` one),
   * PROTOCOL_ERROR for a failed task (with the server's `rpcCode`), CANCELLED for a cancelled one. `timeoutMs` and
   * `signal` bound the wait and cancel the task; `onInputRequired` answers its questions.
   */
  result(
    options?: Pick<CallToolOptions, "signal" | "timeoutMs" | "onInputRequired" | "onTaskStatus">,
  ): Promise<CallToolOutcome>;
  /** Answers some or all of an `input_required` task's questions (`tasks/update`). */
  respond(responses: InputResponses, options?: RequestOptions): Promise<Outcome<"task", TaskInfo>>;
  /** Cancels the task (`tasks/cancel`): the run's signal aborts on the server; a finished task stays as it ended. */
  cancel(options?: RequestOptions): Promise<Outcome<"task", TaskInfo>>;
}

/** One progress notification: how far (`progress`, increasing), of how much when known, and what it is doing. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** One moment of a handle's life, as its `state` observable reports it. */
export interface StateSnapshot {
  /** The state. */
  value: ConnectionState;
  /** Why the handle is in `error`: CREDENTIALS_MISSING (naming the credential), UNAVAILABLE, … */
  error?: ClientError;
  /** The server's tools while `ready`, updated when the server announces a change. */
  tools?: readonly ToolSpec[];
  /** What changed: the state itself, or (while ready) only the tool list, after `notifications/tools/list_changed`. */
  change: "state" | "tools";
}

/**
 * A handle's state, observable: read `value`, `error` and `tools` at any time, `subscribe` for every change, or
 * iterate with `for await` (the current snapshot first, then each change, until the loop breaks).
 */
export interface ObservableState extends AsyncIterable<StateSnapshot> {
  readonly value: ConnectionState;
  readonly error: ClientError | undefined;
  readonly tools: readonly ToolSpec[] | undefined;
  /** Calls `listener` on every change (not with the current snapshot); returns the function that unsubscribes. */
  subscribe(listener: (snapshot: StateSnapshot) => void): () => void;
}

/**
 * One MCP server, whatever transport reaches it. Lazy: nothing is opened before the first `start()`,
 * `listTools()` or `callTool()`. Nothing it does throws for a failure of the server, the protocol or the transport.
 */
export interface McpHandle {
  /** How the handle reaches its server. */
  readonly transport: TransportKind;
  /** The handle's state: `idle`, `starting`, `ready` or `error` (with the reason), observable. */
  readonly state: ObservableState;
  /**
   * Opens the connection and lists the tools. Idempotent: concurrent calls share one connection attempt; on a
   * ready handle it opens nothing, re-attaches the handle's listeners (close, error, list changes) to the live
   * connection and answers the tools it holds. A handle whose required credentials are missing opens nothing and
   * answers CREDENTIALS_MISSING. After an error or `stop()`, it opens a new connection.
   */
  start(): Promise<StartResult>;
  /** Closes the connection (a stdio server's process ends, a worker is terminated); calls in flight answer UNAVAILABLE. */
  stop(): Promise<void>;
  /** Starts the handle if needed, then asks the server for its tools (every page) and answers them. */
  listTools(): Promise<ListToolsResult>;
  /**
   * Starts the handle if needed, then calls one tool. A call the server runs as a task is waited for, or with
   * `{ task: "handle" }` answered as a {@link TaskHandle}.
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallToolOptions & { task: "handle" },
  ): Promise<TaskCallOutcome>;
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolOutcome>;
  /** Starts the handle if needed, then asks for the server's resources (every page); none if it offers none. */
  listResources(): Promise<Outcome<"resources", ResourceSpec[]>>;
  /** Starts the handle if needed, then asks for the server's resource templates (every page). */
  listResourceTemplates(): Promise<Outcome<"resourceTemplates", ResourceTemplateSpec[]>>;
  /** Starts the handle if needed, then reads one resource by URI (a listed one, or one a template expands to). */
  readResource(uri: string, options?: RequestOptions): Promise<Outcome<"contents", ResourceContents[]>>;
  /** Starts the handle if needed, then asks for the server's prompts (every page); none if it offers none. */
  listPrompts(): Promise<Outcome<"prompts", PromptSpec[]>>;
  /** Starts the handle if needed, then renders one prompt with its arguments (prompt arguments are strings). */
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: RequestOptions,
  ): Promise<Outcome<"result", PromptResult>>;
}

/**
 * Where a credential's value comes from, read at each start (never before):
 * - `{ env: "NAME" }`: an environment variable of this process (none exist in a browser);
 * - `{ value: "…" }`: the value itself (`undefined` counts as missing);
 * - `{ read: () => …, where: "…" }`: a function, e.g. reading a file or a keychain; `where` says where for messages.
 * An empty string counts as missing.
 */
export type CredentialSource =
  | { env: string }
  | { value: string | undefined }
  | { read: () => string | undefined | Promise<string | undefined>; where: string };

/**
 * A credential a server needs: where its value comes from (`from`) and where it goes (`to`). A required
 * credential without a value stops the start before anything is opened, and the handle's state names it.
 */
export interface Credential<To> {
  from: CredentialSource;
  to: To;
  /**
   * An optional credential without a value is left out instead of stopping the start.
   * @default false
   */
  optional?: boolean;
}

/**
 * Which MCP protocol era to speak: `"auto"` asks the server (`server/discover`) and falls back to the 2025
 * handshake; a version pins it.
 */
export type ProtocolChoice = "auto" | "2025-11-25" | "2026-07-28";

/** What every spec may say, whatever its transport. */
export interface BaseSpec {
  /**
   * A name for messages: every error message starts with `[name]`.
   * @default the command, the URL or the manifest
   */
  name?: string;
  /**
   * Stop the connection after this long without a call; the next call starts it again. Never while a call runs.
   * @default undefined (never)
   */
  idleTimeoutMs?: number;
  /**
   * How long `start()` may take (spawn or connect, handshake and the first tools/list) before it answers UNAVAILABLE.
   * @default 30000
   */
  startTimeoutMs?: number;
  /**
   * Declare the MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), so that a server may answer a long
   * call with a task; the handle then waits for it (or hands it back, see CallToolOptions.task). `false` declares
   * nothing: a tool that runs only as a task is then refused by the server (-32021).
   * @default true
   */
  tasks?: boolean;
}

/** A server over Streamable HTTP; works in browsers too. */
export interface HttpSpec extends BaseSpec {
  transport: "http";
  /** The MCP endpoint, e.g. `https://tools.example.com/mcp`. */
  url: string | URL;
  /** Headers sent with every request (no secrets here: put those in `credentials` or `bearer`). */
  headers?: Record<string, string>;
  /** Shorthand for a required credential named "bearer" sent as `Authorization: Bearer …`; a string is the token itself. */
  bearer?: string | CredentialSource;
  /** Credentials sent as headers: `to: "bearer"` (Authorization: Bearer …) or `{ header, prefix? }`. */
  credentials?: Record<string, Credential<"bearer" | { header: string; prefix?: string }>>;
  /**
   * The protocol era. `"auto"` probes with `server/discover` and falls back to `initialize`.
   * @default "auto"
   */
  protocol?: ProtocolChoice;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /**
   * The most bytes one message from the server may take (a stdio line, an HTTP JSON body, one SSE event), counted
   * while it is read, before any of it is parsed. Past it the reading stops, the connection is reset (a stdio
   * server's process is killed; an HTTP stream is aborted) and the requests waiting on it answer RESULT_TOO_LARGE;
   * the handle goes back to `idle`, and the next call opens a new connection.
   * @default 4194304 (4 MiB)
   */
  maxResultBytes?: number;
}

/**
 * A server the client spawns and talks to over its stdin/stdout (Node only). The child's environment is exactly
 * `env`, the `inheritEnv` variables this process has, and the credentials — never this process's whole
 * environment, nor the MCP SDK's default set of inherited variables.
 */
export interface StdioSpec extends BaseSpec {
  transport: "stdio";
  /** The program, e.g. `process.execPath`, `"npx"` (then put PATH and HOME in `inheritEnv`). */
  command: string;
  args?: string[];
  /** @default this process's working folder */
  cwd?: string;
  /** Variables the child gets, as given. No secrets here: put those in `credentials`. @default {} */
  env?: Record<string, string>;
  /**
   * Names of variables copied from this process's environment when set, e.g. `["PATH", "HOME"]`.
   * @default []
   */
  inheritEnv?: string[];
  /** Credentials the child gets as environment variables: `{ from: { env: "GH_TOKEN" }, to: { env: "GITHUB_TOKEN" } }`. */
  credentials?: Record<string, Credential<{ env: string }>>;
  /**
   * The protocol era. `"auto"` probes with `server/discover` in a short-lived second process first (the SDK's way
   * on stdio), so it spawns the command twice per start.
   * @default "2025-11-25"
   */
  protocol?: ProtocolChoice;
  /**
   * The child's stderr: `"tail"` keeps its last 4 KiB for error messages (credential values removed), `"inherit"`
   * passes it through, `"ignore"` drops it, a function gets every chunk.
   * @default "tail"
   */
  stderr?: "tail" | "inherit" | "ignore" | ((chunk: string) => void);
  /**
   * The most bytes one message from the server may take (a stdio line, an HTTP JSON body, one SSE event), counted
   * while it is read, before any of it is parsed. Past it the reading stops, the connection is reset (a stdio
   * server's process is killed; an HTTP stream is aborted) and the requests waiting on it answer RESULT_TOO_LARGE;
   * the handle goes back to `idle`, and the next call opens a new connection.
   * @default 4194304 (4 MiB)
   */
  maxResultBytes?: number;
}

/** What the inproc and worker transports say about the Skillport host they run. */
interface HostSpecBase extends BaseSpec {
  /** The manifest: a file path, or a manifest object (then `dir` is where its relative paths start). */
  manifest: string | Record<string, unknown>;
  /** For a manifest object: the folder its relative paths are resolved from. @default the working folder */
  dir?: string;
  /** The host's lock mode (see `createHost`). @default "off" */
  lock?: "auto" | "frozen" | "off";
  /** The host's log level; its lines go to this process's stderr (inproc) or the worker's tail (worker). @default "warn" */
  logLevel?: "silent" | "error" | "warn" | "info" | "debug";
}

/**
 * A Skillport host in this process (`createHost` + `connectInMemory` from `@skillport/host`, an optional peer
 * dependency loaded only when the handle starts). It shares this process: it reads the credentials its manifest
 * names from this process's environment, as its manifest says.
 */
export interface InprocSpec extends HostSpecBase {
  transport: "inproc";
  /** Skill modules already imported, by package name (see `createHost`'s `modules`). */
  modules?: Record<string, unknown>;
}

/**
 * A Skillport host in a worker thread, talking over a MessagePort. The worker's `process.env` is exactly `env`,
 * the `inheritEnv` variables and the credentials, like a stdio child's.
 */
export interface WorkerSpec extends HostSpecBase {
  transport: "worker";
  /** @default {} */
  env?: Record<string, string>;
  /** @default [] */
  inheritEnv?: string[];
  credentials?: Record<string, Credential<{ env: string }>>;
  /** The worker's resource limits (Node's `resourceLimits`), e.g. `{ maxOldGenerationSizeMb: 256 }`. */
  resourceLimits?: { maxOldGenerationSizeMb?: number; maxYoungGenerationSizeMb?: number; stackSizeMb?: number };
}

/** Any spec `connect` from `@skillport/client/node` accepts. */
export type ServerSpec = HttpSpec | StdioSpec | InprocSpec | WorkerSpec;
