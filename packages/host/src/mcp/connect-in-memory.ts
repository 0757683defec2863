import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import type { Host } from "../host.js";
import type { ConnectionTools } from "./connection-tools.js";
import { connectTools } from "./connection-tools.js";
import { createServerFactory } from "./server.js";
import type { ToolsCoreOptions } from "./tools-core.js";
import { createToolsCore } from "./tools-core.js";

/**
 * Serves a host in this process over a linked pair of in-memory transports and returns the client's half, for
 * tests: `await client.connect(await connectInMemory(host))`. The server side is served as stdio serves it
 * (2025-11-25 era): the same tools core in front of the same low-level server. Closing the client's transport
 * closes both halves.
 *
 * @example
 * const client = new Client({ name: "test", version: "0.0.0" });
 * await client.connect(await connectInMemory(await createHost({ manifest })));
 */
export async function connectInMemory(host: Host): Promise<Transport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await serveTransport(host, serverSide);
  return clientSide;
}

/**
 * Serves a host over one transport the SDK's server connects to, with the tools core in front of it (what
 * {@link connectInMemory} does with its server's half); answers the core's branch on that connection.
 */
export async function serveTransport(
  host: Host,
  transport: Transport,
  options: ToolsCoreOptions = {},
): Promise<ConnectionTools> {
  const core = createToolsCore(host, options);
  const server = createServerFactory(host, { core })();
  await server.connect(transport);
  const tools = connectTools(core, { server: () => server, send: (message) => transport.send(message) });
  // The SDK's server has set the transport's handlers; the tools core goes in front of them.
  const toServer = transport.onmessage;
  const closed = transport.onclose;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if (!tools.offer(message, (passed) => toServer?.(passed as JSONRPCMessage, extra))) toServer?.(message, extra);
  };
  transport.onclose = () => {
    tools.close();
    closed?.();
  };
  return tools;
}
