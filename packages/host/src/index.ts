// Any new export added here becomes public API. Use named exports, not wildcards.
// This entry imports no MCP SDK: transports live behind subpaths (@skillport/host/stdio, @skillport/host/http).

export type { SkillportErrorCode } from "./errors.js";
export { SkillportError } from "./errors.js";
export type { Host, HostOptions } from "./host.js";
export { createHost } from "./host.js";
export type { Logger, LoggerOptions } from "./log.js";
export { createLogger } from "./log.js";
export { DEFAULT_MANIFEST, HTTP_DEFAULTS, loadManifest, parseManifest } from "./manifest/load-manifest.js";
export type {
  HttpSettings,
  JwtSettings,
  LoadedHttpSettings,
  LoadedManifest,
  Manifest,
  SecretSource,
  Separator,
  SkillEntry,
  StaticTokenEntry,
} from "./manifest/manifest.js";
export type { Caller } from "./pipeline/check-scopes.js";
export type { CallOutcome } from "./pipeline/envelope.js";
export type { CallOptions, Pipeline } from "./pipeline/pipeline.js";
export { buildRegistry } from "./registry/build-registry.js";
export type { Registry, SkillInstance, ToolEntry, ToolListing } from "./registry/registry.js";
