import type {
  CallToolResult,
  InputRequests,
  McpRequestContext,
  ServerContext,
  StandardSchemaV1,
} from "@modelcontextprotocol/server";
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
} from "@modelcontextprotocol/server";
import type { Caller } from "../entries/check-scopes.js";
import { refusalOf } from "../entries/check-scopes.js";
import type { PromptListing, ResourceTemplateListing } from "../entries/resource-entry.js";
import type { Host, HostSwap } from "../host.js";
import type { RequestOutcome } from "../pipeline/requests.js";
import type { Registry } from "../registry/registry.js";
import type { SkillsCatalog } from "./skills.js";
import {
  createSkillsCatalog,
  RESOURCES_DIRECTORY_READ_METHOD,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
  SKILLS_PAGE_SIZE,
} from "./skills.js";
import {
  declaresTasks,
  missingTasksCapability,
  TASKS_CANCEL_METHOD,
  TASKS_EXTENSION_ID,
  TASKS_GET_METHOD,
  TASKS_UPDATE_METHOD,
} from "./tasks.js";
import type { CallObserver, ToolCallRequest, ToolConnection, ToolsAnswer, ToolsCore } from "./tools-core.js";
import { createToolsCore, optionsOf, supportsOf } from "./tools-core.js";
import { endThrownSpan, incomingTraceContext, openRequestSpan } from "./trace-request.js";

/** Options for {@link createServerFactory}. */
export interface ServerFactoryOptions {
  /** Who is calling, from the request context (HTTP); undefined for local transports, whose calls are not checked. */
  callerOf?: (ctx: McpRequestContext | undefined) => Caller | undefined;
  /** Told when each tools/call starts and ends, e.g. for metrics (when no `core` is given). */
  observer?: CallObserver;
  /**
   * The tools core the servers' tools handlers answer with: a transport that answers plain requests with the same
   * core in front of the servers passes it here.
   * @default createToolsCore(host, { observer })
   */
  core?: ToolsCore;
  /**
   * Whether servers stay connected to one client (stdio, in memory), so that a change of the upstream servers'
   * tools can be announced to it (`notifications/tools/list_changed`). Stateless HTTP has no stream to announce on:
   * its clients read the new list at their next tools/list.
   * @default true
   */
  announceListChanged?: boolean;
}

/**
 * A factory of low-level SDK servers over one host: tools/list, resources/list, resources/templates/list and
 * prompts/list answer from lists built once; tools/call goes straight to the pipeline through the precompiled
 * dispatch table, resources/read, prompts/get and completion/complete through the host's requests; skills/list and
 * skills/get serve the composition's SKILL.md files (the Skills extension). The factory is cheap to call per
 * connection (stdio) or per request (HTTP).
 */
