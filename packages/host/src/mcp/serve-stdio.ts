import type { JSONRPCMessage, Server, Transport } from "@modelcontextprotocol/server";
import { parseJSONRPCMessage, serializeMessage } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Host } from "../host.js";
import type { ClaimedStdout } from "../transports/stdio/claim-stdout.js";
import { claimStdout } from "../transports/stdio/claim-stdout.js";
import type { OversizeLine } from "../transports/stdio/line-reader.js";
import { createLineReader } from "../transports/stdio/line-reader.js";
import type { ConnectionTools } from "./connection-tools.js";
import { connectTools } from "./connection-tools.js";
import { createServerFactory } from "./server.js";
import { createToolsCore } from "./tools-core.js";

/** Options for {@link serveHostStdio}. */
export interface StdioServeOptions {
  /**
   * The longest message (one line) read from stdin, in bytes; a longer one is answered with a JSON-RPC error.
   * @default the manifest's stdio.maxMessageBytes (64 MiB unless set)
   */
  maxMessageBytes?: number;
  /** @default process.stdin */
  stdin?: NodeJS.ReadableStream;
  /** Where protocol messages go. @default claimStdout(): process.stdout, with every other write sent to stderr */
  stdout?: ClaimedStdout;
}

/** A running stdio server. */
export interface StdioServing {
  /**
   * Resolves when the connection ends: stdin ended and every request in flight was answered (each bounded by its
   * timeout), or close() was called.
   */
  readonly closed: Promise<void>;
  /** Ends the connection now: requests in flight are cancelled and not answered (SIGTERM, SIGINT). */
  close(): Promise<void>;
}

/**
 * Serves a host over this process's stdin/stdout, both protocol eras. stdout carries only the protocol: it is
 * claimed (see claimStdout), so what skills print goes to stderr, through the host's redactor. Each line is one
 * JSON-RPC message of at most `maxMessageBytes`; a longer line, a line that is not JSON, a batch (a JSON array:
 * MCP has had no batches since 2025-06-18) or an invalid message is answered with a JSON-RPC error and the server
 * keeps serving. At the end of stdin (a client's input piped in, then closed) the requests in flight are finished
 * and answered, each within its tool's timeout, before the connection closes.
 *
 * @example
 * const host = await createHost({ manifest: "skills.manifest.json" });
 * const serving = serveHostStdio(host);
 * await serving.closed;
 * await host.close();
 */
export function serveHostStdio(host: Host, options: StdioServeOptions = {}): StdioServing {
  const stdout = options.stdout ?? claimStdout();
  stdout.filter((text) => host.redactor.string(text));
  let ended: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  // One tools core answers tools/call and tools/list: in front of the server the connection is pinned to for a
  // plain request (see connectTools), and as that server's own handlers for the rest.
  const core = createToolsCore(host);
  const factory = createServerFactory(host, { core });
  let pinned: Server | undefined;
  const tools: ConnectionTools = connectTools(core, {
    server: () => pinned,
    send: (message, json) => (json === undefined ? wire.send(message) : wire.writeLine(json)),
  });
  const wire = createLineTransport({
    stdin: options.stdin ?? process.stdin,
    stdout,
    maxMessageBytes: options.maxMessageBytes ?? host.manifest.stdio.maxMessageBytes,
    tools,
    drainMs: longestTimeout(host) + DRAIN_MARGIN_MS,
    onClosed: () => {
      tools.close();
      host.logger.debug({ fastPath: tools.counts }, "stdio connection closed");
      ended();
    },
  });
  const handle = serveStdio(
    (ctx) => {
      pinned = factory(ctx);
      return pinned;
    },
    {
      transport: wire,
      onerror: (error) => host.logger.warn({ err: error }, "stdio transport error"),
    },
  );
  return {
    closed,
    close: async () => {
      await handle.close();
      await wire.close();
    },
  };
}

// --- internal ---

/** Past the longest timeout, what the end of input still waits for the last answers to be written. */
const DRAIN_MARGIN_MS = 5_000;

