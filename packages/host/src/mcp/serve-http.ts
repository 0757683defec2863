import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthInfo, McpHttpHandler } from "@modelcontextprotocol/server";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { Caller } from "../entries/check-scopes.js";
import type { Host } from "../host.js";
import { createAuthenticator } from "../transports/http/auth.js";
import type { ResolvedHttpConfig, ResolveHttpConfigOptions } from "../transports/http/config.js";
import { resolveHttpConfig, withoutBrackets } from "../transports/http/config.js";
import { createConnectionsRoute } from "../transports/http/connections/connections-route.js";
import type { Endpoint } from "../transports/http/guard.js";
import { paramHeadersOf } from "../transports/http/guards/param-headers.js";
import type { HttpEdge, HttpHandler, ServeState } from "../transports/http/handler.js";
import { createHttpEdge } from "../transports/http/handler.js";
import type { ListenerState } from "../transports/http/listener.js";
import { createListener, listen, shutdown } from "../transports/http/listener.js";
import type { HttpMetrics } from "../transports/http/metrics.js";
import { createMetrics } from "../transports/http/metrics.js";
import { json } from "../transports/http/responses.js";
import { httpToolsAnswer } from "./http-tools.js";
import type { LegacySessions } from "./legacy-sessions.js";
import { createLegacySessions } from "./legacy-sessions.js";
import { oneAnswerAsJson } from "./one-answer-as-json.js";
import type { ServerFactoryOptions } from "./server.js";
import { createServerFactory, listsChanged } from "./server.js";
import type { ToolsCore } from "./tools-core.js";
import { createToolsCore } from "./tools-core.js";

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
 * GET /healthz, /readyz and /metrics, and, on a host with per-caller credentials, the connections page (/connections;
 * the credentials' base URL is set to the public URL's origin, else the bound one). Every static token is registered with `host.redactor`. The checks are the
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
  const { edge, close } = createHostHttpEdge(host, config, { metrics, state });
  const listener = createListener(edge, { config, metrics, logger: host.logger, state });
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
  // Connect links and the OAuth callback are on the public origin, else on the bound one.
  if (host.credentials !== undefined) host.credentials.baseUrl = new URL(config.publicUrl ?? url).origin;
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
      closing ??= shutdown(server, state, {
        graceMs: closeOptions.graceMs ?? config.shutdownGraceMs,
        logger: host.logger,
        leave: () => host.state.leave(),
        closeRest: close,
      });
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

/** {@link createHostHttpHandler}'s edge and what closes it. */
function createHostHttpEdge(
  host: Host,
  config: ResolvedHttpConfig,
  options: HostHttpHandlerOptions,
): { edge: HttpEdge; close(): Promise<void> } {
  const { metrics, state } = options;
  // A token a tool echoes back, or a log line quotes, is redacted like any credential.
  host.redactor.add(config.auth?.tokens.map((token) => token.secret) ?? []);
  const core = createToolsCore(host, {
    observer: {
      started: () => metrics.callStarted(),
      finished: (tool, skill, outcome, seconds, stage) => {
        metrics.callFinished(tool, outcome, seconds);
        // Only an UNAVAILABLE from loading is a skill that failed to load (a missing vault or a worker out of
        // memory is UNAVAILABLE too, from the tool itself).
        if (stage === "ensure-loaded" && skill !== undefined) metrics.skillLoadFailed(skill);
      },
    },
  });
  const serverOptions: ServerFactoryOptions = { core, callerOf: (ctx) => callerOf(ctx?.authInfo) };
  // The stateless handler serves one request per server: nothing to announce to.
  const factory = createServerFactory(host, { ...serverOptions, announceListChanged: false });
  const mcp = createMcpHandler(factory, {
    maxRequestBodySize: config.maxBodyBytes,
    onerror: (error) => host.logger.debug({ err: error }, "mcp request rejected"),
  });
  // 2025-era sessions, where the manifest asks for them: served beside the stateless handler, closed with it.
  // A session keeps its server and its event stream: a change of the upstream servers' tools is announced there.
  const sessions = config.sessions
    ? createLegacySessions({
        factory: createServerFactory(host, { ...serverOptions, announceListChanged: true }),
        logger: host.logger,
      })
    : undefined;
  // A swapped table (Host.reload) is announced on the 2026-07-28 era's subscriptions/listen streams too.
  if (host.reloadable) {
    host.onSwap((swap) => {
      mcp.notify.toolsChanged();
      const changed = listsChanged(swap);
      if (changed.resources) mcp.notify.resourcesChanged();
      if (changed.prompts) mcp.notify.promptsChanged();
    });
  }
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
    endpoint: mcpEndpoint(core, mcp, sessions),
    paramHeaders: paramHeadersFor,
    ...(host.credentials === undefined
      ? {}
      : {
          connections: createConnectionsRoute({
            credentials: host.credentials,
            redactor: host.redactor,
            logger: host.logger,
            allowedHosts: config.allowedHosts,
          }),
        }),
  });
  return {
    edge,
    close: async () => {
      await sessions?.close();
      await mcp.close();
    },
  };
}

function callerOf(authInfo: AuthInfo | undefined): Caller | undefined {
  return authInfo === undefined ? undefined : { id: authInfo.clientId, scopes: authInfo.scopes };
}

/**
 * The last step of the edge: the tools core answers a plain tools request itself; the SDK serves anything else, the
 * one message the guards let through, as the caller they authenticated, from the body they read and parsed.
 */
function mcpEndpoint(core: ToolsCore, mcp: McpHttpHandler, sessions: LegacySessions | undefined): Endpoint {
  return async (request, context) => {
    const { caller, body } = context;
    // Fail closed: serving without a caller or a checked body would mean a guard was left out.
    if (caller === undefined || body === undefined) throw new Error("the auth and body guards must run first");
    const answered = await httpToolsAnswer(core, request, context);
    if (answered !== undefined && !("passOn" in answered)) {
      context.toolsCore = true;
      return answered;
    }
    // Handed on as parsed: what was checked is exactly what is served.
    const web = context.webRequest?.();
    if (web === undefined) return json(404, { error: "not_found" });
    const checked = web.method === "POST" ? new Request(web, { body: body.bytes as Uint8Array<ArrayBuffer> }) : web;
    // A call the core ran whose answer is a question: the SDK's server for this request asks it.
    if (answered !== undefined) core.passOn(checked, answered.id, answered.passOn);
    // The SDK and the tools see who is calling, never the token: it stops here.
    const authInfo: AuthInfo = { token: "", clientId: caller.id, scopes: [...caller.scopes] };
    const served = sessions?.handle(checked, { id: caller.id, authInfo }, body.json?.value);
    if (served !== undefined) return served;
    // A body that is not JSON goes to the SDK unparsed, which answers it with its parse error.
    const response = await mcp.fetch(checked, {
      authInfo,
      ...(body.json === undefined ? {} : { parsedBody: body.json.value }),
    });
    return body.json === undefined ? response : oneAnswerAsJson(checked, body.json.value, response);
  };
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
