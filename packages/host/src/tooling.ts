// @skillport/host/tooling: what the skillport CLI and the testing kit build on — the lock, the spec lint, change
// classification, skill surfaces, schema checks. Public, but for tools around a host rather than for embedding one.
// Any new export added here becomes public API. Use named exports, not wildcards.

export type {
  PromptSurface,
  ResourceSurface,
  ResourceTemplateSurface,
  SkillSurface,
  ToolSurface,
} from "./entries/surface.js";
export { surfaceOf } from "./entries/surface.js";
export { messageOf } from "./errors/host-error.js";
export { escapePointer, resolveRef } from "./json/json-pointer.js";
export type { ChangeLevel, ComparableSkill, ComparableTool, SurfaceChange } from "./registry/classify-changes.js";
export {
  classifyChanges,
  classifyServerChanges,
  classifySkillChanges,
  worstLevel,
} from "./registry/classify-changes.js";
export type { InstanceConfig, InstanceConfigOptions } from "./registry/instance-config.js";
export { instanceConfig } from "./registry/instance-config.js";
export type { LockedInstance, LockedServer, LockFile } from "./registry/lock.js";
export { hashOf, lockCommand, lockOf, lockPathOf, readLock, stringifyLock, writeLock } from "./registry/lock.js";
export type { SchemaCheck } from "./schema/compile-schema.js";
export { compileSchema } from "./schema/compile-schema.js";
export type { LintFinding, LintRule } from "./spec-lint/lint-skill.js";
export { formatLintFinding, LINT_RULES, lintSkill } from "./spec-lint/lint-skill.js";
export type { SkillDocFinding, SkillDocRule } from "./spec-lint/lint-skill-doc.js";
export { lintSkillDoc, SKILL_DOC_RULES } from "./spec-lint/lint-skill-doc.js";
export type { UpstreamPatternFinding } from "./spec-lint/lint-upstream.js";
export { lintUpstreamPatterns } from "./spec-lint/lint-upstream.js";
