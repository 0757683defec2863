// @skillport/tooling: the rules `skillport check` and `testSkill()` share, written once: the spec lint, the SKILL.md
// lint, the upstream pattern report, change classification; and writing a manifest's lock. What they read of a host
// (a skill's surface, the lock's format, the host's schema checks) comes from @skillport/host/surface; the runtime
// host never imports this package.
// Any new export added here becomes public API. Use named exports, not wildcards.

export type { ChangeLevel, ComparableSkill, ComparableTool, SurfaceChange } from "./classify-changes.js";
export { classifyChanges, classifyServerChanges, classifySkillChanges, worstLevel } from "./classify-changes.js";
export type { LintFinding, LintRule } from "./lint-skill.js";
export { formatLintFinding, LINT_RULES, lintSkill } from "./lint-skill.js";
export type { SkillDocFinding, SkillDocRule } from "./lint-skill-doc.js";
export { lintSkillDoc, SKILL_DOC_RULES } from "./lint-skill-doc.js";
export type { UpstreamPatternFinding } from "./lint-upstream.js";
export { lintUpstreamPatterns } from "./lint-upstream.js";
export { lockOf, writeLock } from "./write-lock.js";
