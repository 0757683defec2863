import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";

/**
 * The part of a MessagePort the transport uses: Node's `worker_threads` ports and the browser's both have it.
 */
export interface MessagePortLike {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: Event) => void): void;
  removeEventListener(type: "message", listener: (event: Event) => void): void;
  start?(): void;
  close(): void;
}

/**
 * An MCP transport over a MessagePort: each JSON-RPC message is posted as a structured clone, one per
 * `postMessage`. It works with either end of a `MessageChannel`, in Node (a worker thread) or a browser
 * (a Web Worker). A port does not tell when the other side goes away: whoever owns the other side (e.g. the
 * code that watches the worker) calls `close()`, which reports `onclose`.
 *
 * @example
 * const { port1, port2 } = new MessageChannel();
 * const worker = new Worker(url, { workerData: { port: port2 }, transferList: [port2] });
 * await new Client(info).connect(new MessagePortTransport(port1));
 */
export class MessagePortTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #port: MessagePortLike;
  #state: "new" | "open" | "closed" = "new";

  constructor(port: MessagePortLike) {
    this.#port = port;
  }

  readonly #receive = (event: Event) => {
    const message = (event as Event & { data?: unknown }).data;
    if (typeof message !== "object" || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      this.onerror?.(new Error("[MessagePortTransport] dropped a message that is not JSON-RPC 2.0"));
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  };

  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error("[MessagePortTransport] already started");
    this.#state = "open";
    this.#port.addEventListener("message", this.#receive);
    this.#port.start?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#state !== "open") throw new Error("[MessagePortTransport] not open");
    this.#port.postMessage(message);
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    this.#port.removeEventListener("message", this.#receive);
    this.#port.close();
    this.onclose?.();
  }
}
