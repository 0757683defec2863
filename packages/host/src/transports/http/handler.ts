import type { Logger } from "../../logging/logger.js";
import { CallStop } from "../../pipeline/call-stop.js";
import type { Authenticator } from "./auth.js";
import type { ResolvedHttpConfig } from "./config.js";
import type { ConnectionsRoute } from "./connections/connections-route.js";
import type { EdgeContext, EdgeRequest, Endpoint, Guard, SerializedAnswer } from "./guard.js";
import { checkAll } from "./guard.js";
import { authGuard } from "./guards/auth.js";
import { batchGuard } from "./guards/batch.js";
import { bodyGuard } from "./guards/body.js";
import { drainingGuard } from "./guards/draining.js";
import { hostGuard } from "./guards/host.js";
import { methodGuard } from "./guards/method.js";
import { corsHeadersOf, originGuard, withCors } from "./guards/origin.js";
import type { ParamHeader } from "./guards/param-headers.js";
import { paramHeaderGuard } from "./guards/param-headers.js";
import { preflightGuard } from "./guards/preflight.js";
import { rateLimitGuard } from "./guards/rate-limit.js";
import type { RateLimiter } from "./rate-limit.js";
import { responseOf, rpcError } from "./responses.js";
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
  /** What answers a request to the MCP endpoint once every guard let it through: the tools core, then the MCP SDK. */
  endpoint: Endpoint;
  /** The arguments each tool mirrors into `Mcp-Param-*` headers (SEP-2243), by full tool name. @default none */
  paramHeaders?: (tool: string) => readonly ParamHeader[] | undefined;
  /** The connections page, on a host with per-caller credentials. @default none */
  connections?: ConnectionsRoute;
}

/** A web handler: one Request in, one Response out. `context` carries what the socket knows (the peer's address). */
export type HttpHandler = (request: Request, context?: EdgeContext) => Promise<Response>;

/** The HTTP edge: a web handler, and its MCP endpoint for a server that reads Node requests itself. */
export interface HttpEdge {
  /** The edge as a web handler (see {@link createHttpEdge}). */
  handle: HttpHandler;
  /**
   * Answers a request to the MCP endpoint as `handle` does, for a request read any way (a Node request through
   * `nodeEdgeRequest`, whose context says how to make its web Request): every guard, top to bottom, then the
   * endpoint, which may answer with a {@link SerializedAnswer}; a failure answers 500 (499 when the context's signal
   * says the client left). Every answer carries the CORS headers of an allowed origin.
   */
  serve(request: EdgeRequest, context: EdgeContext): Promise<Response | SerializedAnswer>;
}

/**
 * The HTTP edge. A request to the MCP endpoint passes the guards below, top to bottom, and the first that answers
 * stops it; the endpoint answers what all of them let through. Once the origin guard has allowed a browser page,
 * every answer carries its CORS headers. Any other path goes to the server's own routes (/healthz, /readyz,
 * /metrics, the protected-resource metadata), which no guard checks, and the connections page (which checks the
 * Host itself). `handle` takes web Requests; `serve` runs the
 * same guards and endpoint on a Node request read through `nodeEdgeRequest` (`mcp/serve-http.ts`).
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
    connections: options.connections,
    metadata:
      config.auth === undefined
        ? undefined
        : () =>
            state.resource === undefined
              ? undefined
              : { resource: state.resource, issuer: config.auth?.jwt?.issuer, ...options.metadata },
  });

  const serve: HttpEdge["serve"] = async (request, context) => {
    let answer: Response | SerializedAnswer;
    try {
      answer = (await check(request, context)) ?? (await options.endpoint(request, context));
    } catch (error) {
      // The client left: there is no one to answer, and nothing went wrong here.
      if (context.left === true) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
      logger.error({ err: error }, "mcp request failed");
      answer = rpcError(500, "internal server error");
    }
    if (context.origin === undefined) return answer;
    if (answer instanceof Response) return withCors(answer, context.origin);
    return { ...answer, headers: { ...corsHeadersOf(context.origin), ...answer.headers } };
  };
  const handle: HttpHandler = async (request, context = { remoteAddress: undefined }) => {
    const path = new URL(request.url).pathname;
    if (path !== config.path) return routes(request, path);
    context.stop ??= stopOf(request.signal, context);
    context.webRequest ??= () => request;
    const answer = await serve(request, context);
    return answer instanceof Response ? answer : responseOf(answer);
  };
  return { handle, serve };
}

// --- internal ---

/** The stop of a web Request's call: aborted, with the signal's reason, when its client goes away. */
function stopOf(signal: AbortSignal, context: EdgeContext): CallStop {
  const stop = new CallStop();
  const leave = () => {
    context.left = true;
    stop.abort(signal.reason);
  };
  if (signal.aborted) leave();
  else signal.addEventListener("abort", leave, { once: true });
  return stop;
}

/** The status of a request its client closed before the answer (nginx's 499): never sent, since no one listens. */
const CLIENT_CLOSED_REQUEST = 499;
