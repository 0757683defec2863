// @skillport/host/stdio: serve a host over stdio with the MCP SDK.

export type { StdioServing } from "./mcp/serve-stdio.js";
export { serveHostStdio } from "./mcp/serve-stdio.js";
export { createServerFactory } from "./mcp/server.js";
