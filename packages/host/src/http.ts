// @skillport/host/http: serve a host over Streamable HTTP (MCP SDK, jose, prom-client), kept off the root entry.

export type { HttpServeOptions, HttpServing } from "./mcp/serve-http.js";
export { serveHostHttp } from "./mcp/serve-http.js";
export type { Authenticator, AuthOutcome } from "./transports/http/auth.js";
export { ANONYMOUS, createAuthenticator } from "./transports/http/auth.js";
export type {
  HttpOverrides,
  ResolvedHttpConfig,
  ResolvedJwt,
  ResolvedToken,
  ResolveHttpConfigOptions,
} from "./transports/http/config.js";
export { isLoopback, resolveHttpConfig } from "./transports/http/config.js";
export type { HttpMetrics, MetricsOptions } from "./transports/http/metrics.js";
export { createMetrics } from "./transports/http/metrics.js";
export type { LocalRateLimiter, RateLimiter, RateLimiterOptions } from "./transports/http/rate-limit.js";
export { createRateLimiter } from "./transports/http/rate-limit.js";