export function createServerFactory(
  host: Host,
  options: ServerFactoryOptions = {},
): (ctx?: McpRequestContext) => Server {
  // What the servers answer from the table, built once per table: again after a swap (Host.reload).
  let view = viewOf(host);
  const current = () => {
    if (view.registry !== host.registry) view = viewOf(host);
    return view;
  };
  const info = { name: host.manifest.name, version: host.manifest.version };
  const { callerOf } = options;
  const { tracing } = host;
  const core =
    options.core ?? createToolsCore(host, options.observer === undefined ? {} : { observer: options.observer });
  // Upstream servers may change their tools at run time, and a reloadable host (skillport dev) its whole table: then
  // every connected client is told (notifications/tools/list_changed). A host of skills alone never changes its list.
  const announce = options.announceListChanged !== false;
  const changes = (host.registry.servers.length > 0 && announce) || host.reloadable;
  const capabilities = {
    tools: { listChanged: changes },
    resources: { subscribe: true, listChanged: host.reloadable },
    prompts: { listChanged: host.reloadable },
    completions: {},
    logging: {},
    extensions: { [SKILLS_EXTENSION_ID]: { directoryRead: true }, [TASKS_EXTENSION_ID]: {} },
  };
  const open = new Set<Server>();
  const toolsChanged = () => {
    for (const server of open) server.sendToolListChanged().catch(() => undefined);
  };
  // Listening to the table only while a server is open: a factory made per connection (connectInMemory) lets go of
  // the host once its connection closed.
  let detach: (() => void) | undefined;
  const attach = () => {
    if (detach !== undefined) return;
    let unsubscribe = host.registry.subscribe(toolsChanged);
    const offSwap = host.reloadable
      ? host.onSwap(({ previous, current: next }) => {
          unsubscribe();
          unsubscribe = next.subscribe(toolsChanged);
          toolsChanged();
          const { resources, prompts } = listsChanged({ previous, current: next });
          for (const server of open) {
            if (resources) server.sendResourceListChanged().catch(() => undefined);
            if (prompts) server.sendPromptListChanged().catch(() => undefined);
          }
        })
      : undefined;
    detach = () => {
      unsubscribe();
      offSwap?.();
      detach = undefined;
    };
  };

  return (requestContext) => {
    const caller = callerOf?.(requestContext);
    const overHttp = requestContext?.requestInfo !== undefined;
    const server = new Server(info, { capabilities, instructions: current().instructions });
    if (changes && announce) {
      open.add(server);
      attach();
      server.onclose = () => {
        open.delete(server);
        if (open.size === 0) detach?.();
      };
    }
    const base = (ctx: ServerContext) => optionsOf(connectionOf(server, ctx, caller, overHttp));
    // Traced, a request other than tools/call (which the tools core traces) has a span of its own.
    const traced = <T>(
      method: string,
      target: string | undefined,
      ctx: ServerContext,
      meta: Readonly<Record<string, unknown>> | undefined,
      run: () => T | Promise<T>,
      attributes?: Record<string, string>,
    ): T | Promise<T> => {
      if (tracing === undefined) return run();
      const trace = incomingTraceContext(meta, requestContext?.requestInfo?.headers);
      const origin = { transport: overHttp ? "tcp" : "pipe", sessionId: ctx.sessionId } as const;
      const span = openRequestSpan(tracing, method, target, { id: ctx.mcpReq.id, trace }, origin);
      if (attributes !== undefined) span.set(attributes);
      return Promise.resolve()
        .then(run)
        .then(
          (answer) => {
            span.end();
            return answer;
          },
          (error: unknown) => {
            endThrownSpan(span);
            throw error;
          },
        );
    };

    server.setRequestHandler("tools/list", (request, ctx) =>
      traced("tools/list", undefined, ctx, request.params?._meta, () => core.list()),
    );
    // A call the core ran itself and passed on (a question to ask) is answered, not run again: its log lines go
    // first, as they would have while it ran. It is noted under the request over HTTP, else under this server.
    const passedKey = requestContext?.requestInfo ?? server;
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const connection = connectionOf(server, ctx, caller, overHttp);
      const passed = core.takePassedOn(passedKey, ctx.mcpReq.id);
      if (passed !== undefined) {
        for (const line of passed.logged ?? []) connection.log?.(line);
        return passed.answer.question;
      }
      const { name, arguments: args, _meta } = request.params;
      const call: ToolCallRequest = { name, args: args ?? {}, progressToken: _meta?.progressToken };
      if (tracing !== undefined) {
        call.id = ctx.mcpReq.id;
        call.trace = incomingTraceContext(_meta, requestContext?.requestInfo?.headers);
      }
      return sdkAnswerOf(await core.call(call, connection));
    });

    // The Tasks extension (SEP-2663): for a client that declared it, on this request or at initialize.
    const declared = (ctx: ServerContext, method: string) => {
      const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
      const perRequest = envelope?.[CLIENT_CAPABILITIES_META_KEY];
      if (declaresTasks(perRequest ?? server.getClientCapabilities())) return;
      const missing = missingTasksCapability(method);
      throw new ProtocolError(missing.code, missing.message, missing.data);
    };
    server.setRequestHandler(TASKS_GET_METHOD, { params: TASK_ID_PARAMS }, (params, ctx) => {
      declared(ctx, TASKS_GET_METHOD);
      return core.tasks.get(caller, params.taskId);
    });
    server.setRequestHandler(TASKS_UPDATE_METHOD, { params: TASK_UPDATE_PARAMS }, async (params, ctx) => {
      declared(ctx, TASKS_UPDATE_METHOD);
      // The SDK lifts `inputResponses` out of a request's params (as it does for tools/call's), keeping the valid ones.
      const responses = params.inputResponses ?? ctx.mcpReq.inputResponses ?? {};
      await core.tasks.update(caller, params.taskId, responses as Record<string, unknown>);
      return {};
    });
    server.setRequestHandler(TASKS_CANCEL_METHOD, { params: TASK_ID_PARAMS }, async (params, ctx) => {
      declared(ctx, TASKS_CANCEL_METHOD);
      await core.tasks.cancel(caller, params.taskId);
      return {};
    });

    server.setRequestHandler("resources/list", async (_request, ctx) => {
      const listed = await host.requests.listResources(base(ctx));
      return { resources: [...listed, ...(await current().catalog.listResources())] };
    });
    // A caller over HTTP sees only the templates and prompts it may use (its scopes); local callers see them all.
    server.setRequestHandler("resources/templates/list", (_request, ctx) => {
      const listed = host.requests.listTemplates(base(ctx));
      const { registry, templatesResult } = current();
      return listed === registry.templateListings ? templatesResult : templatesResultOf(listed);
    });
    server.setRequestHandler("resources/read", (request, ctx) =>
      traced("resources/read", undefined, ctx, request.params._meta, () => read(request.params.uri, ctx), {
        "mcp.resource.uri": request.params.uri,
      }),
    );
    const read = async (uri: string, ctx: ServerContext) => {
      if (uri.startsWith("skill://")) {
        const file = await current().catalog.read(uri);
        if (file === undefined) throw new ResourceNotFoundError(host.redactor.string(uri));
        const content =
          "text" in file
            ? { uri, mimeType: file.mimeType, text: file.text }
            : { uri, mimeType: file.mimeType, blob: Buffer.from(file.bytes).toString("base64") };
        return { contents: [content] };
      }
      const outcome = await host.requests.read(uri, base(ctx));
      // The error names the URI the client sent, which may hold a secret the host knows.
      if (outcome.status === "failed" && outcome.kind === "not-found") {
        throw new ResourceNotFoundError(host.redactor.string(uri));
      }
      return answerOf(outcome);
    };
    server.setRequestHandler("resources/subscribe", async (request) => {
      await servedOrThrow(host, current().catalog, request.params.uri, caller);
      return {};
    });
    server.setRequestHandler("resources/unsubscribe", async () => ({}));

    server.setRequestHandler("prompts/list", (_request, ctx) => {
      const listed = host.requests.listPrompts(base(ctx));
      const { registry, promptsResult } = current();
      return listed === registry.promptListings ? promptsResult : promptsResultOf(listed);
    });
    server.setRequestHandler("prompts/get", (request, ctx) => {
      const { name, arguments: args, _meta } = request.params;
      return traced("prompts/get", name, ctx, _meta, async () =>
        answerOf(await host.requests.render(name, args ?? {}, base(ctx))),
      );
    });

    server.setRequestHandler("completion/complete", async (request, ctx) => {
      const { ref, argument, context } = request.params;
      const target =
        ref.type === "ref/prompt"
          ? ({ type: "ref/prompt", name: ref.name } as const)
          : ({ type: "ref/resource", uri: ref.uri } as const);
      const outcome = await host.requests.complete(target, argument, context?.arguments ?? {}, base(ctx));
      return { completion: answerOf(outcome) };
    });

    server.setRequestHandler(SKILLS_LIST_METHOD, { params: CURSOR_PARAMS }, async (params, ctx) => {
      const entries = await current().catalog.entries();
      const start = cursorOf(params.cursor, entries.length);
      const page = entries.slice(start, start + SKILLS_PAGE_SIZE);
      const next = start + page.length;
      return {
        skills: page,
        ...(next < entries.length ? { nextCursor: String(next) } : {}),
        ...cacheFields(ctx),
      };
    });
    server.setRequestHandler(RESOURCES_DIRECTORY_READ_METHOD, { params: DIRECTORY_PARAMS }, async (params, ctx) => {
      const children = await current().catalog.readDirectory(params.uri);
      if (children === undefined) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${params.uri} is not a folder of a served skill`);
      }
      const start = cursorOf(params.cursor, children.length);
      const page = children.slice(start, start + SKILLS_PAGE_SIZE);
      const next = start + page.length;
      return {
        resources: page,
        ...(next < children.length ? { nextCursor: String(next) } : {}),
        ...cacheFields(ctx),
      };
    });
    server.setRequestHandler(SKILLS_GET_METHOD, { params: URI_PARAMS }, async (params, ctx) => {
      const skill = await current().catalog.get(params.uri);
      if (skill === undefined)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No skill is served at ${params.uri}`);
      return { skill, ...cacheFields(ctx) };
    });
    return server;
  };
}