/** The longest any tool of the host may run: no call in flight at the end of input runs past it. */
function longestTimeout(host: Host): number {
  let longest = 0;
  for (const entry of host.registry.tools.values()) longest = Math.max(longest, entry.timeoutMs);
  return longest;
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const BATCH_REFUSED =
  "JSON-RPC batches are not supported: send one message per line (MCP removed batching in protocol 2025-06-18)";

interface LineTransportOptions {
  stdin: NodeJS.ReadableStream;
  stdout: ClaimedStdout;
  maxMessageBytes: number;
  /** Offered every message first; what it takes never reaches the SDK. */
  tools?: ConnectionTools;
  /** At the end of stdin, how long the requests in flight may take to be answered before the connection closes. */
  drainMs: number;
  onClosed(): void;
}

/** The line transport, which can also write a message already serialised. */
interface LineTransport extends Transport {
  /** Writes one JSON-RPC message given as its JSON text (no newline). */
  writeLine(json: string): Promise<void>;
}

/**
 * The SDK's Transport over newline-delimited JSON on stdin/stdout. Unlike the SDK's StdioServerTransport, whose
 * read buffer closes the connection (and so ends the process) past 10 MiB and drops a batch or an invalid line
 * without a word, it bounds each message, answers what it cannot serve, and keeps reading.
 */
function createLineTransport(options: LineTransportOptions): LineTransport {
  const { stdin, stdout, maxMessageBytes, tools, onClosed } = options;
  let started = false;
  let isClosed = false;
  let ending = false;
  // The requests handed to the SDK's server and not answered yet, by id (as JSON: 1 and "1" are two ids).
  const unanswered = new Set<string>();
  let answeredAll: (() => void) | undefined;

  const write = (message: JSONRPCMessage | ErrorReply): Promise<void> => {
    const id = (message as { id?: unknown }).id;
    if (id !== undefined && !("method" in message) && unanswered.delete(JSON.stringify(id)) && unanswered.size === 0) {
      answeredAll?.();
    }
    return writeText(serializeMessage(message as JSONRPCMessage));
  };
  const writeText = async (text: string): Promise<void> => {
    if (isClosed) throw new Error("the stdio connection is closed");
    if (stdout.write(text)) return;
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        stdout.stream.off("drain", done);
        stdout.stream.off("error", done);
        if (error instanceof Error) reject(error);
        else resolve();
      };
      stdout.stream.once("drain", done);
      stdout.stream.once("error", done);
    });
  };
  const reply = (id: string | number | null, code: number, message: string) => {
    write({ jsonrpc: "2.0", id, error: { code, message } }).catch((error: unknown) =>
      transport.onerror?.(toError(error)),
    );
  };

  const onLine = (line: string) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      reply(null, PARSE_ERROR, "Parse error: the line is not JSON; send one JSON-RPC message per line");
      return;
    }
    if (Array.isArray(value)) {
      reply(null, INVALID_REQUEST, BATCH_REFUSED);
      transport.onerror?.(new Error(`refused a JSON-RPC batch of ${value.length} messages`));
      return;
    }
    if (tools?.offer(value, deliver) === true) return;
    deliver(value);
  };
  const deliver = (value: unknown) => {
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch (error) {
      // Answer a request we can name; a broken notification or response gets no answer (JSON-RPC 2.0 §5).
      const id = requestIdOf(value);
      if (id !== undefined)
        reply(id, INVALID_REQUEST, "Invalid Request: the message is not a valid JSON-RPC 2.0 request");
      transport.onerror?.(toError(error));
      return;
    }
    const id = requestIdOf(message);
    if (id !== undefined) unanswered.add(JSON.stringify(id));
    transport.onmessage?.(message);
  };
  const onOversize = ({ bytes, id }: OversizeLine) => {
    transport.onerror?.(new Error(`refused a message of ${bytes} bytes (stdio.maxMessageBytes is ${maxMessageBytes})`));
    reply(
      id ?? null,
      INVALID_REQUEST,
      `Invalid Request: the message is ${bytes} bytes, over this server's limit of ${maxMessageBytes} bytes (stdio.maxMessageBytes in the manifest); send less in one message`,
    );
  };
  const reader = createLineReader({ maxBytes: maxMessageBytes, onLine, onOversize });

  const onData = (chunk: Buffer | string) => {
    try {
      reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    } catch (error) {
      transport.onerror?.(toError(error));
    }
  };
  const onError = (error: Error) => transport.onerror?.(error);
  // The end of input: nothing more is read, but what was asked is answered (a client's requests piped in, then
  // closed: the last answer is the one it waits for). Each request ends by its tool's timeout; past drainMs the
  // connection closes all the same, and what still runs is cancelled.
  const onEnd = () => {
    if (ending || isClosed) return;
    ending = true;
    stdin.off("data", onData);
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Not unref'd: it keeps the process alive while the calls finish (their own timeout timers do not).
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.drainMs);
    });
    // The core's calls first: one whose answer is a question is handed to the SDK's server, counted above.
    const drained = (tools?.settled() ?? Promise.resolve()).then(() =>
      unanswered.size === 0
        ? undefined
        : new Promise<void>((resolve) => {
            answeredAll = resolve;
          }),
    );
    void Promise.race([drained, deadline]).then(() => {
      clearTimeout(timer);
      void transport.close();
    });
  };

  const transport: LineTransport = {
    async start() {
      if (started) throw new Error("the stdio transport is already started");
      started = true;
      if ((stdin as { readableEnded?: boolean }).readableEnded === true) setImmediate(onEnd);
      stdin.on("data", onData);
      stdin.on("error", onError);
      stdin.on("end", onEnd);
      stdin.on("close", onEnd);
    },
    send: (message) => write(message),
    writeLine: (json) => writeText(`${json}\n`),
    async close() {
      if (isClosed) return;
      isClosed = true;
      stdin.off("data", onData);
      stdin.off("error", onError);
      stdin.off("end", onEnd);
      stdin.off("close", onEnd);
      stdin.pause();
      transport.onclose?.();
      onClosed();
    },
  };
  return transport;
}

interface ErrorReply {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}

/** The id of something shaped like a request (a string method and a string or number id). */
function requestIdOf(value: unknown): string | number | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { method, id } = value as { method?: unknown; id?: unknown };
  if (typeof method !== "string") return undefined;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
