import type { IncomingMessage, Server as NodeServer, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthInfo, McpHttpHandler } from "@modelcontextprotocol/server";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { SkillportError } from "../errors.js";
import type { Host } from "../host.js";
import type { Caller } from "../pipeline/check-scopes.js";
import type { Authenticator } from "../transports/http/auth.js";
import { createAuthenticator } from "../transports/http/auth.js";
import type { ResolvedHttpConfig, ResolveHttpConfigOptions } from "../transports/http/config.js";
import { resolveHttpConfig } from "../transports/http/config.js";
import type { HttpMetrics } from "../transports/http/metrics.js";
import { createMetrics } from "../transports/http/metrics.js";
import {
  disconnectSignal,
  readBody,
  sendJson,
  sendWebResponse,
  TOO_LARGE,
  toWebRequest,
} from "../transports/http/node-adapter.js";
import {
  bearerChallenge,
  PROTECTED_RESOURCE_PATH,
  protectedResourceMetadata,
  protectedResourcePath,
  protectedResourceUrl,
} from "../transports/http/protected-resource.js";
import type { RateLimiter } from "../transports/http/rate-limit.js";
import { createRateLimiter } from "../transports/http/rate-limit.js";
import { checkHost, checkMethod, checkOrigin, MCP_METHODS } from "../transports/http/request-guards.js";
import { createServerFactory } from "./server.js";

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
 * behind any load balancer need no sticky sessions. In front of the SDK: a strict Host check (400/403), an exact
 * Origin allowlist (403; CORS for listed origins), POST only (405 with `Allow`), bearer authentication with static
 * tokens or JWTs (401 pointing at RFC 9728 metadata), a per-caller rate limit (429), a body limit (413), one
 * JSON-RPC message per request (a batch answers 400, so the rate limit counts calls) and socket timeouts. Beside it:
 * GET /healthz, /readyz and /metrics. Every static token is registered with `host.redactor`.
 *
 * Throws a SkillportError HTTP_CONFIG_INVALID before binding when the configuration is unsafe or incomplete,
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
  // A token a tool echoes back, or a log line quotes, is redacted like any credential.
  host.redactor.add(config.auth?.tokens.map((token) => token.secret) ?? []);
  const metrics = options.metrics ?? createMetrics();
  const authenticator = createAuthenticator(config.auth);
  const limiter = createRateLimiter(config.rateLimit);
  const mcp = createMcpHandler(
    createServerFactory(host, {
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
    }),
    {
      maxRequestBodySize: config.maxBodyBytes,
      onerror: (error) => host.logger.debug({ err: error }, "mcp request rejected"),
    },
  );

  const state: ServeState = { draining: false, inFlight: 0, onIdle: undefined, resource: undefined };
  const listener = createListener({ host, config, metrics, authenticator, limiter, mcp, state });
  // Node checks header and request timeouts on an interval (30 s unless told): check often enough to honour them.
  const connectionsCheckingInterval = Math.min(5_000, Math.max(100, Math.floor(config.timeouts.headersMs / 2)));
  const server = createServer({ connectionsCheckingInterval }, listener);
  server.headersTimeout = config.timeouts.headersMs;
  server.requestTimeout = config.timeouts.requestMs;
  server.keepAliveTimeout = config.timeouts.idleMs;
  server.timeout = 0; // a tool may run long on an otherwise quiet connection; requestMs bounds slow uploads

  await listen(server, config.port, config.host);
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
      closing ??= shutdown(server, mcp, state, closeOptions.graceMs ?? config.shutdownGraceMs, host);
      return closing;
    },
  };
}

// --- internal ---

interface ServeState {
  draining: boolean;
  inFlight: number;
  onIdle: (() => void) | undefined;
  /** The MCP endpoint's public URL (RFC 9728 `resource`), known once the server is bound. */
  resource: string | undefined;
}

interface ListenerDeps {
  host: Host;
  config: ResolvedHttpConfig;
  metrics: HttpMetrics;
  authenticator: Authenticator;
  limiter: RateLimiter;
  mcp: McpHttpHandler;
  state: ServeState;
}

const JSON_RPC_SERVER_ERROR = -32000;
const JSON_RPC_INVALID_REQUEST = -32600;
const BATCH_REFUSED =
  "JSON-RPC batches are not supported: send one message per request (MCP removed batching in protocol 2025-06-18)";

function callerOf(authInfo: AuthInfo | undefined): Caller | undefined {
  return authInfo === undefined ? undefined : { id: authInfo.clientId, scopes: authInfo.scopes };
}

