// Helpers the repository's tests share across packages. Private: never published.

export type { ThrownSkillError } from "./failure.js";
export { failure } from "./failure.js";
export { builtEntries, importsOf, isBuiltin, packagesOf, staticImportsOf } from "./imports-of.js";
export type { LineEnds, LinePipe, Message } from "./line-pipe.js";
export { linePipe } from "./line-pipe.js";
export { jsonLineIn, linesOf, untilLines } from "./lines.js";
export type { Tool } from "./needs.js";
export { CHROMIUM, CHROMIUM_FLAGS, CI, hasTool, missingTool, SKIPS_FILE_VARIABLE, skipWithout } from "./needs.js";
export type {
  AuthorizationServer,
  AuthorizationServerOptions,
  MintAccessTokenOptions,
  PreRegisteredClient,
  TokenRequest,
} from "./oauth/authorization-server.js";
export { startAuthorizationServer } from "./oauth/authorization-server.js";
export type { AuthorizationResponse, AuthorizeWithoutBrowserOptions } from "./oauth/authorize-without-browser.js";
export { authorizeWithoutBrowser } from "./oauth/authorize-without-browser.js";
export type { ProtectedMcpServer, ProtectedMcpServerOptions, SeenRequest } from "./oauth/protected-mcp-server.js";
export { startProtectedMcpServer } from "./oauth/protected-mcp-server.js";
export { standInPatternEngine } from "./pattern-engine.js";
export type { RedisServer } from "./redis-server.js";
export { startRedis } from "./redis-server.js";