/** Whether a swap changed what resources/list (with its templates and SKILL.md files) and prompts/list show. */
export function listsChanged({ previous, current }: HostSwap): { resources: boolean; prompts: boolean } {
  return {
    resources: differ(previous, current, ["resourceListings", "templateListings", "skillDocs"]),
    prompts: differ(previous, current, ["promptListings"]),
  };
}

// --- internal ---

/** What the servers answer from one table without asking the host's requests: built once per table. */
interface TableView {
  registry: Registry;
  templatesResult: ReturnType<typeof templatesResultOf>;
  promptsResult: ReturnType<typeof promptsResultOf>;
  catalog: SkillsCatalog;
  instructions: string;
}

function viewOf(host: Host): TableView {
  const { registry } = host;
  return {
    registry,
    templatesResult: templatesResultOf(registry.templateListings),
    promptsResult: promptsResultOf(registry.promptListings),
    catalog: createSkillsCatalog(registry.skillDocs, host.logger),
    instructions: instructionsOf(host),
  };
}

/** Whether two tables list different resources (or prompts): their clients are told only then. */
function differ(previous: Registry, next: Registry, lists: readonly (keyof Registry)[]): boolean {
  return lists.some((list) => JSON.stringify(listedOf(previous[list])) !== JSON.stringify(listedOf(next[list])));
}

