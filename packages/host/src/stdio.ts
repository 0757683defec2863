// @skillport/host/stdio: serve a host over stdio with the MCP SDK.

export type { StdioServeOptions, StdioServing } from "./mcp/serve-stdio.js";
export { serveHostStdio } from "./mcp/serve-stdio.js";
export { createServerFactory } from "./mcp/server.js";
export type { ClaimedStdout } from "./transports/stdio/claim-stdout.js";
export { claimStdout } from "./transports/stdio/claim-stdout.js";
