import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import type { Host } from "../host.js";
import { createFastTools } from "./fast-tools.js";
import { createServerFactory } from "./server.js";

/**
 * Serves a host in this process over a linked pair of in-memory transports and returns the client's half, for
 * tests: `await client.connect(await connectInMemory(host))`. The server side is the same low-level server stdio
 * serves (2025-11-25 era), with the same fast path for tools/call and tools/list in front of it. Closing the
 * client's transport closes both halves.
 *
 * @example
 * const client = new Client({ name: "test", version: "0.0.0" });
 * await client.connect(await connectInMemory(await createHost({ manifest })));
 */
export async function connectInMemory(host: Host): Promise<Transport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createServerFactory(host)();
  await server.connect(serverSide);
  const fast = createFastTools(host, { server: () => server, send: (message) => serverSide.send(message) });
  // The SDK's server has set the transport's handlers; the fast path goes in front of them.
  const toServer = serverSide.onmessage;
  const closed = serverSide.onclose;
  serverSide.onmessage = (message, extra) => {
    if (fast.offer(message, (handed) => toServer?.(handed as JSONRPCMessage, extra))) return;
    toServer?.(message, extra);
  };
  serverSide.onclose = () => {
    fast.close();
    closed?.();
  };
  return clientSide;
}
