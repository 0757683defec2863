// @skillport/client/node: every transport, for Node. Any new export added here becomes public API.
// The browser-safe core (the HTTP transport, McpHub, the types) is the root entry, @skillport/client.

import { createHandle } from "./handle.js";
import { linearRegExp } from "./linear-reg-exp.js";
import { httpConnector } from "./transports/http.js";
import { inprocConnector } from "./transports/inproc.js";
import { stdioConnector } from "./transports/stdio.js";
import { workerConnector } from "./transports/worker.js";
import type { McpHandle, ServerSpec } from "./types.js";

// How a host compiles the patterns of the schemas its upstream servers publish (linear time, RE2).
export type { LinearRegExp } from "./linear-reg-exp.js";
export { linearRegExp, MAX_PATTERN_TEXT } from "./linear-reg-exp.js";
export type { InprocSpec, ServerSpec, StdioSpec, WorkerSpec } from "./types.js";

/**
 * A handle on an MCP server over any transport: `stdio` (a child process with an explicit environment), `http`
 * (Streamable HTTP, both protocol eras), `inproc` (a Skillport host in this process) or `worker` (a Skillport host
 * in a worker thread). Nothing is opened until the handle's first `start()`, `listTools()` or `callTool()`.
 * A spec of an unknown transport is a programming error and throws a TypeError.
 *
 * @example
 * const fs = connect({
 *   transport: "stdio",
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"],
 *   inheritEnv: ["PATH", "HOME"],
 * });
 * const listed = await fs.start(); // { ok: true, tools: [...] } or { ok: false, error: { code, message } }
 */
export function connect(spec: ServerSpec): McpHandle {
  switch (spec?.transport) {
    case "stdio":
      return createHandle(stdioConnector(spec), spec);
    case "http":
      return createHandle(httpConnector(spec), spec);
    case "inproc":
      return createHandle(inprocConnector(spec, hostClient), spec);
    case "worker":
      return createHandle(workerConnector(spec), spec);
    default:
      throw new TypeError(
        `[skillport-client] unknown transport ${JSON.stringify((spec as { transport?: unknown })?.transport)}; use "stdio", "http", "inproc" or "worker"`,
      );
  }
}

// --- internal ---

/** What an inproc host mounts a manifest's `servers` with: this entry's `connect` and `linearRegExp`. */
const hostClient = async () => ({ connect, linearRegExp });
