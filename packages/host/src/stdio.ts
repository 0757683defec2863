// @skillport/host/stdio: serve a host over stdio with the MCP SDK.

export { FIRST_MODERN_REVISION } from "./mcp/fast-tools.js";
export type { StdioServeOptions, StdioServing } from "./mcp/serve-stdio.js";
export { serveHostStdio } from "./mcp/serve-stdio.js";
export { createServerFactory } from "./mcp/server.js";
export type { ClaimedStdout } from "./transports/stdio/claim-stdout.js";
export { claimStdout } from "./transports/stdio/claim-stdout.js";
