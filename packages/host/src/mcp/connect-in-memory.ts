import type { Transport } from "@modelcontextprotocol/server";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import type { Host } from "../host.js";
import { createServerFactory } from "./server.js";

/**
 * Serves a host in this process over a linked pair of in-memory transports and returns the client's half, for
 * tests: `await client.connect(await connectInMemory(host))`. The server side is the same low-level server stdio
 * serves (2025-11-25 era). Closing the client's transport closes both halves.
 *
 * @example
 * const client = new Client({ name: "test", version: "0.0.0" });
 * await client.connect(await connectInMemory(await createHost({ manifest })));
 */
export async function connectInMemory(host: Host): Promise<Transport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createServerFactory(host)();
  await server.connect(serverSide);
  return clientSide;
}
