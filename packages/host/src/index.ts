// Any new export added here becomes public API. Use named exports, not wildcards.
// This entry imports no MCP SDK: transports live behind subpaths (@skillport/host/stdio, @skillport/host/http).
// What the CLI and the testing kit need beyond embedding a host (lock, lint, classification) is in
// @skillport/host/tooling.

export type { Caller } from "./entries/check-scopes.js";
export type { CredentialAccess, CredentialAccessOptions, FetchLike } from "./entries/credential-fetch.js";
export { credentialAccess } from "./entries/credential-fetch.js";
export type { LegacyShape, RunCall, Runnable, ToolOwner } from "./entries/tool-entry.js";
export type {
  UpstreamClient,
  UpstreamConnect,
  UpstreamError,
  UpstreamHandle,
  UpstreamResult,
  UpstreamSpec,
  UpstreamTool,
} from "./entries/upstream-client.js";
export type { UpstreamServer } from "./entries/upstream-server.js";
export type { HostErrorCode } from "./errors/host-error.js";
export { HostError } from "./errors/host-error.js";
export type { Host, HostOptions } from "./host.js";
export { createHost } from "./host.js";
export type { Logger, LoggerOptions } from "./logging/logger.js";
export { createLogger } from "./logging/logger.js";
export { installProcessGuards } from "./logging/process-guards.js";
export { DEFAULT_MANIFEST, HTTP_DEFAULTS, loadManifest, parseManifest } from "./manifest/load-manifest.js";
export type {
  ConfirmationFallback,
  HttpSettings,
  JwtSettings,
  LoadedHttpSettings,
  LoadedManifest,
  Manifest,
  SecretSource,
  Separator,
  ServerEntry,
  SkillEntry,
  StateSettings,
  StaticTokenEntry,
  StdioSettings,
} from "./manifest/manifest.js";
export type { AuditRecord } from "./pipeline/audit.js";
export type { CallConfirmation, CallOptions, CallOutcome, ConfirmationQuestion, StageName } from "./pipeline/call.js";
export { CallStop } from "./pipeline/call-stop.js";
export type { Pipeline } from "./pipeline/pipeline.js";
export { CONFIRM_ARGUMENT } from "./pipeline/stages/migrate.js";
export type { Redactor } from "./redaction/redactor.js";
export { createRedactor, REDACTED } from "./redaction/redactor.js";
export type { BuildRegistryOptions } from "./registry/build-registry.js";
export { buildRegistry } from "./registry/build-registry.js";
export type { Registry, SkillInstance, ToolEntry, ToolListing } from "./registry/registry.js";
export type { SkillModule } from "./registry/skill-instances.js";
export type { MemoryStoreOptions } from "./state/memory-store.js";
export { createMemoryStore } from "./state/memory-store.js";
export type { RedisStoreOptions } from "./state/redis-store.js";
export { createRedisStore } from "./state/redis-store.js";
export type { SharedState, StateReadiness } from "./state/shared-state.js";
export type { Rate, RateDecision, StateStore, StoreHealth } from "./state/store.js";
export { StoreUnavailableError } from "./state/store.js";