/** A list as clients see it: a SKILL.md document by what it is listed as, not by its instance object. */
function listedOf(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item: unknown) =>
    typeof item === "object" && item !== null && "instance" in item ? { ...item, instance: undefined } : item,
  );
}

/** skills/list's params: an optional cursor. A hand-written Standard Schema keeps zod out of the host's runtime. */
const CURSOR_PARAMS = paramsSchema<{ cursor?: string }>((value) =>
  value.cursor === undefined || typeof value.cursor === "string"
    ? { cursor: value.cursor as string | undefined }
    : undefined,
);
const URI_PARAMS = paramsSchema<{ uri: string }>((value) =>
  typeof value.uri === "string" ? { uri: value.uri } : undefined,
);
const DIRECTORY_PARAMS = paramsSchema<{ uri: string; cursor?: string }>((value) =>
  typeof value.uri === "string" && (value.cursor === undefined || typeof value.cursor === "string")
    ? { uri: value.uri, cursor: value.cursor as string | undefined }
    : undefined,
);

const TASK_ID_PARAMS = paramsSchema<{ taskId: string }>((value) =>
  typeof value.taskId === "string" ? { taskId: value.taskId } : undefined,
);
const TASK_UPDATE_PARAMS = paramsSchema<{ taskId: string; inputResponses?: Record<string, unknown> }>((value) => {
  const { taskId, inputResponses } = value;
  if (typeof taskId !== "string") return undefined;
  if (inputResponses === undefined) return { taskId };
  if (typeof inputResponses !== "object" || inputResponses === null || Array.isArray(inputResponses)) return undefined;
  return { taskId, inputResponses: inputResponses as Record<string, unknown> };
});

function paramsSchema<T>(read: (value: Record<string, unknown>) => T | undefined): StandardSchemaV1<unknown, T> {
  return {
    "~standard": {
      version: 1,
      vendor: "skillport",
      validate(value) {
        const read_ = typeof value === "object" && value !== null ? read(value as Record<string, unknown>) : undefined;
        return read_ === undefined ? { issues: [{ message: "invalid params" }] } : { value: read_ };
      },
    },
  };
}

function cursorOf(cursor: string | undefined, length: number): number {
  if (cursor === undefined) return 0;
  const at = /^\d{1,9}$/.test(cursor) ? Number(cursor) : Number.NaN;
  if (!(at >= 0 && at <= length)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "invalid cursor");
  return at;
}

/** The 2026-07-28 era's caching fields on the skills methods' results (the base protocol's list-caching rules). */
function cacheFields(ctx: ServerContext): { ttlMs?: number; cacheScope?: "private" } {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[PROTOCOL_VERSION_META_KEY] === undefined ? {} : { ttlMs: 0, cacheScope: "private" };
}

