import type { JSONRPCMessage, RequestId, Server } from "@modelcontextprotocol/server";
import { CallStop } from "../pipeline/call-stop.js";
import { cancelledRequestOf, FIRST_MODERN_REVISION, plainToolsRequestOf } from "./plain-request.js";
import { declaresTasks } from "./tasks.js";
import type { ClientSupports, ToolConnection, ToolsCore } from "./tools-core.js";
import { answerMessageOf, supportsOf, thrownMessageOf } from "./tools-core.js";

/** Options for {@link connectTools}. */
export interface ConnectionToolsOptions {
  /** The SDK server this connection is pinned to, once there is one. */
  server: () => Server | undefined;
  /**
   * Writes one message to the client, as the connection's transport does; `json`, when given, is the message
   * already serialised (without the newline), for a transport that writes text.
   */
  send: (message: JSONRPCMessage, json?: string) => Promise<void>;
}

/** The tools core's branch on one connection (stdio, in memory): see {@link connectTools}. */
export interface ConnectionTools {
  /**
   * Offers a parsed message. True: the core took it and answers it. False: hand it to the SDK's server as usual
   * (a `notifications/cancelled` is noted here for the core's own calls and still goes to the SDK). `deliver` hands
   * a message the core took to the SDK's server later, when its answer is a question (see ToolsCore.passOn).
   */
  offer(message: unknown, deliver: (message: unknown) => void): boolean;
  /** The connection closed: every call the core runs sees its stop abort, and none is answered. */
  close(): void;
  /**
   * Resolves once no call the core runs is in flight, each one answered (or handed to the SDK's server): the end of
   * input waits for it before the connection closes.
   */
  settled(): Promise<void>;
  /** How many calls and lists the core ran without the SDK's server, and how many calls it passed on to it. */
  readonly counts: Readonly<{ calls: number; lists: number; passedOn: number }>;
}

/**
 * The tools core in front of the SDK's server on one connection (stdio, in memory), the fast case of the one
 * dispatch: a plain `tools/call` or `tools/list` (see plainToolsRequestOf) on a connection whose server has
 * negotiated a 2025-era protocol is answered by the core directly, with one write. A call whose answer is a
 * question (a dangerous tool's confirmation, a capability asking the client) is passed on to the SDK's server,
 * which asks it (or refuses it for a client that did not declare it can answer). Everything else goes to the SDK's
 * server unchanged, whose tools handlers call the same core.
 */
export function connectTools(core: ToolsCore, options: ConnectionToolsOptions): ConnectionTools {
  const { send } = options;
  const { logger } = core.host;
  // Each call in flight: its id, its stop, and whether the client (or the connection's end) stopped it. A list, not
  // a Map by id: a Map that lives as long as the connection and gains and loses an entry every call re-allocates its
  // table in the old generation (measured: about 150 bytes a call, left for a full collection); a cancel is rare.
  const inFlight: Running[] = [];
  const counts = { calls: 0, lists: 0, passedOn: 0 };
  // Who waits for the calls in flight to end (the end of input); empty but at that moment.
  let waiting: (() => void)[] = [];
  // What every call on this connection's server shares, made once per server: what its client can answer, and how
  // a call's log lines reach it (at the level the client set with logging/setLevel).
  let shared: { server: Server; supports: ClientSupports; tasks: boolean; log: ToolConnection["log"] } | undefined;
  const sharedOf = (server: Server) => {
    if (shared?.server !== server) {
      const capabilities = server.getClientCapabilities();
      shared = {
        server,
        supports: supportsOf(capabilities),
        tasks: declaresTasks(capabilities),
        log: (params) => {
          server.sendLoggingMessage(params).catch(() => undefined); // a client gone away must not fail the call
        },
      };
    }
    return shared;
  };
  const reply = (message: JSONRPCMessage, json?: string) => {
    send(message, json).catch((error: unknown) => logger.warn({ err: error }, "could not answer a tools request"));
  };

  return {
    counts,
    offer(message, deliver) {
      const cancelled = cancelledRequestOf(message);
      if (cancelled !== undefined) {
        cancel(cancelled.requestId, cancelled.reason);
        return false; // the SDK hears it too: a cancel of one of its own requests is its to act on
      }
      const server = options.server();
      if (server === undefined || server.transport === undefined || !servesLegacy(server)) return false;
      const plain = plainToolsRequestOf(message, "legacy");
      if (plain === undefined) return false;
      if (plain.method === "tools/list") {
        counts.lists++;
        const result = core.list();
        reply({ result, jsonrpc: "2.0", id: plain.id } as JSONRPCMessage, listAnswerJson(core, plain.id));
        return true;
      }
      const parts = sharedOf(server);
      counts.calls++;
      const { id, call } = plain;
      const running: Running = { id, stop: new CallStop(), cancelled: false };
      inFlight.push(running);
      // A literal, not a spread: V8 copies a spread slowly.
      if (core.host.tracing !== undefined) call.id = id;
      const connection: ToolConnection = {
        transport: "pipe",
        supports: parts.supports,
        tasks: parts.tasks,
        stop: running.stop,
        log: parts.log,
        notify:
          call.progressToken === undefined
            ? undefined
            : (notification) => server.notification(notification, { relatedRequestId: id }),
      };
      core.call(call, connection).then(
        (answer) => {
          forget(running);
          if (running.cancelled) return; // cancelled or closed: the SDK answers nothing either
          if ("question" in answer) {
            counts.passedOn++;
            core.passOn(server, id, { answer });
            deliver(message);
            return;
          }
          reply(answerMessageOf(id, answer));
        },
        (error: unknown) => {
          forget(running);
          if (!running.cancelled) reply(thrownMessageOf(id, error));
        },
      );
      return true;
    },
    close() {
      const closed = new Error("the connection closed");
      for (const running of inFlight.splice(0)) {
        running.cancelled = true;
        running.stop.abort(closed);
      }
      settle();
    },
    settled() {
      if (inFlight.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
  };

  /** Tells whoever waits that no call is in flight; their code runs after the answer just made is on its way. */
  function settle() {
    if (inFlight.length > 0 || waiting.length === 0) return;
    const waiters = waiting;
    waiting = [];
    for (const resolve of waiters) resolve();
  }

  /** Takes a call off the list in flight (swapping the last one into its place), if it is still there. */
  function forget(running: Running) {
    const at = inFlight.indexOf(running);
    if (at === -1) return;
    const last = inFlight.pop() as Running;
    if (at < inFlight.length) inFlight[at] = last;
    if (waiting.length > 0) settle();
  }

  /** notifications/cancelled for one of the core's calls: abort it, as the SDK aborts its own. */
  function cancel(requestId: RequestId, reason: string | undefined) {
    const running = inFlight.find((call) => call.id === requestId);
    if (running === undefined) return;
    running.cancelled = true;
    running.stop.abort(reason);
  }
}

/** The tools/list answer to `id` as JSON, from the list serialised once per list. */
export function listAnswerJson(core: ToolsCore, id: RequestId): string {
  return `{"result":${core.listJson()},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

// --- internal ---

/** A call the core runs on this connection, while it runs. */
interface Running {
  id: RequestId;
  stop: CallStop;
  /** The client cancelled it or the connection closed: it is not answered. */
  cancelled: boolean;
}

function servesLegacy(server: Server): boolean {
  const version = server.getNegotiatedProtocolVersion();
  return version !== undefined && version < FIRST_MODERN_REVISION;
}
