import { CONNECT_PATHS } from "../../../credentials/connect-paths.js";
import type { HostCredentials } from "../../../credentials/open-credentials.js";
import type { Logger } from "../../../logging/logger.js";
import type { Redactor } from "../../../redaction/redactor.js";
import { hostGuard } from "../guards/host.js";
import { messagePage } from "./connection-pages.js";
import type { Step, StepContext } from "./connection-steps.js";
import { disconnect, finishOAuth, openLink, saveToken, showConnections, startConnection } from "./connection-steps.js";
import { createPageSessions } from "./page-sessions.js";

/** What {@link createConnectionsRoute} needs. */
export interface ConnectionsRouteOptions {
  credentials: HostCredentials;
  redactor: Redactor;
  logger: Logger;
  /** The server's `http.allowedHosts`: the pages pass the same Host check as the MCP endpoint. */
  allowedHosts: readonly string[] | "*";
  /** @default Date.now */
  now?: () => number;
}

/** Answers a request to one of CONNECT_PATHS, or undefined for any other path. */
export type ConnectionsRoute = (request: Request, path: string) => Promise<Response | undefined>;

/**
 * The connections page and its steps (see CONNECT_PATHS and connection-steps.ts): a connect link signs the browser
 * in as the link's caller (a sealed session every replica knows, its id in an HttpOnly cookie); the page lists the
 * caller's per-caller slots with their state; a personal token is saved through a form, an OAuth slot leaves for its
 * authorization server and comes back to the callback. Each path answers its own methods (405 with `Allow`
 * otherwise) after the same Host check as the MCP endpoint. Every POST needs the session's CSRF token, and an
 * Origin, when sent, equal to the base URL's. Pages are server-rendered HTML without script, under a strict CSP.
 *
 * @example
 * const route = createConnectionsRoute({ credentials, redactor, logger, allowedHosts: ["localhost"] });
 * const answer = await route(request, "/connections"); // undefined for a path it does not serve
 */
export function createConnectionsRoute(options: ConnectionsRouteOptions): ConnectionsRoute {
  const { credentials, logger } = options;
  const now = options.now ?? Date.now;
  const checkHost = hostGuard(options.allowedHosts);
  const context: StepContext = {
    credentials,
    redactor: options.redactor,
    logger,
    now,
    sessions: createPageSessions({
      vault: credentials.vault,
      path: CONNECT_PATHS.page,
      secure: () => credentials.baseUrl?.startsWith("https:") === true,
      now,
    }),
  };
  return async (request, path) => {
    const route = STEPS.get(path);
    if (route === undefined) return undefined;
    const refused = await checkHost(request, { remoteAddress: undefined });
    if (refused !== undefined) return refused;
    if (!route.methods.includes(request.method)) {
      return new Response(null, { status: 405, headers: { allow: route.methods.join(", ") } });
    }
    try {
      return await route.step(context, request);
    } catch (error) {
      logger.error({ err: error, path }, "connections page failed");
      return messagePage(500, "Something went wrong", "The page could not be answered.", "Try again in a moment.");
    }
  };
}

// --- internal ---

/** Each path of the page: the methods it answers and its step. */
const STEPS = new Map<string, { methods: readonly string[]; step: Step }>([
  [CONNECT_PATHS.open, { methods: ["GET"], step: openLink }],
  [CONNECT_PATHS.page, { methods: ["GET", "HEAD"], step: showConnections }],
  [CONNECT_PATHS.connect, { methods: ["GET", "POST"], step: startConnection }],
  [CONNECT_PATHS.token, { methods: ["POST"], step: saveToken }],
  [CONNECT_PATHS.disconnect, { methods: ["POST"], step: disconnect }],
  [CONNECT_PATHS.callback, { methods: ["GET"], step: finishOAuth }],
]);
