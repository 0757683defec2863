import type { IncomingMessage, Server as NodeServer, ServerResponse } from "node:http";
import { HostError } from "../../errors/host-error.js";
import type { Logger } from "../../logging/logger.js";
import { CallStop } from "../../pipeline/call-stop.js";
import type { ResolvedHttpConfig } from "./config.js";
import type { EdgeContext, SerializedAnswer } from "./guard.js";
import type { HttpEdge, ServeState } from "./handler.js";
import type { HttpMetrics } from "./metrics.js";
import { nodeEdgeRequest, pathOf, sendWebResponse, toWebRequest } from "./node-adapter.js";
import { rpcError } from "./responses.js";
import { notFound } from "./routes.js";

/** What the node:http side of a server keeps: the handler's state, and the requests it is answering now. */
export interface ListenerState extends ServeState {
  inFlight: number;
  onIdle: (() => void) | undefined;
}

/** What {@link createListener} needs. */
export interface ListenerOptions {
  config: ResolvedHttpConfig;
  metrics: HttpMetrics;
  logger: Logger;
  state: ListenerState;
}

/**
 * The node:http side of the edge: what only a socket knows (the peer's address, a request still being served when
 * shutdown starts, how long the answer took to send) stays here; everything else is the edge's. A request to the
 * MCP endpoint is read as a Node request (`nodeEdgeRequest`: no web Request unless the SDK needs one) and served by
 * `edge.serve`; any other path by `edge.handle`.
 */
export function createListener(
  edge: HttpEdge,
  options: ListenerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { config, metrics, logger, state } = options;
  return (req, res) => {
    res.once("finish", () => metrics.response(res.statusCode));
    if (state.draining) res.setHeader("connection", "close");
    const context: EdgeContext = { remoteAddress: req.socket.remoteAddress };
    const path = pathOf(req.url);
    const served =
      path === config.path
        ? serveMcp(req, res, edge, context, options)
        : serveRoute(req, res, edge, context, path, config.path);
    served.catch((error: unknown) => {
      logger.error({ err: error }, "http request failed");
      if (res.headersSent) res.destroy();
      else sendWebResponse(res, rpcError(500, "internal server error")).catch(() => res.destroy());
    });
  };
}

/** Listens on `hostname:port`, or fails with a HostError naming the fix (a port in use, an address not this machine's). */
export function listen(server: NodeServer, port: number, hostname: string): Promise<void> {
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

/**
 * Stops accepting connections, answers new requests with 503, waits up to `graceMs` for the requests in flight,
 * then closes every connection (a call still running sees its signal aborted) and `closeRest()`.
 */
export async function shutdown(
  server: NodeServer,
  state: ListenerState,
  options: { graceMs: number; logger: Logger; leave(): Promise<void>; closeRest(): Promise<void> },
): Promise<{ drained: boolean }> {
  const { graceMs, logger } = options;
  state.draining = true;
  logger.info({ inFlight: state.inFlight, graceMs }, "shutting down: no new connections");
  await options.leave();
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
  if (!drained) logger.warn({ inFlight: state.inFlight }, "grace period over: closing the remaining requests");
  // Whatever is left is closed now: a client disconnect aborts each remaining call's signal.
  server.closeAllConnections();
  await options.closeRest();
  await closed;
  logger.info({ drained }, "stopped");
  return { drained };
}

// --- internal ---

async function serveRoute(
  req: IncomingMessage,
  res: ServerResponse,
  edge: HttpEdge,
  context: EdgeContext,
  path: string,
  mcpPath: string,
): Promise<void> {
  const request = toWebRequest(req, res);
  if (request === undefined) return sendWebResponse(res, notFound(req.method ?? "GET", path, mcpPath));
  const response = await edge.handle(request, context);
  if (request.signal.aborted) {
    // The client left: there is no one to answer.
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  await sendWebResponse(res, response);
}

/**
 * A request to the MCP endpoint: the edge's guards read the Node request itself (no web Request yet), then the
 * endpoint answers; a web Request, with the body the guards read, is made only when the SDK serves it.
 */
async function serveMcp(
  req: IncomingMessage,
  res: ServerResponse,
  edge: HttpEdge,
  context: EdgeContext,
  options: ListenerOptions,
): Promise<void> {
  context.stop = new CallStop();
  follow(req, res, context, options);
  // Its signal follows the client alone: the call's stop also ends with the call (its timeout, its questions).
  context.webRequest = () => toWebRequest(req, res, context.body?.bytes);
  const answer = await edge.serve(nodeEdgeRequest(req), context);
  if (context.left === true) {
    // The client left: there is no one to answer.
    if (answer instanceof Response) await answer.body?.cancel().catch(() => undefined);
    return;
  }
  if (answer instanceof Response) return sendWebResponse(res, answer);
  writeSerialized(res, answer);
}

/** A serialised answer in one write: an event stream chunked, one JSON document with its length. */
function writeSerialized(res: ServerResponse, answer: SerializedAnswer): void {
  if (answer.stream === true) res.writeHead(answer.status, answer.headers).end(answer.body);
  else {
    const length = String(Buffer.byteLength(answer.body));
    res.writeHead(answer.status, { ...answer.headers, "content-length": length }).end(answer.body);
  }
}

/**
 * Counts a request to the MCP endpoint while it is served, stops its call when the client goes away before its
 * answer is sent (a closed connection, a cancelled fetch: the tool's `ctx.signal`), and logs one line when it is
 * done. A session's event stream (GET, with `http.sessions`) is not counted: it stays open until the client or the
 * shutdown ends it, and a drain waits only for requests being answered.
 */
function follow(req: IncomingMessage, res: ServerResponse, context: EdgeContext, options: ListenerOptions): void {
  const { config, logger, state } = options;
  const startedAt = performance.now();
  const counted = req.method !== "GET";
  if (counted) state.inFlight += 1;
  res.once("close", () => {
    const finished = res.writableFinished;
    if (!finished) {
      context.left = true;
      context.stop?.abort(new Error("the client disconnected"));
    }
    if (counted) {
      state.inFlight -= 1;
      if (state.inFlight === 0) state.onIdle?.();
    }
    logger.info(
      {
        method: req.method,
        path: config.path,
        status: res.statusCode,
        caller: context.caller?.id,
        remote: req.socket.remoteAddress,
        ms: Math.round((performance.now() - startedAt) * 10) / 10,
        ...(finished ? {} : { disconnected: true }),
        ...(context.toolsCore === true ? { fastPath: true } : {}),
      },
      "http request",
    );
  });
}
