// @skillport/host/testing: what tests run a host with and what the test kit (@skillport/testing) builds its mock
// context from, kept off the root entry: a host served in process over the MCP SDK's in-memory transport, the
// redactor on its own, and a skill's credential access as the host gives it. Imports the MCP server SDK.
// Any new export added here becomes public API. Use named exports, not wildcards.

export type { CredentialAccess, CredentialAccessOptions, FetchLike } from "./entries/credential-fetch.js";
export { credentialAccess } from "./entries/credential-fetch.js";
export { connectInMemory } from "./mcp/connect-in-memory.js";
export { createRedactor } from "./redaction/redactor.js";
