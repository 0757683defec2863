// @skillport/host/testing: serve a host in process, for tests. Imports the MCP server SDK.

export { connectInMemory } from "./mcp/connect-in-memory.js";
