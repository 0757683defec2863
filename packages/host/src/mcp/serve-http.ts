import type { IncomingMessage, Server as NodeServer, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthInfo, McpHttpHandler } from "@modelcontextprotocol/server";
import { createMcpHandler, isLegacyRequest } from "@modelcontextprotocol/server";
import type { Caller } from "../entries/check-scopes.js";
import { HostError } from "../errors/host-error.js";
import type { Host } from "../host.js";
import { createAuthenticator } from "../transports/http/auth.js";
import type { ResolvedHttpConfig, ResolveHttpConfigOptions } from "../transports/http/config.js";
import { resolveHttpConfig, withoutBrackets } from "../transports/http/config.js";
import type { EdgeContext, Endpoint } from "../transports/http/guard.js";
import { corsHeadersOf } from "../transports/http/guards/origin.js";
import { paramHeadersOf } from "../transports/http/guards/param-headers.js";
import type { HttpEdge, HttpHandler, ServeState } from "../transports/http/handler.js";
import { createHttpEdge } from "../transports/http/handler.js";
import type { HttpMetrics } from "../transports/http/metrics.js";
import { createMetrics } from "../transports/http/metrics.js";
import {
  disconnectSignal,
  nodeEdgeRequest,
  pathOf,
  sendWebResponse,
  toWebRequest,
} from "../transports/http/node-adapter.js";
import { rpcError } from "../transports/http/responses.js";
import { notFound } from "../transports/http/routes.js";
import type { FastHttp, FastHttpAnswer } from "./fast-http.js";
import { acceptsJson, createFastHttp, mediaTypesOf } from "./fast-http.js";
import type { LegacySessions } from "./legacy-sessions.js";
import { createLegacySessions } from "./legacy-sessions.js";
import type { ServerFactoryOptions } from "./server.js";
import { createServerFactory } from "./server.js";
import { adoptOutcome } from "./tool-call.js";

/** Options for {@link serveHostHttp}: overrides of the manifest's `http` object, and where secrets come from. */
export interface HttpServeOptions extends ResolveHttpConfigOptions {
  /** @default a fresh registry with process metrics */
  metrics?: HttpMetrics;
}

/** A running HTTP server. */
export interface HttpServing {
  /**
   * The MCP endpoint as a client on this machine reaches it, e.g. `http://127.0.0.1:3333/mcp`: the real port when
   * 0 was asked for, and a loopback address when bound to every interface (0.0.0.0 or ::).
   */
  url: string;
  /** The bound port. */
  port: number;
  /** How callers authenticate: `none` on an unauthenticated loopback server. */
  auth: readonly ("token" | "jwt")[] | "none";
  /** Requests to the MCP endpoint being served now. */
  readonly inFlight: number;
  /**
   * Stops accepting connections, answers new requests on open connections with 503, lets in-flight requests
   * finish for up to `graceMs`, then closes every connection (a call still running sees its signal aborted).
   * Resolves `drained: true` when everything finished in time.
   */
  close(options?: { graceMs?: number }): Promise<{ drained: boolean }>;
}

/**
 * Serves a host over Streamable HTTP with the MCP SDK's `createMcpHandler`: the stateless 2026-07-28 era and the
 * 2025-11-25 `initialize` era on one endpoint, with no per-client state kept between requests, so replicas
 * behind any load balancer need no sticky sessions; what replicas must agree on (rate limits, one-time
 * confirmations, who is ready) lives in the host's state store (unless `http.sessions` keeps 2025-era sessions,
 * see {@link createLegacySessions}: those live in one process). In front of the SDK: a strict Host check (400/403),
 * an exact Origin allowlist (403; CORS for listed origins), POST only (405 with `Allow`; with sessions, a session's
 * GET and DELETE too), bearer authentication with static tokens or JWTs (401 pointing at RFC 9728 metadata), a
 * per-caller rate limit (429), a body limit (413), one
 * JSON-RPC message per request (a batch answers 400, so the rate limit counts calls) and socket timeouts. Beside it:
 * GET /healthz, /readyz and /metrics. Every static token is registered with `host.redactor`. The checks are the
 * web-standard guards of {@link createHostHttpHandler}; node:http only carries requests to it and answers back.
 *
 * Throws a HostError HTTP_CONFIG_INVALID before binding when the configuration is unsafe or incomplete,
 * notably a non-loopback address without authentication.
 *
 * @example
 * const host = await createHost({ manifest: "skills.manifest.json" });
 * const serving = await serveHostHttp(host, { port: 0 });
 * console.error(serving.url); // http://127.0.0.1:54321/mcp
 * await serving.close();
 */
