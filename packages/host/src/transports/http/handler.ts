import type { Logger } from "../../logging/logger.js";
import type { Authenticator } from "./auth.js";
import type { ResolvedHttpConfig } from "./config.js";
import type { EdgeContext, EdgeRequest, Endpoint, Guard } from "./guard.js";
import { checkAll } from "./guard.js";
import { authGuard } from "./guards/auth.js";
import { batchGuard } from "./guards/batch.js";
import { bodyGuard } from "./guards/body.js";
import { drainingGuard } from "./guards/draining.js";
import { hostGuard } from "./guards/host.js";
import { methodGuard } from "./guards/method.js";
import { originGuard, withCors } from "./guards/origin.js";
import type { ParamHeader } from "./guards/param-headers.js";
import { paramHeaderGuard } from "./guards/param-headers.js";
import { preflightGuard } from "./guards/preflight.js";
import { rateLimitGuard } from "./guards/rate-limit.js";
import type { RateLimiter } from "./rate-limit.js";
import { rpcError } from "./responses.js";
import type { RoutesOptions } from "./routes.js";
import { createRoutes } from "./routes.js";

/** A server's state as its handler reads it, per request. */
export interface ServeState {
  /** Shutdown has started: the endpoint answers 503 and /readyz turns 503. */
  draining: boolean;
  /** The MCP endpoint's public URL (RFC 9728 `resource`), known once the server is bound. */
  resource: string | undefined;
}

/** Options for {@link createHttpEdge}. */
export interface HttpHandlerOptions extends Pick<RoutesOptions, "metrics" | "readiness"> {
  config: ResolvedHttpConfig;
  authenticator: Authenticator;
  limiter: RateLimiter;
  logger: Logger;
  state: Readonly<ServeState>;
  /** The server's name and every scope a tool requires, for the protected-resource metadata. */
  metadata: { name: string; scopes: readonly string[] };
  /** What answers a request to the MCP endpoint once every guard let it through: the MCP SDK. */
  endpoint: Endpoint;
  /** The arguments each tool mirrors into `Mcp-Param-*` headers (SEP-2243), by full tool name. @default none */
  paramHeaders?: (tool: string) => readonly ParamHeader[] | undefined;
}

/** A web handler: one Request in, one Response out. `context` carries what the socket knows (the peer's address). */
export type HttpHandler = (request: Request, context?: EdgeContext) => Promise<Response>;

/** The HTTP edge: a web handler, and the steps of its MCP endpoint for a server that reads Node requests. */
export interface HttpEdge {
  /** The edge as a web handler (see {@link createHttpEdge}). */
  handle: HttpHandler;
  /**
   * Answers a request to the MCP endpoint as `handle` does: every guard, top to bottom, then `endpoint` (which may
   * answer with something other than a Response, e.g. a fast path's JSON); a failure answers 500 (499 when
   * `aborted()` says the client left). A Response carries the CORS headers of an allowed origin.
   */
  answer<T>(
    request: EdgeRequest,
    context: EdgeContext,
    aborted: () => boolean,
    endpoint: (context: EdgeContext) => Promise<Response | T>,
  ): Promise<Response | T>;
  /** The endpoint behind the guards, for a request they all passed (its context filled in by them). */
  endpoint: Endpoint;
}

/**
 * The HTTP edge. A request to the MCP endpoint passes the guards below, top to bottom, and the first that answers
 * stops it; the endpoint answers what all of them let through. Once the origin guard has allowed a browser page,
 * every answer carries its CORS headers. Any other path goes to the server's own routes (/healthz, /readyz,
 * /metrics, the protected-resource metadata), which no guard checks. `handle` takes web Requests; `answer` runs
 * the same guards on a Node request read through `nodeEdgeRequest` (the HTTP fast path of `mcp/serve-http.ts`).
 *
 * @example
 * const { handle } = createHttpEdge({ config, authenticator, limiter, logger, state, metrics, readiness, metadata, endpoint });
 * const response = await handle(new Request("http://localhost/healthz"));
 */
export function createHttpEdge(options: HttpHandlerOptions): HttpEdge {
  const { config, authenticator, limiter, logger, state } = options;
  const guards: Guard[] = [
    hostGuard(config.allowedHosts),
    originGuard(config.allowedOrigins),
    methodGuard(config.path, { sessions: config.sessions }),
    preflightGuard({ sessions: config.sessions }),
    drainingGuard(() => state.draining),
    authGuard({ authenticator, limiter, resource: () => state.resource, logger }),
    rateLimitGuard(limiter),
    bodyGuard(config.maxBodyBytes),
    batchGuard(),
    paramHeaderGuard(options.paramHeaders ?? (() => undefined)),
  ];
  const check = checkAll(guards);
  const routes = createRoutes({
    mcpPath: config.path,
    metrics: options.metrics,
    logger,
    draining: () => state.draining,
    readiness: options.readiness,
    metadata:
      config.auth === undefined
        ? undefined
        : () =>
            state.resource === undefined
              ? undefined
              : { resource: state.resource, issuer: config.auth?.jwt?.issuer, ...options.metadata },
  });

  const answer: HttpEdge["answer"] = async (request, context, aborted, endpoint) => {
    let response: Awaited<ReturnType<typeof endpoint>>;
    try {
      response = (await check(request, context)) ?? (await endpoint(context));
    } catch (error) {
      // The client left: there is no one to answer, and nothing went wrong here.
      if (aborted()) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
      logger.error({ err: error }, "mcp request failed");
      response = rpcError(500, "internal server error");
    }
    return context.origin === undefined || !(response instanceof Response)
      ? response
      : withCors(response, context.origin);
  };
  const handle: HttpHandler = async (request, context = { remoteAddress: undefined }) => {
    const path = new URL(request.url).pathname;
    if (path !== config.path) return routes(request, path);
    return answer(
      request,
      context,
      () => request.signal.aborted,
      (checked) => options.endpoint(request, checked),
    );
  };
  return { handle, answer, endpoint: options.endpoint };
}

// --- internal ---

/** The status of a request its client closed before the answer (nginx's 499): never sent, since no one listens. */
const CLIENT_CLOSED_REQUEST = 499;
