import { randomUUID } from "node:crypto";
import type { AuthInfo, EventStore, JSONRPCMessage, McpRequestContext, Server } from "@modelcontextprotocol/server";
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { Logger } from "../logging/logger.js";
import { rpcError } from "../transports/http/responses.js";

/** Options for {@link createLegacySessions}. */
export interface LegacySessionsOptions {
  /** Builds the server of a new session. */
  factory: (ctx?: McpRequestContext) => Server;
  logger: Logger;
  /** @default 1000 */
  maxSessions?: number;
  /** A session nobody used for this long is closed. @default 10 minutes */
  idleMs?: number;
}

/** Who sends a request to a session, as the HTTP edge authenticated it. */
interface SessionCaller {
  /** The caller's id (`token:<name>`, `jwt:<sub>`, `anonymous`): a session answers only the caller that opened it. */
  id: string;
  authInfo: AuthInfo;
}

/** 2025-11-25 sessions over HTTP: one server and transport per client that initializes, found by Mcp-Session-Id. */
export interface LegacySessions {
  /**
   * Serves a request that opens a session (a POST `initialize`) or names one (`Mcp-Session-Id`: a POST, the GET
   * of its event stream, the DELETE that ends it); undefined for a request that does neither, which is served
   * statelessly instead. A session id nobody opened, that was closed, or that another caller opened answers 404,
   * as for an unknown session: the caller learns nothing about other callers' sessions.
   */
  handle(request: Request, caller: SessionCaller, parsedBody: unknown): Promise<Response> | undefined;
  /** How many sessions are open. */
  readonly size: number;
  /** Closes every session (their event streams end). */
  close(): Promise<void>;
}

/**
 * Keeps a session for each 2025-era client that initializes, so the server can send it requests during a call
 * (elicitation, sampling, roots) and remember its logging level. Each session belongs to the caller that opened it:
 * its id is a random UUID, and a request with another caller's session id is answered as if the session did not
 * exist. Sessions close after `idleMs` unused, on DELETE, and with the server; at most `maxSessions` are open at
 * once (one more answers 503 with Retry-After).
 *
 * @example
 * const sessions = createLegacySessions({ factory: createServerFactory(host), logger: host.logger });
 * const served = sessions.handle(request, { id: caller.id, authInfo }, body);
 */
export function createLegacySessions(options: LegacySessionsOptions): LegacySessions {
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.idleMs ?? 10 * 60 * 1000;
  const sessions = new Map<string, Session>();
  let opening = 0;

  const forget = (id: string) => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    clearTimeout(session.timer);
    void session.server.close().catch(() => undefined);
  };
  const idle = (id: string) => {
    const timer = setTimeout(() => forget(id), idleMs);
    timer.unref();
    return timer;
  };

  async function open(request: Request, caller: SessionCaller, parsedBody: unknown): Promise<Response> {
    opening += 1;
    let opened: Server | undefined;
    try {
      // The session's server serves this caller only: its calls are authorized as this caller, like any request's.
      const server = options.factory({ era: "legacy", authInfo: caller.authInfo });
      opened = server;
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // A dropped event stream resumes (GET with Last-Event-ID) from this session's own recent events only.
        eventStore: sessionEventStore(),
        retryInterval: RETRY_MS,
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { caller: caller.id, transport, server, timer: idle(sessionId) });
        },
        onsessionclosed: (sessionId) => forget(sessionId),
      });
      await server.connect(transport);
      const response = await transport.handleRequest(request, { authInfo: caller.authInfo, parsedBody });
      // An initialize the transport refused opened no session: its server is freed now, not kept.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
        void server.close().catch(() => undefined);
      }
      return response;
    } catch (error) {
      void opened?.close().catch(() => undefined);
      options.logger.warn({ err: error }, "a 2025-era session could not be opened");
      return rpcError(500, "the session could not be opened", {}, -32603);
    } finally {
      opening -= 1;
    }
  }

  return {
    handle(request, caller, parsedBody) {
      const id = request.headers.get("mcp-session-id");
      if (id !== null) {
        const session = sessions.get(id);
        if (session === undefined || session.caller !== caller.id) return Promise.resolve(sessionNotFound());
        clearTimeout(session.timer);
        session.timer = idle(id);
        return session.transport.handleRequest(request, { authInfo: caller.authInfo, parsedBody });
      }
      if (request.method !== "POST") {
        return Promise.resolve(
          rpcError(400, `${request.method} needs the Mcp-Session-Id header of a session this caller opened`),
        );
      }
      if (!isInitializeRequest(parsedBody)) return undefined;
      if (sessions.size + opening >= maxSessions) {
        return Promise.resolve(rpcError(503, "too many open sessions; try again later", { "retry-after": "5" }));
      }
      return open(request, caller, parsedBody);
    },
    get size() {
      return sessions.size;
    },
    async close() {
      for (const id of [...sessions.keys()]) forget(id);
    },
  };
}

// --- internal ---

/** How long a client waits before it reconnects a dropped event stream (the `retry` of its first event). */
const RETRY_MS = 1000;
/** A session keeps this many recent events per stream, for this many of its latest streams. */
const KEPT_EVENTS = 256;
const KEPT_STREAMS = 32;

/**
 * One session's recent events, so its client can resume a dropped stream: each stream's last events (the oldest
 * dropped first) for the session's latest streams. It belongs to one session, so an event id of another session
 * (another caller's, or a guess) finds nothing.
 */
function sessionEventStore(): EventStore {
  const streams = new Map<string, { id: string; message: JSONRPCMessage }[]>();
  let counter = 0;
  const find = (eventId: string) => {
    for (const [streamId, events] of streams) {
      const at = events.findIndex((e) => e.id === eventId);
      if (at !== -1) return { streamId, events, at };
    }
    return undefined;
  };
  return {
    async storeEvent(streamId, message) {
      let events = streams.get(streamId);
      if (events === undefined) {
        events = [];
        streams.set(streamId, events);
        if (streams.size > KEPT_STREAMS) streams.delete(streams.keys().next().value as string);
      }
      const id = `${streamId}.${++counter}`;
      events.push({ id, message });
      if (events.length > KEPT_EVENTS) events.shift();
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return find(eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const found = find(lastEventId);
      if (found === undefined) throw new Error("unknown event id");
      for (const event of found.events.slice(found.at + 1)) {
        if (Object.keys(event.message).length > 0) await send(event.id, event.message);
      }
      return found.streamId;
    },
  };
}

interface Session {
  caller: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  timer: NodeJS.Timeout;
}

function sessionNotFound(): Response {
  return rpcError(404, "Session not found; initialize a new one", {}, -32001);
}