export async function serveHostHttp(host: Host, options: HttpServeOptions = {}): Promise<HttpServing> {
  const config = await resolveHttpConfig(host.manifest, options);
  const metrics = options.metrics ?? createMetrics();
  const state: ListenerState = { draining: false, resource: undefined, inFlight: 0, onIdle: undefined };
  const { edge, fast, close } = createHostHttpEdge(host, config, { metrics, state });
  const listener = createListener(edge, fast, { host, config, metrics, state });
  // Node checks header and request timeouts on an interval (30 s unless told): check often enough to honour them.
  const connectionsCheckingInterval = Math.min(5_000, Math.max(100, Math.floor(config.timeouts.headersMs / 2)));
  const server = createServer({ connectionsCheckingInterval }, listener);
  server.headersTimeout = config.timeouts.headersMs;
  server.requestTimeout = config.timeouts.requestMs;
  server.keepAliveTimeout = config.timeouts.idleMs;
  server.timeout = 0; // a tool may run long on an otherwise quiet connection; requestMs bounds slow uploads

  await listen(server, config.port, config.host);
  // Listed among the ready replicas (in /readyz, through the state store) until shutdown starts.
  host.state.join();
  const port = (server.address() as AddressInfo).port;
  const url = `http://${localName(config.host)}:${port}${config.path}`;
  // The public URL comes from configuration, never from a request's Host or X-Forwarded-Proto.
  state.resource = config.publicUrl ?? (config.loopback ? url : undefined);
  if (config.auth !== undefined && state.resource === undefined) {
    host.logger.info(
      "no http.publicUrl: the protected-resource metadata is not served and 401 answers name no resource_metadata",
    );
  }
  host.logger.info(
    {
      url,
      bound: config.host,
      auth: authModes(config),
      tools: host.registry.tools.size,
      manifest: host.manifest.file,
    },
    "listening",
  );

  let closing: Promise<{ drained: boolean }> | undefined;
  return {
    url,
    port,
    auth: authModes(config),
    get inFlight() {
      return state.inFlight;
    },
    close(closeOptions = {}) {
      closing ??= shutdown(server, close, state, closeOptions.graceMs ?? config.shutdownGraceMs, host);
      return closing;
    },
  };
}

/** What {@link createHostHttpHandler} needs besides the host and its configuration. */
export interface HostHttpHandlerOptions {
  metrics: HttpMetrics;
  /** Read per request: whether shutdown has started, and the public URL once known. */
  state: Readonly<ServeState>;
}

/**
 * A host's HTTP edge as a web handler, `(request) => Promise<Response>`, with no socket: the guards of
 * `createHttpEdge` in front of the MCP SDK's `createMcpHandler` over this host (and, with `http.sessions`, the
 * 2025-era sessions of {@link createLegacySessions}), and the server's own routes beside it. `serveHostHttp` serves
 * it over node:http; tests call it with `new Request(…)`. Registers every static token with `host.redactor`.
 * `close` ends every session and the SDK's handler.
 *
 * @example
 * const config = await resolveHttpConfig(host.manifest);
 * const { handle } = createHostHttpHandler(host, config, { metrics: createMetrics(), state: { draining: false, resource: undefined } });
 * const response = await handle(new Request("http://localhost/mcp", { method: "POST", headers, body }));
 */
export function createHostHttpHandler(
  host: Host,
  config: ResolvedHttpConfig,
  options: HostHttpHandlerOptions,
): { handle: HttpHandler; close(): Promise<void> } {
  const { edge, close } = createHostHttpEdge(host, config, options);
  return { handle: edge.handle, close };
}

// --- internal ---

