// Helpers the repository's tests share across packages. Private: never published.

export type { ThrownSkillError } from "./failure.js";
export { failure } from "./failure.js";
export { builtEntries, importsOf, isBuiltin, packagesOf, staticImportsOf } from "./imports-of.js";
export type { LineEnds, LinePipe, Message } from "./line-pipe.js";
export { linePipe } from "./line-pipe.js";
export { jsonLineIn, linesOf, untilLines } from "./lines.js";
export type { Tool } from "./needs.js";
export { CHROMIUM, CI, hasTool, missingTool, SKIPS_FILE_VARIABLE, skipWithout } from "./needs.js";
export { standInPatternEngine } from "./pattern-engine.js";
export type { RedisServer } from "./redis-server.js";
export { startRedis } from "./redis-server.js";
