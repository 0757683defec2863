// A raw MCP connection to a host in this process, served as stdio serves it (the tools core in front of the SDK's
// server): messages sent as a client writes them (parsed from its text, so an own "__proto__" key survives), every
// message received kept in order, and the core's branch counted. The 2025 era's handshake is done.
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import type { Host } from "../../src/host.js";
import { serveTransport } from "../../src/mcp/connect-in-memory.js";
import type { CallObserver } from "../../src/mcp/tools-core.js";

// biome-ignore lint/suspicious/noExplicitAny: a message as received, read field by field in assertions
export type Message = Record<string, any>;

export interface RawConnection {
  /** Every message received so far, in order. */
  readonly received: Message[];
  /** Sends a message: an object, or a client's JSON text. */
  send(message: object | string): void;
  /** The first message received (from now on or already) that matches. */
  next(match: (message: Message) => boolean): Promise<Message>;
  /** Sends a request and waits for its answer. */
  request(id: unknown, body: object | string): Promise<Message>;
  /** How many calls and lists the core ran without the SDK's server, and the calls it passed on to it. */
  readonly counts: Readonly<{ calls: number; lists: number; passedOn: number }>;
  close(): Promise<void>;
}

/** Opens a connection with the 2025 era's handshake done; `capabilities` are the client's. */
export async function openRaw(
  host: Host,
  options: { capabilities?: object; observer?: CallObserver } = {},
): Promise<RawConnection> {
  const [client, server] = InMemoryTransport.createLinkedPair();
  const tools = await serveTransport(
    host,
    server,
    options.observer === undefined ? {} : { observer: options.observer },
  );
  const received: Message[] = [];
  const waiting = new Set<{ match: (m: Message) => boolean; resolve: (m: Message) => void }>();
  client.onmessage = (message) => {
    received.push(message as Message);
    for (const waiter of waiting) {
      if (waiter.match(message as Message)) {
        waiting.delete(waiter);
        waiter.resolve(message as Message);
      }
    }
  };
  await client.start();
  const send = (message: object | string) =>
    void client.send((typeof message === "string" ? JSON.parse(message) : message) as JSONRPCMessage);
  const next = (match: (m: Message) => boolean) => {
    const found = received.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<Message>((resolve) => waiting.add({ match, resolve }));
  };
  const isAnswerTo = (id: unknown) => (m: Message) =>
    m.method === undefined && JSON.stringify(m.id) === JSON.stringify(id);
  const request = (id: unknown, body: object | string) => {
    const answered = next(isAnswerTo(id));
    send(typeof body === "string" ? body : { jsonrpc: "2.0", id, ...body });
    return answered;
  };
  await request(0, {
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: options.capabilities ?? {},
      clientInfo: { name: "raw", version: "0" },
    },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  received.length = 0;
  return { received, send, next, request, counts: tools.counts, close: () => client.close() };
}

/** An answer without what differs per call: its id, trace ids and durations. */
export function comparable(message: Message): Message {
  const normalised = JSON.stringify(message)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<trace>")
    .replace(/"durationMs":[0-9.e-]+/g, '"durationMs":0');
  const { id: _id, ...rest } = JSON.parse(normalised);
  return rest;
}

/** A `_meta` key no one reads: the tools core leaves a request carrying it to the SDK's server, unread. */
export const SDK_PATH_META = { "example.com/route": "sdk" };

/** The 2026-07-28 era's per-request envelope, of a client that declared no capabilities. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