/** {@link createHostHttpHandler}'s edge, and the fast path the node:http server puts behind its guards. */
function createHostHttpEdge(
  host: Host,
  config: ResolvedHttpConfig,
  options: HostHttpHandlerOptions,
): { edge: HttpEdge; fast: FastHttp; close(): Promise<void> } {
  const { metrics, state } = options;
  // A token a tool echoes back, or a log line quotes, is redacted like any credential.
  host.redactor.add(config.auth?.tokens.map((token) => token.secret) ?? []);
  const serverOptions: ServerFactoryOptions = {
    callerOf: (ctx) => callerOf(ctx?.authInfo),
    observer: {
      started: () => metrics.callStarted(),
      finished: (tool, skill, outcome, seconds, stage) => {
        metrics.callFinished(tool, outcome, seconds);
        // Only an UNAVAILABLE from loading is a skill that failed to load (a missing vault or a worker out of
        // memory is UNAVAILABLE too, from the tool itself).
        if (stage === "ensure-loaded" && skill !== undefined) metrics.skillLoadFailed(skill);
      },
    },
  };
  // The stateless handler serves one request per server: nothing to announce to.
  const factory = createServerFactory(host, { ...serverOptions, announceListChanged: false });
  // A call the fast path ran and handed over is answered by the server made for its request, not run again.
  const handedOver = new WeakMap<Request, NonNullable<EdgeContext["handedOver"]>>();
  const mcp = createMcpHandler(
    (ctx) => {
      const server = factory(ctx);
      const call = ctx?.requestInfo === undefined ? undefined : handedOver.get(ctx.requestInfo);
      if (call !== undefined) adoptOutcome(server, call.id, call.name, call.outcome, call.logged);
      return server;
    },
    {
      maxRequestBodySize: config.maxBodyBytes,
      onerror: (error) => host.logger.debug({ err: error }, "mcp request rejected"),
    },
  );
  // 2025-era sessions, where the manifest asks for them: served beside the stateless handler, closed with it.
  // A session keeps its server and its event stream: a change of the upstream servers' tools is announced there.
  const sessions = config.sessions
    ? createLegacySessions({
        factory: createServerFactory(host, { ...serverOptions, announceListChanged: true }),
        logger: host.logger,
      })
    : undefined;
  // SEP-2243: the arguments each tool mirrors into Mcp-Param-* headers, found once per listing (an upstream server's
  // tools may be listed anew at run time).
  const paramHeaders = new WeakMap<object, ReturnType<typeof paramHeadersOf>>();
  const paramHeadersFor = (tool: string) => {
    const listing = host.registry.tools.get(tool)?.listing;
    if (listing === undefined) return undefined;
    let found = paramHeaders.get(listing);
    if (found === undefined) {
      found = paramHeadersOf(listing.inputSchema);
      paramHeaders.set(listing, found);
    }
    return found;
  };
  const { tools, resources, templates, prompts } = host.registry;
  const scopes = [
    ...new Set(
      [...tools.values(), ...resources.values(), ...templates.entries, ...prompts.values()].flatMap((e) => e.scopes),
    ),
  ];
  const edge = createHttpEdge({
    config,
    authenticator: createAuthenticator(config.auth),
    // Counted in the host's state store: shared by every replica when it is Redis.
    limiter: host.state.limiter(config.rateLimit),
    logger: host.logger,
    state,
    metrics,
    readiness: () => ({
      skills: host.registry.instances.length,
      tools: host.registry.tools.size,
      state: host.state.readiness(),
    }),
    metadata: { name: host.manifest.name, scopes },
    endpoint: mcpEndpoint(mcp, sessions, handedOver),
    paramHeaders: paramHeadersFor,
  });
  return {
    edge,
    fast: createFastHttp(host, serverOptions),
    close: async () => {
      await sessions?.close();
      await mcp.close();
    },
  };
}

interface ListenerState extends ServeState {
  inFlight: number;
  onIdle: (() => void) | undefined;
}

interface ListenerDeps {
  host: Host;
  config: ResolvedHttpConfig;
  metrics: HttpMetrics;
  state: ListenerState;
}

function callerOf(authInfo: AuthInfo | undefined): Caller | undefined {
  return authInfo === undefined ? undefined : { id: authInfo.clientId, scopes: authInfo.scopes };
}

/**
 * The last step of the edge: the SDK serves the one message the guards let through, as the caller they
 * authenticated, from the body they read and parsed.
 */
function mcpEndpoint(
  mcp: McpHttpHandler,
  sessions: LegacySessions | undefined,
  handedOver: WeakMap<Request, NonNullable<EdgeContext["handedOver"]>>,
): Endpoint {
  return async (request, context) => {
    const { caller, body } = context;
    // Fail closed: serving without a caller or a checked body would mean a guard was left out.
    if (caller === undefined || body === undefined) throw new Error("the auth and body guards must run first");
    // The SDK and the tools see who is calling, never the token: it stops here.
    const authInfo: AuthInfo = { token: "", clientId: caller.id, scopes: [...caller.scopes] };
    // Handed on as parsed: what was checked is exactly what is served.
    const checked =
      request.method === "POST" ? new Request(request, { body: body.bytes as Uint8Array<ArrayBuffer> }) : request;
    if (context.handedOver !== undefined) handedOver.set(checked, context.handedOver);
    const served = sessions?.handle(checked, { id: caller.id, authInfo }, body.json?.value);
    if (served !== undefined) return served;
    // A body that is not JSON goes to the SDK unparsed, which answers it with its parse error.
    const response = await mcp.fetch(checked, {
      authInfo,
      ...(body.json === undefined ? {} : { parsedBody: body.json.value }),
    });
    return body.json === undefined ? response : oneAnswerAsJson(request, body.json.value, response);
  };
}