/** How a local client names the bound address: a wildcard bind is reached through loopback. */
function localName(bound: string): string {
  const bare = bound.replace(/^\[(.*)\]$/, "$1");
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

function createListener(deps: ListenerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { host, config, metrics, state } = deps;
  const scopes = [...new Set([...host.registry.tools.values()].flatMap((entry) => entry.scopes))];

  return (req, res) => {
    const rawUrl = req.url ?? "/";
    const query = rawUrl.indexOf("?");
    const pathname = query === -1 ? rawUrl : rawUrl.slice(0, query);
    res.once("finish", () => metrics.response(res.statusCode));
    if (state.draining) res.setHeader("connection", "close");

    if (pathname === config.path) {
      state.inFlight += 1;
      res.once("close", () => {
        state.inFlight -= 1;
        if (state.inFlight === 0) state.onIdle?.();
      });
      serveMcp(req, res, rawUrl, deps).catch((error: unknown) => {
        host.logger.error({ err: error }, "mcp request failed");
        if (!res.headersSent) rejectJsonRpc(res, 500, "internal server error");
        else res.destroy();
      });
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      if (pathname === "/healthz" || pathname === "/readyz" || pathname === "/metrics") {
        sendJson(res, 405, { error: "method_not_allowed" }, { allow: "GET, HEAD" });
      } else sendJson(res, 404, { error: "not_found" });
      return;
    }
    switch (pathname) {
      case "/healthz":
        sendJson(res, 200, { status: "ok" });
        return;
      case "/readyz":
        // Skills load before the server binds, so a listening server is ready until it starts draining.
        if (state.draining) sendJson(res, 503, { status: "draining" });
        else {
          sendJson(res, 200, {
            status: "ready",
            skills: host.registry.instances.length,
            tools: host.registry.tools.size,
          });
        }
        return;
      case "/metrics":
        metrics.render().then(
          (text) => res.writeHead(200, { "content-type": metrics.contentType }).end(text),
          (error: unknown) => {
            host.logger.error({ err: error }, "metrics failed");
            sendJson(res, 500, { error: "metrics_failed" });
          },
        );
        return;
    }
    const resource = state.resource;
    if (config.auth !== undefined && resource !== undefined && isMetadataPath(pathname, config.path, resource)) {
      // The same document whoever asks and however: it holds nothing from the request, so it may be cached.
      sendJson(
        res,
        200,
        protectedResourceMetadata({ resource, issuer: config.auth.jwt?.issuer, scopes, name: host.manifest.name }),
        { "access-control-allow-origin": "*", "cache-control": "max-age=3600" },
      );
      return;
    }
    sendJson(res, 404, { error: "not_found", message: `nothing at ${pathname}; the MCP endpoint is ${config.path}` });
  };
}

async function serveMcp(req: IncomingMessage, res: ServerResponse, rawUrl: string, deps: ListenerDeps): Promise<void> {
  const { host, config, authenticator, limiter, mcp, state } = deps;
  const startedAt = performance.now();
  let callerId: string | undefined;
  res.once("close", () => {
    host.logger.info(
      {
        method: req.method,
        path: config.path,
        status: res.statusCode,
        caller: callerId,
        remote: req.socket.remoteAddress,
        ms: Math.round((performance.now() - startedAt) * 10) / 10,
        ...(res.writableFinished ? {} : { disconnected: true }),
      },
      "http request",
    );
  });

  // DNS-rebinding protection: a page in a browser must not reach this server through a name it controls.
  const hostChecked = checkHost(req.headers.host, config.allowedHosts);
  if (!hostChecked.ok) {
    rejectJsonRpc(res, hostChecked.status, hostChecked.message);
    return;
  }
  const origin = req.headers.origin;
  const originChecked = checkOrigin(origin, config.allowedOrigins);
  if (!originChecked.ok) {
    rejectJsonRpc(res, originChecked.status, originChecked.message);
    return;
  }
  if (origin !== undefined) {
    res.setHeader("access-control-allow-origin", origin);
    res.setHeader("vary", "origin");
    res.setHeader(
      "access-control-expose-headers",
      "mcp-session-id, mcp-protocol-version, www-authenticate, retry-after",
    );
  }
  const methodChecked = checkMethod(req.method, config.path);
  if (!methodChecked.ok) {
    rejectJsonRpc(res, methodChecked.status, methodChecked.message, { allow: MCP_METHODS });
    return;
  }
  if (req.method === "OPTIONS") {
    const preflight: Record<string, string> =
      origin === undefined
        ? { allow: MCP_METHODS }
        : {
            "access-control-allow-methods": MCP_METHODS,
            "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*",
            "access-control-max-age": "600",
          };
    res.writeHead(204, preflight).end();
    return;
  }
  if (state.draining) {
    rejectJsonRpc(res, 503, "the server is shutting down; retry on another replica", { "retry-after": "1" });
    return;
  }

  const auth = await authenticator.authenticate(req.headers.authorization);
  if (!auth.ok) {
    // Failed attempts count against the address, so guessing tokens is as limited as calling.
    const decision = limiter.take(`addr:${req.socket.remoteAddress ?? "?"}`);
    if (!decision.ok) {
      rejectJsonRpc(res, 429, "too many requests", { "retry-after": String(decision.retryAfterSec) });
      return;
    }
    if (auth.error === "unavailable") {
      host.logger.warn({ reason: auth.description }, "cannot verify access tokens");
      rejectJsonRpc(res, 503, `cannot verify the access token now: ${auth.description}`, { "retry-after": "5" });
      return;
    }
    const challenge = bearerChallenge(
      state.resource === undefined ? undefined : protectedResourceUrl(state.resource),
      auth.error === "invalid" ? "invalid_token" : undefined,
      auth.error === "invalid" ? auth.description : undefined,
    );
    sendJson(
      res,
      401,
      { error: auth.error === "invalid" ? "invalid_token" : "unauthorized", error_description: auth.description },
      { "www-authenticate": challenge },
    );
    return;
  }
  const caller = auth.caller;
  callerId = caller.id;
  const decision = limiter.take(
    auth.via === "none" ? `addr:${req.socket.remoteAddress ?? "?"}` : `caller:${caller.id}`,
  );
  if (!decision.ok) {
    rejectJsonRpc(res, 429, `too many requests from "${caller.id}"; retry after ${decision.retryAfterSec} s`, {
      "retry-after": String(decision.retryAfterSec),
    });
    return;
  }

  const body = await readBody(req, config.maxBodyBytes);
  if (body === TOO_LARGE) {
    rejectJsonRpc(res, 413, `the request body is larger than ${config.maxBodyBytes} bytes (http.maxBodyBytes)`, {
      connection: "close",
    });
    return;
  }
  // Parsed here, once, and handed to the SDK as is: what is checked is exactly what is served. A body that is not
  // JSON goes to the SDK unparsed, which answers it with its parse error.
  const parsed = parseJson(body);
  if (parsed !== NOT_JSON && Array.isArray(parsed.value)) {
    // One request, one message: a batch would run many calls for one count of the rate limit.
    rejectJsonRpc(res, 400, BATCH_REFUSED, {}, JSON_RPC_INVALID_REQUEST);
    return;
  }

  const signal = disconnectSignal(res);
  // The Host was checked above, so the URL is well-formed.
  const request = toWebRequest(req, `http://${req.headers.host}${rawUrl}`, body, signal);
  // The SDK and the tools see who is calling, never the token: it stops here.
  const authInfo: AuthInfo = { token: "", clientId: caller.id, scopes: [...caller.scopes] };
  let response: Response;
  try {
    response = await mcp.fetch(request, { authInfo, ...(parsed === NOT_JSON ? {} : { parsedBody: parsed.value }) });
  } catch (error) {
    if (signal.aborted) return; // the client left; there is no one to answer
    throw error;
  }
  if (signal.aborted) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  await sendWebResponse(res, response);
}

function rejectJsonRpc(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = JSON_RPC_SERVER_ERROR,
): void {
  sendJson(res, status, { jsonrpc: "2.0", id: null, error: { code, message } }, headers);
}

const NOT_JSON = Symbol("not JSON");

/** A body as the SDK would read it (UTF-8, a leading BOM dropped), parsed; NOT_JSON when empty or invalid. */
function parseJson(body: Buffer): { value: unknown } | typeof NOT_JSON {
  if (body.length === 0) return NOT_JSON;
  try {
    return { value: JSON.parse(new TextDecoder().decode(body)) };
  } catch {
    return NOT_JSON;
  }
}

/** The metadata paths: the bare one, and the ones suffixed with the endpoint's path here and in its public URL. */
function isMetadataPath(pathname: string, mcpPath: string, resource: string): boolean {
  if (!pathname.startsWith(PROTECTED_RESOURCE_PATH)) return false;
  if (pathname === PROTECTED_RESOURCE_PATH || pathname === protectedResourcePath(mcpPath)) return true;
  return pathname === new URL(protectedResourceUrl(resource)).pathname;
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
      reject(new SkillportError("HTTP_LISTEN_FAILED", `[skillport] cannot listen on ${hostname}:${port}: ${why}`));
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
  mcp: McpHttpHandler,
  state: ServeState,
  graceMs: number,
  host: Host,
): Promise<{ drained: boolean }> {
  state.draining = true;
  host.logger.info({ inFlight: state.inFlight, graceMs }, "shutting down: no new connections");
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
  await mcp.close();
  await closed;
  host.logger.info({ drained }, "stopped");
  return { drained };
}
