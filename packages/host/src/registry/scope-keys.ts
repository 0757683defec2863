import type { SkillEntry } from "../manifest/manifest.js";

/**
 * The key of a skill instance's `scopes` naming what its resources and resource templates require of a caller over
 * HTTP: resources/list, resources/templates/list, resources/read, subscriptions and completions of template variables.
 */
export const RESOURCES_KEY = "resources:*";
/** The key naming what the instance's prompts require: prompts/list, prompts/get and completions of their arguments. */
export const PROMPTS_KEY = "prompts:*";

/** What an instance's resources (or prompts) require of a caller over HTTP. */
export interface SurfaceScopes {
  /** The scopes of `"*"` and of the surface's own key, all required. */
  scopes: readonly string[];
  /**
   * Set when no caller over HTTP may use them whatever it holds: the instance scopes tools by name, so its data is
   * guarded per tool, but its manifest entry has no key for this surface. Says why, for the caller.
   */
  closed: string | undefined;
}

/**
 * Whether a key of a skill instance's `scopes` is one of the host's own rather than a tool name: a skill's tool
 * names are letters, digits, `_` and `-` (`<verb>_<object>`), so a key with `:` can never be one.
 */
export function isReservedKey(key: string): boolean {
  return key.includes(":");
}

/** The tool names a `scopes` map gives scopes to, one by one (neither `"*"` nor a reserved key). */
export function scopedTools(scopes: SkillEntry["scopes"]): string[] {
  return Object.keys(scopes ?? {}).filter((key) => key !== "*" && !isReservedKey(key));
}

/**
 * What an instance's resources or prompts require: `"*"`'s scopes and their key's. An instance that scopes tools
 * by name and has no key for them fails closed: a tool's scope guards data (read_note's notes) that its resources
 * and prompts may serve too, and the host cannot tell which tool's scope would cover which resource.
 */
export function surfaceScopes(entry: Pick<SkillEntry, "scopes">, id: string, key: string): SurfaceScopes {
  const scopes = entry.scopes;
  const keyed = scopes !== undefined && Object.hasOwn(scopes, key);
  const closed =
    !keyed && scopedTools(scopes).length > 0
      ? `instance "${id}" gives its tools scopes one by one, and the server's manifest names none for its ${key === PROMPTS_KEY ? "prompts" : "resources"} ("${key}")`
      : undefined;
  return { scopes: [...new Set([...ownList(scopes, "*"), ...ownList(scopes, key)])], closed };
}

/**
 * An instance whose resources or prompts fail closed: served over stdio, refused to every caller over HTTP. `skillport
 * check` reports each one.
 */
export interface ScopeGap {
  /** The manifest entry: `skills[0] (@skillport/skill-notes as "notes")`. */
  source: string;
  /** The missing key, `"resources:*"` or `"prompts:*"`. */
  key: string;
  /** What is refused and how to fix it. */
  message: string;
}

/** The gap of an instance whose `key` is missing while its tools are scoped one by one. */
export function scopeGapOf(
  instance: { index: number; source: string },
  entry: Pick<SkillEntry, "scopes">,
  key: string,
): ScopeGap {
  const where = `skills[${instance.index}].scopes`;
  const what = key === PROMPTS_KEY ? "its prompts" : "its resources and resource templates";
  return {
    source: instance.source,
    key,
    message: `${what} are refused to every caller over HTTP (hidden from the lists, every read, render and completion PERMISSION_DENIED): ${where} gives scopes to the tools ${scopedTools(entry.scopes).join(", ")} one by one but has no "${key}" key; add "${key}": ["<scope>"] to ${where} with the scopes a caller needs for them, or "${key}": [] when the "*" scopes are enough`,
  };
}

// --- internal ---

function ownList(scopes: SkillEntry["scopes"], key: string): readonly string[] {
  return scopes !== undefined && Object.hasOwn(scopes, key) ? (scopes[key] ?? []) : [];
}