/**
 * `curl … | jq`: the SDK answers every 2025-era request as an event stream, even one that can only ever have one
 * message back (its 2026-era answers are already JSON unless something is sent before the result). A 2025-era
 * JSON-RPC request without a progress token, from a client that accepts JSON, gets that one message as an
 * `application/json` body instead. A call with a progress token keeps its stream, so the progress arrives while
 * the call runs; should a stream ever hold more than the answer, it is passed on as it came.
 */
async function oneAnswerAsJson(request: Request, message: unknown, response: Response): Promise<Response> {
  if (!mediaTypesOf(response.headers.get("content-type")).includes("text/event-stream")) return response;
  if (!acceptsJson(request) || !isRequestWithoutProgress(message)) return response;
  if (!(await isLegacyRequest(request, message))) return response;
  const text = await response.text();
  const messages = eventData(text);
  const headers = new Headers(response.headers);
  if (messages.length !== 1) return new Response(text, { status: response.status, headers });
  for (const name of ["cache-control", "connection", "x-accel-buffering"]) headers.delete(name);
  headers.set("content-type", "application/json");
  return new Response(messages[0], { status: response.status, headers });
}

/** A single JSON-RPC request (not a notification, not a batch) that asks for no progress. */
function isRequestWithoutProgress(message: unknown): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: { _meta?: unknown } };
  if ((typeof id !== "string" && typeof id !== "number") || typeof method !== "string") return false;
  const meta = typeof params === "object" && params !== null ? params._meta : undefined;
  return typeof meta !== "object" || meta === null || !("progressToken" in meta);
}

/** The data of each event in an event stream that carries any (comments and empty events skipped). */
function eventData(stream: string): string[] {
  return stream
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
        .join("\n"),
    )
    .filter((data) => data !== "");
}

/** How a local client names the bound address: a wildcard bind is reached through loopback. */
function localName(bound: string): string {
  const bare = withoutBrackets(bound);
  if (bare === "0.0.0.0") return "127.0.0.1";
  if (bare === "::") return "[::1]";
  return bare.includes(":") ? `[${bare}]` : bare;
}

function authModes(config: ResolvedHttpConfig): HttpServing["auth"] {
  if (config.auth === undefined) return "none";
  const modes: ("token" | "jwt")[] = [];
  if (config.auth.tokens.length > 0) modes.push("token");
  if (config.auth.jwt !== undefined) modes.push("jwt");
  return modes;
}

/**
 * The node:http side of the web handler: what only a socket knows (the peer's address, a request still being
 * served when shutdown starts, how long the answer took to send) stays here; everything else is `handle`'s.
 */
function createListener(
  edge: HttpEdge,
  fast: FastHttp,
  deps: ListenerDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { host, config, metrics, state } = deps;
  return (req, res) => {
    res.once("finish", () => metrics.response(res.statusCode));
    if (state.draining) res.setHeader("connection", "close");
    const context: EdgeContext = { remoteAddress: req.socket.remoteAddress };
    const path = pathOf(req.url);
    if (path === config.path) follow(req, res, context, deps);
    const served =
      path === config.path && req.method === "POST"
        ? respondPost(req, res, edge, fast, context)
        : respond(req, res, edge.handle, context, path, config.path);
    served.catch((error: unknown) => {
      host.logger.error({ err: error }, "http request failed");
      if (res.headersSent) res.destroy();
      else sendWebResponse(res, rpcError(500, "internal server error")).catch(() => res.destroy());
    });
  };
}

