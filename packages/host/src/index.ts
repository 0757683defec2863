// Any new export added here becomes public API. Use named exports, not wildcards.
// The root entry is for embedding a host: build it from a manifest, call its tools, share its state across replicas.
// It imports no MCP SDK: transports live behind subpaths (@skillport/host/stdio, @skillport/host/http). A skill as
// the host publishes, records and checks it (its surface, the lock, the schema checks) is @skillport/host/surface;
// the pieces the test kit builds its mock context from are @skillport/host/testing.

export type { Caller } from "./entries/check-scopes.js";
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
export type { Host, HostOptions, HostSwap } from "./host.js";
export { createHost } from "./host.js";
export type { Logger, LoggerOptions } from "./logging/logger.js";
export { createLogger } from "./logging/logger.js";
export { installProcessGuards } from "./logging/process-guards.js";
export { DEFAULT_MANIFEST, HTTP_DEFAULTS } from "./manifest/defaults.js";
export { loadManifest, parseManifest } from "./manifest/load-manifest.js";
export type {
  ConfirmationFallback,
  Discovery,
  DiscoverySettings,
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
export type { Pipeline } from "./pipeline/pipeline.js";
export type { Redactor } from "./redaction/redactor.js";
export { REDACTED } from "./redaction/redactor.js";
export type { BuildRegistryOptions } from "./registry/build-registry.js";
export { buildRegistry } from "./registry/build-registry.js";
export type { Registry, SkillInstance, ToolEntry, ToolListing } from "./registry/registry.js";
export type { SkillModule } from "./registry/skill-instances.js";
export type { MemoryStoreOptions } from "./state/memory-store.js";
export { createMemoryStore } from "./state/memory-store.js";
export type { MemoryTaskStoreOptions } from "./state/memory-task-store.js";
export { createMemoryTaskStore } from "./state/memory-task-store.js";
export type { RedisStoreOptions } from "./state/redis-store.js";
export { createRedisStore } from "./state/redis-store.js";
export type { RedisTaskStoreOptions } from "./state/redis-task-store.js";
export { createRedisTaskStore } from "./state/redis-task-store.js";
export type { SharedState, StateReadiness } from "./state/shared-state.js";
export type { Rate, RateDecision, StateStore, StoreHealth } from "./state/store.js";
export { StoreUnavailableError } from "./state/store.js";
export type { TaskLeases } from "./state/task-leases.js";
export type {
  TaskAnswer,
  TaskCreation,
  TaskError,
  TaskPatch,
  TaskRecord,
  TaskStatus,
  TaskStore,
} from "./state/task-store.js";
