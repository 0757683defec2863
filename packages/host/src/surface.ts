// @skillport/host/surface: a skill as the host publishes, records and checks it, for tools around a host
// (@skillport/tooling, the skillport command, @skillport/testing) that must see it exactly as the host does: a
// skill's surface, the lock that records surfaces (its format, where it is, reading it, its hashes), and the host's
// own checks (a tool's JSON Schema, an instance's config, a SKILL.md's frontmatter, an upstream tool's patterns and
// risk), a manifest's text as the host reads it (comments allowed), the host's "did you mean", the tools/list it
// answers under each discovery mode, and the search discovery "search" ranks tools with (for `skillport check` and
// the benchmarks), and a manifest's per-caller credentials opened without starting its skills (its keys, its store and
// the sealed records in it, for `skillport credentials` and `skillport check`). No MCP SDK import.
// Any new export added here becomes public API. Use named exports, not wildcards.

export type { Keyring } from "./credentials/keyring.js";
export { readKeyring } from "./credentials/keyring.js";
export type { KeptCredential, KeptCredentialInfo, Vault } from "./credentials/vault.js";
export { createVault } from "./credentials/vault.js";
export type {
  PromptSurface,
  ResourceSurface,
  ResourceTemplateSurface,
  SkillSurface,
  ToolSurface,
} from "./entries/surface.js";
export { surfaceOf } from "./entries/surface.js";
export { upstreamRisk } from "./entries/upstream-pin.js";
export type { ClosestNamesOptions } from "./errors/closest-names.js";
export { closestNames } from "./errors/closest-names.js";
export { parseManifestText } from "./manifest/manifest-text.js";
export type { SecretReading } from "./manifest/read-secret.js";
export { readSecret } from "./manifest/read-secret.js";
export { createRedactor } from "./redaction/redactor.js";
export { discoveryListings, listedTools } from "./registry/discovery-listings.js";
export type { InstanceConfig, InstanceConfigOptions } from "./registry/instance-config.js";
export { instanceConfig } from "./registry/instance-config.js";
export type { LockedInstance, LockedServer, LockFile, LockReading } from "./registry/lock.js";
export {
  hashOf,
  lockCommand,
  lockPathOf,
  readLock,
  readLockFile,
  serverSourceOf,
  stringifyLock,
} from "./registry/lock.js";
export { parseSkillHead } from "./registry/skill-docs.js";
export type { Ranking, ToolIndex, ToolSearch } from "./registry/tool-search.js";
export { buildToolIndex, createToolSearch, loadRanking } from "./registry/tool-search.js";
export type { PatternEngine } from "./schema/ajv.js";
export type { SchemaCheck } from "./schema/compile-schema.js";
export { compileSchema } from "./schema/compile-schema.js";
export type { SchemaPattern } from "./schema/schema-patterns.js";
export { upstreamPatterns } from "./schema/schema-patterns.js";
export { openFileSealedStore } from "./state/file-sealed-store.js";
export type { OpenedStores, OpenStoreOptions } from "./state/open-store.js";
export { openStores } from "./state/open-store.js";
export type { SealedStore } from "./state/sealed-store.js";
