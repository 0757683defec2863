// Any new export added here becomes public API. Use named exports, not wildcards.
// This entry imports no MCP SDK: transports live behind subpaths (@skillport/host/stdio, @skillport/host/http).

export type { SchemaCheck } from "./compile-schema.js";
export { compileSchema } from "./compile-schema.js";
export type { CredentialAccess, CredentialAccessOptions, FetchLike } from "./entries/credential-fetch.js";
export { credentialAccess } from "./entries/credential-fetch.js";
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
export type { AuditRecord } from "./pipeline/audit.js";
export type { CallConfirmation, CallOptions, CallOutcome, ConfirmationQuestion, StageName } from "./pipeline/call.js";
export type { Caller } from "./pipeline/check-scopes.js";
export type { Pipeline } from "./pipeline/pipeline.js";
export type { Redactor } from "./pipeline/redact.js";
export { createRedactor, REDACTED } from "./pipeline/redact.js";
export { CONFIRM_ARGUMENT } from "./pipeline/stages/migrate.js";
export { installProcessGuards } from "./process-guards.js";
export type { BuildRegistryOptions, SkillModule } from "./registry/build-registry.js";
export { buildRegistry } from "./registry/build-registry.js";
export type { ChangeLevel, ComparableTool, SurfaceChange } from "./registry/classify-changes.js";
export { classifyChanges, worstLevel } from "./registry/classify-changes.js";
export type { LockedInstance, LockFile } from "./registry/lock.js";
export {
  hashOf,
  LOCK_FILE,
  lockOf,
  lockPathOf,
  lockProblems,
  readLock,
  resolveEnabled,
  stringifyLock,
  writeLock,
} from "./registry/lock.js";
export type { Registry, SkillInstance, ToolEntry, ToolListing } from "./registry/registry.js";
export type { SkillSurface, ToolSurface } from "./registry/surface.js";
export { surfaceOf } from "./registry/surface.js";
export type { LintFinding, LintRule } from "./spec-lint/lint-skill.js";
export { formatLintFinding, LINT_RULES, lintSkill } from "./spec-lint/lint-skill.js";