/** A request's outcome as the protocol answers it: the value, the questions to ask, or a JSON-RPC error. */
function answerOf<T>(outcome: RequestOutcome<T>): T {
  if (outcome.status === "ok") return outcome.value;
  if (outcome.status === "input") {
    return inputRequired({
      inputRequests: outcome.requests as unknown as InputRequests,
      requestState: outcome.state,
    }) as unknown as T;
  }
  const code = outcome.kind === "error" ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams;
  const field = outcome.field === undefined ? "" : ` (at ${outcome.field})`;
  throw new ProtocolError(code, `${outcome.code}${field}: ${outcome.message}`);
}

/** The answer of resources/templates/list over some templates: copies, so nothing the SDK does reaches the registry. */
function templatesResultOf(listings: readonly ResourceTemplateListing[]) {
  return { resourceTemplates: listings.map((l) => ({ ...l })) };
}

function promptsResultOf(listings: readonly PromptListing[]) {
  return { prompts: listings.map((l) => ({ ...l, arguments: [...l.arguments] })) };
}

/** A URI this server serves and the caller may subscribe to (the scopes a read would need), or the protocol error. */
async function servedOrThrow(
  host: Host,
  catalog: SkillsCatalog,
  uri: string,
  caller: Caller | undefined,
): Promise<void> {
  if (uri.startsWith("skill://")) {
    if ((await catalog.read(uri)) === undefined) throw new ResourceNotFoundError(host.redactor.string(uri));
    return;
  }
  const entry = host.registry.resources.get(uri) ?? host.registry.templates.find(uri)?.entry;
  if (entry === undefined) throw new ResourceNotFoundError(host.redactor.string(uri));
  const refused = refusalOf(entry, caller, `resource ${uri}`);
  if (refused !== undefined) throw new ProtocolError(ProtocolErrorCode.InternalError, `PERMISSION_DENIED: ${refused}`);
}

/** Instructions for the model: which instances serve what, and how tools answer. */
function instructionsOf(host: Host): string {
  const { instances, servers, resourceListings, templateListings, promptListings, skillDocs } = host.registry;
  const extras = [
    resourceListings.length + templateListings.length > 0 ? "resources" : undefined,
    promptListings.length > 0 ? "prompts" : undefined,
    skillDocs.length > 0 ? "skills (skills/list, skill:// resources)" : undefined,
  ].filter((x) => x !== undefined);
  const sources = [...instances, ...servers].map((i) => i.id);
  return `Tools from ${sources.length} skill instances and MCP servers: ${sources.join(", ")}. Every tool answers with an envelope { ok, message, data | error, evidencePaths, warnings, meta }.${extras.length === 0 ? "" : ` This server also offers ${extras.join(", ")}.`}`;
}

/**
 * A request's connection as the SDK's handlers see it: what the client can answer (2026 era: its request's envelope;
 * 2025 era: what it declared at initialize), its answers to the previous round with the state they came back with,
 * the request's signal, and its notifications and log lines sent as the SDK sends them for this request (a log line
 * at the level the client set in the 2025 era; in the 2026 era only to a request that asked, at its level).
 */
function connectionOf(
  server: Server,
  ctx: ServerContext,
  caller: Caller | undefined,
  overHttp: boolean,
): ToolConnection {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const perRequest = envelope?.[CLIENT_CAPABILITIES_META_KEY] as Parameters<typeof supportsOf>[0];
  const state = ctx.mcpReq.requestState();
  const capabilities = perRequest ?? server.getClientCapabilities();
  return {
    supports: supportsOf(capabilities),
    tasks: declaresTasks(capabilities),
    caller,
    signal: ctx.mcpReq.signal,
    transport: overHttp ? "tcp" : "pipe",
    sessionId: ctx.sessionId,
    responses: ctx.mcpReq.inputResponses,
    state: typeof state === "string" ? state : undefined,
    notify: (notification) => ctx.mcpReq.notify(notification),
    log: ({ level, data, logger }) => {
      ctx.mcpReq.log(level, data, logger).catch(() => undefined); // a client gone away must not fail the call
    },
  };
}

/** The tools core's answer as the SDK's tools/call handler gives it: the result, the questions, or a thrown error. */
function sdkAnswerOf(answer: ToolsAnswer) {
  if ("error" in answer) throw new ProtocolError(answer.error.code, answer.error.message, answer.error.data);
  // The SDK types a tools/call answer as a result or a question, but its wire passes any resultType on tools/call
  // (SEP-2663's flat CreateTaskResult among them); it adds an empty `content` as it checks the result.
  if ("task" in answer) return answer.task as unknown as CallToolResult;
  return "result" in answer ? answer.result : answer.question;
}