async function respond(
  req: IncomingMessage,
  res: ServerResponse,
  handle: HttpHandler,
  context: EdgeContext,
  path: string,
  mcpPath: string,
): Promise<void> {
  const request = toWebRequest(req, res);
  const response =
    request === undefined ? notFound(req.method ?? "GET", path, mcpPath) : await handle(request, context);
  if (request?.signal.aborted) {
    // The client left: there is no one to answer.
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  await sendWebResponse(res, response);
}

/**
 * A POST to the MCP endpoint: the edge's guards read the Node request itself (no web Request yet), then the fast
 * path answers a plain stateless tools/call or tools/list with one write; anything else becomes a web Request, with
 * the body the guards read, for the SDK's handler, exactly as `handle` would serve it.
 */
async function respondPost(
  req: IncomingMessage,
  res: ServerResponse,
  edge: HttpEdge,
  fast: FastHttp,
  context: EdgeContext,
): Promise<void> {
  const signal = disconnectSignal(res);
  const request = nodeEdgeRequest(req);
  const answer = await edge.answer<FastHttpAnswer>(
    request,
    context,
    () => signal.aborted,
    async (checked) => {
      const answered = await fast.answer(request, checked, signal);
      if (answered !== undefined) {
        checked.fastPath = true;
        return answered;
      }
      const web = toWebRequest(req, res, checked.body?.bytes, signal);
      return web === undefined ? notFound("POST", pathOf(req.url), pathOf(req.url)) : edge.endpoint(web, checked);
    },
  );
  if (signal.aborted) {
    // The client left: there is no one to answer.
    if (answer instanceof Response) await answer.body?.cancel().catch(() => undefined);
    return;
  }
  if (answer instanceof Response) {
    await sendWebResponse(res, answer);
    return;
  }
  const headers =
    context.origin === undefined ? answer.headers : { ...corsHeadersOf(context.origin), ...answer.headers };
  if (answer.stream === true) res.writeHead(answer.status, headers).end(answer.body);
  else
    res
      .writeHead(answer.status, { ...headers, "content-length": String(Buffer.byteLength(answer.body)) })
      .end(answer.body);
}

/**
 * Counts a request to the MCP endpoint while it is served, and logs one line when it is done. A session's event
 * stream (GET, with `http.sessions`) is not counted: it stays open until the client or the shutdown ends it, and a
 * drain waits only for requests being answered.
 */
function follow(req: IncomingMessage, res: ServerResponse, context: EdgeContext, deps: ListenerDeps): void {
  const { host, config, state } = deps;
  const startedAt = performance.now();
  const counted = req.method !== "GET";
  if (counted) state.inFlight += 1;
  res.once("close", () => {
    if (counted) {
      state.inFlight -= 1;
      if (state.inFlight === 0) state.onIdle?.();
    }
    host.logger.info(
      {
        method: req.method,
        path: config.path,
        status: res.statusCode,
        caller: context.caller?.id,
        remote: req.socket.remoteAddress,
        ms: Math.round((performance.now() - startedAt) * 10) / 10,
        ...(res.writableFinished ? {} : { disconnected: true }),
        ...(context.fastPath === true ? { fastPath: true } : {}),
      },
      "http request",
    );
  });
}

function listen(server: NodeServer, port: number, hostname: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const why =
        error.code === "EADDRINUSE"
          ? `port ${port} on ${hostname} is already in use; stop the other server or pass --port <n> (0 picks a free one)`
          : error.code === "EADDRNOTAVAIL"
            ? `${hostname} is not an address of this machine; pass --host with one of its addresses`
            : error.message;
      reject(new HostError("HTTP_LISTEN_FAILED", `[skillport] cannot listen on ${hostname}:${port}: ${why}`));
    };
    server.once("error", onError);
    server.listen(port, hostname, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

async function shutdown(
  server: NodeServer,
  closeMcp: () => Promise<void>,
  state: ListenerState,
  graceMs: number,
  host: Host,
): Promise<{ drained: boolean }> {
  state.draining = true;
  host.logger.info({ inFlight: state.inFlight, graceMs }, "shutting down: no new connections");
  await host.state.leave();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = new Promise<boolean>((resolve) => {
    if (state.inFlight === 0) return resolve(true);
    const timer = setTimeout(() => resolve(false), graceMs);
    state.onIdle = () => {
      clearTimeout(timer);
      resolve(true);
    };
  });
  const drained = await idle;
  if (!drained) host.logger.warn({ inFlight: state.inFlight }, "grace period over: closing the remaining requests");
  // Whatever is left is closed now: a client disconnect aborts each remaining call's signal.
  server.closeAllConnections();
  await closeMcp();
  await closed;
  host.logger.info({ drained }, "stopped");
  return { drained };
}
