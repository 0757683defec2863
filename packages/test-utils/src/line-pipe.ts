import { PassThrough } from "node:stream";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { Client, ReadBuffer, serializeMessage } from "@modelcontextprotocol/client";

// biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC message as received, read field by field in assertions
export type Message = Record<string, any>;

/** The ends a stdio server is served on: what it reads as stdin, and its stdout (the shape of host's ClaimedStdout). */
export interface LineEnds {
  stdin: PassThrough;
  stdout: {
    write(text: string): boolean;
    readonly stream: PassThrough;
    filter(transform: (text: string) => string): void;
    release(): void;
  };
}

/** A stdio server in this process, and what a client writes to it and reads from it, line by line. */
export interface LinePipe {
  /** Every line the server wrote to its stdout, in order. */
  readonly lines: string[];
  /** Writes a message to the server's stdin: an object, or raw text (a newline is added). */
  send(message: object | string): void;
  /** The first line (already written or from now on) that parses as JSON and that `match` accepts. */
  next(match: (message: Message) => boolean): Promise<Message>;
  /** Sends a request with this id and waits for its answer. */
  request(id: string | number, body: object): Promise<Message>;
  /** An SDK client connected over these pipes; `options` are the client's (era, capabilities). */
  connect(options?: object): Promise<Client>;
  /** Ends the server's stdin, as a client that leaves does, and waits until the server has closed the connection. */
  close(): Promise<void>;
}

/**
 * Serves a stdio server in this process on a pair of pipes, as a client process would see it on the server's stdin
 * and stdout: `serve` starts the server on the ends and returns what resolves when its connection has closed.
 *
 * @example
 * const pipe = linePipe((ends) => serveHostStdio(host, ends).closed);
 * const client = await pipe.connect({ capabilities: { elicitation: { form: {} } } });
 */
export function linePipe(serve: (ends: LineEnds) => Promise<void>): LinePipe {
  const stdin = new PassThrough();
  const out = new PassThrough();
  const closed = serve({
    stdin,
    stdout: { write: (text) => out.write(text), stream: out, filter: () => undefined, release: () => undefined },
  });
  const lines: string[] = [];
  const listeners = new Set<(line: string) => void>();
  let partial = "";
  out.setEncoding("utf8");
  out.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      for (const listener of [...listeners]) listener(line);
    }
  });
  const send = (message: object | string) =>
    void stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  const next = (match: (message: Message) => boolean) => {
    for (const line of lines) {
      const message = parsed(line);
      if (message !== undefined && match(message)) return Promise.resolve(message);
    }
    return new Promise<Message>((resolve) => {
      const listener = (line: string) => {
        const message = parsed(line);
        if (message === undefined || !match(message)) return;
        listeners.delete(listener);
        resolve(message);
      };
      listeners.add(listener);
    });
  };
  return {
    lines,
    send,
    next,
    request(id, body) {
      const answered = next((m) => m.id === id && m.method === undefined);
      send({ jsonrpc: "2.0", id, ...body });
      return answered;
    },
    async connect(options = {}) {
      const client = new Client({ name: "skillport-test", version: "0.0.0" }, options as never);
      await client.connect(clientTransport(stdin, listeners));
      return client;
    },
    async close() {
      stdin.end();
      await closed;
    },
  };
}

// --- internal ---

function parsed(line: string): Message | undefined {
  try {
    return JSON.parse(line) as Message;
  } catch {
    return undefined;
  }
}

/** The client's half: writes each message as one line, reads the server's lines as they come. */
function clientTransport(stdin: PassThrough, listeners: Set<(line: string) => void>): Transport {
  const buffer = new ReadBuffer();
  const onLine = (line: string) => {
    buffer.append(Buffer.from(`${line}\n`));
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = buffer.readMessage();
      } catch (error) {
        transport.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      transport.onmessage?.(message);
    }
  };
  const transport: Transport = {
    async start() {
      listeners.add(onLine);
    },
    async send(message) {
      stdin.write(serializeMessage(message));
    },
    async close() {
      listeners.delete(onLine);
      stdin.end();
      transport.onclose?.();
    },
  };
  return transport;
}
