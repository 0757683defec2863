import { CONNECT_PATHS } from "../../credentials/connect-paths.js";
import type { Logger } from "../../logging/logger.js";
import type { ConnectionsRoute } from "./connections/connections-route.js";
import type { HttpMetrics } from "./metrics.js";
import type { ProtectedResourceOptions } from "./protected-resource.js";
import { isMetadataPath, protectedResourceMetadata } from "./protected-resource.js";
import { json } from "./responses.js";

/** What the server's own routes read. */
export interface RoutesOptions {
  /** The MCP endpoint's path, which 404 answers point to. */
  mcpPath: string;
  metrics: HttpMetrics;
  logger: Logger;
  /** Whether shutdown has started: /readyz answers 503 from then on. */
  draining: () => boolean;
  /** What /readyz reports beside its status, e.g. `{ skills: 2, tools: 9 }`. */
  readiness: () => Record<string, unknown>;
  /**
   * The RFC 9728 metadata, when served: only with authentication and a known public URL (`resource`), read per
   * request since the URL is known once the server is bound.
   */
  metadata: (() => ProtectedResourceOptions | undefined) | undefined;
  /** The connections page (CONNECT_PATHS), served when the host has per-caller credentials. */
  connections?: ConnectionsRoute | undefined;
}

/** A route of the server's own: it answers every GET (and HEAD) of its path. */
type Route = (request: Request) => Response | Promise<Response>;

/**
 * The server's own routes, beside the MCP endpoint, each GET (and HEAD) only: the one list both the router and the
 * configuration read, so the MCP endpoint can never take a path a route answers.
 */
const ROUTES = {
  "/healthz": () => () => json(200, { status: "ok" }),
  // Ready once the tool table is built, which happens before the server binds; skills themselves may load on their
  // first call (with a current lock), and one that cannot load answers UNAVAILABLE for its own tools only.
  "/readyz":
    ({ draining, readiness }) =>
    () =>
      draining() ? json(503, { status: "draining" }) : json(200, { status: "ready", ...readiness() }),
  "/metrics":
    ({ metrics, logger }) =>
    async () => {
      try {
        return new Response(await metrics.render(), { status: 200, headers: { "content-type": metrics.contentType } });
      } catch (error) {
        logger.error({ err: error }, "metrics failed");
        return json(500, { error: "metrics_failed" });
      }
    },
} as const satisfies Record<`/${string}`, (options: RoutesOptions) => Route>;

/** The paths of the server's own routes: the MCP endpoint may not take one. */
export const RESERVED_PATHS: readonly string[] = Object.keys(ROUTES);

/**
 * Where the connections page lives (CONNECT_PATHS, on a host with per-caller credentials): the MCP endpoint may not
 * be there or under it.
 */
export const CONNECTIONS_PREFIX = CONNECT_PATHS.page;

/** Where well-known documents live (RFC 8615): the protected-resource metadata, and nothing of the MCP endpoint. */
export const WELL_KNOWN_PREFIX = "/.well-known/";

/**
 * Answers a request for any path but the MCP endpoint's: the routes in {@link RESERVED_PATHS} (405 with
 * `Allow: GET, HEAD` for other methods), the connections page when served (its own methods), the
 * protected-resource metadata when served, and 404 for anything else.
 *
 * @example
 * const route = createRoutes({ mcpPath: "/mcp", metrics, logger, draining: () => false, readiness, metadata });
 * await route(new Request("http://localhost/healthz"), "/healthz"); // 200 {"status":"ok"}
 */
export function createRoutes(options: RoutesOptions): (request: Request, path: string) => Promise<Response> {
  const routes = new Map<string, Route>(Object.entries(ROUTES).map(([path, make]) => [path, make(options)]));
  return async (request, path) => {
    const page = await options.connections?.(request, path);
    if (page !== undefined) return page;
    const route = routes.get(path);
    if (!isRead(request.method)) {
      return route === undefined
        ? notFound(request.method, path, options.mcpPath)
        : json(405, { error: "method_not_allowed" }, { allow: "GET, HEAD" });
    }
    if (route !== undefined) return route(request);
    const metadata = options.metadata?.();
    if (metadata !== undefined && isMetadataPath(path, options.mcpPath, metadata.resource)) {
      // The same document whoever asks and however: it holds nothing from the request, so it may be cached.
      return json(200, protectedResourceMetadata(metadata), {
        "access-control-allow-origin": "*",
        "cache-control": "max-age=3600",
      });
    }
    return notFound(request.method, path, options.mcpPath);
  };
}

/** The 404 of a path nothing answers; a read is told where the MCP endpoint is. */
export function notFound(method: string, path: string, mcpPath: string): Response {
  if (!isRead(method)) return json(404, { error: "not_found" });
  return json(404, { error: "not_found", message: `nothing at ${path}; the MCP endpoint is ${mcpPath}` });
}

// --- internal ---

function isRead(method: string): boolean {
  return method === "GET" || method === "HEAD";
}
