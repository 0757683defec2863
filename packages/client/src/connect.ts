import { createHandle } from "./handle.js";
import { httpConnector } from "./transports/http.js";
import type { HttpSpec, McpHandle } from "./types.js";

/**
 * A handle on an MCP server over Streamable HTTP; nothing is opened until its first `start()`, `listTools()` or
 * `callTool()`. This entry runs in browsers too; for stdio, inproc and worker use `connect` from
 * `@skillport/client/node`. A spec that is not an HTTP spec is a programming error and throws a TypeError.
 *
 * @example
 * const handle = connect({ transport: "http", url: "http://127.0.0.1:3333/mcp", bearer: { env: "SKILLPORT_TOKEN" } });
 * const outcome = await handle.callTool("notes.search_notes", { keyword: "agent" });
 * if (!outcome.ok) console.error(outcome.error.code, outcome.error.message);
 */
export function connect(spec: HttpSpec): McpHandle {
  if (spec?.transport !== "http") {
    throw new TypeError(
      `[skillport-client] connect() from "@skillport/client" takes { transport: "http", url }; for ${JSON.stringify(spec?.transport)} use connect() of "@skillport/client/node"`,
    );
  }
  return createHandle(httpConnector(spec), spec);
}
