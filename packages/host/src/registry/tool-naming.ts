import { envelopeSchema } from "@skillport/core";
import type { SkillInstance } from "../entries/skill-instance.js";
import type { Isolates } from "../entries/skill-tool.js";
import { skillToolEntry } from "../entries/skill-tool.js";
import type { ToolSurface } from "../entries/surface.js";
import type { ToolEntry, ToolHints, ToolListing } from "../entries/tool-entry.js";
import { ALWAYS_LOAD, SEARCH_HINT } from "../entries/tool-entry.js";
import { instanceMount } from "../entries/uri-template.js";
import type { LoadedManifest, SkillEntry } from "../manifest/manifest.js";
import { ownValue } from "./own-value.js";
import type { Problem } from "./problems.js";
import { isReservedKey, PROMPTS_KEY, RESOURCES_KEY, scopedTools } from "./scope-keys.js";

/** What MCP allows in a tool's full name: letters, digits, ".", "_", "-", at most 128 characters. */
export const FULL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** The skills' tools by full name, and their listings in manifest order. */
export interface SkillTools {
  tools: Map<string, ToolEntry>;
  listings: ToolListing[];
}

/**
 * The skill instances' tools as clients see them: each selected tool (`tools.include`, `tools.exclude`) named
 * `<mcp><separator><name>` (or its own name for an instance mounted without a prefix), renamed and overridden as
 * the manifest says, the host's confirmation argument advertised on dangerous tools where the manifest takes
 * operation ids. An invalid full name and a name two tools share are problems, reported with the others; the first
 * tool keeps the name.
 */
export function skillTools(
  manifest: LoadedManifest,
  instances: readonly SkillInstance[],
  isolates: Isolates,
  problems: Problem[],
  defaultTimeoutMs: number,
): SkillTools {
  const tools = new Map<string, ToolEntry>();
  const listings: ToolListing[] = [];
  for (const instance of instances) {
    const entry = manifest.skills[instance.index] as SkillEntry;
    const mount = instanceMount(instance.id, entry.prefix !== false, instance.surface);
    for (const tool of selectTools(instance, entry, problems)) {
      const name = ownValue(entry.tools?.rename, tool.name) ?? tool.name;
      const fullName = entry.prefix === false ? name : `${instance.id}${manifest.separator}${name}`;
      if (!FULL_NAME.test(fullName)) {
        problems.push({
          code: "SKILL_INVALID",
          message: `${instance.source}: the full tool name "${fullName}" is invalid for MCP (letters, digits, ".", "_", "-", at most 128); choose a shorter "mcp" id`,
        });
        continue;
      }
      const taken = tools.get(fullName);
      if (taken !== undefined) {
        problems.push({
          code: "TOOL_CONFLICT",
          message: conflictOf(fullName, taken, instance, tool.name),
        });
        continue;
      }
      const override = ownValue(entry.tools?.override, tool.name) ?? {};
      const title = override.title ?? tool.title;
      const listing: ToolListing = {
        name: fullName,
        title,
        description: override.description ?? tool.description,
        inputSchema: advertisedInput(tool, manifest.confirmation.fallback),
        outputSchema: envelopeSchema(tool.outputSchema) as ToolListing["outputSchema"],
        annotations: { title, ...tool.mcpAnnotations, ...override.annotations },
      };
      if (tool.task !== undefined) listing.execution = { taskSupport: tool.task };
      const hints = hintsOf(entry.alwaysLoad, override);
      if (hints !== undefined) listing._meta = hints;
      const init = {
        fullName,
        toolName: tool.name,
        listing,
        risk: tool.risk,
        scopes: toolScopes(entry, tool.name),
        timeoutMs: instance.timeoutMs ?? tool.timeoutMs ?? defaultTimeoutMs,
        mount,
      };
      tools.set(fullName, skillToolEntry(instance, init, isolates));
      listings.push(listing);
    }
  }
  return { tools, listings };
}

/**
 * Why a tool cannot take the full name `fullName`: the tool `taken` has it, and the tool `name` of `owner` asks for
 * it too; says how to part them.
 */
export function conflictOf(fullName: string, taken: ToolEntry, owner: { source: string }, name: string): string {
  return `tool "${fullName}" is defined by both ${describeTool(taken.instance, taken.toolName)} and ${describeTool(owner, name)}; give one of them another "mcp" id, or rename one in tools.rename`;
}

/** Where the manifest takes operation ids, a dangerous tool advertises the host's confirmation argument. */
export function advertisedInput(
  tool: Pick<ToolSurface, "risk" | "inputSchema">,
  fallback: LoadedManifest["confirmation"]["fallback"],
) {
  const schema = tool.inputSchema as ToolListing["inputSchema"];
  if (tool.risk !== "dangerous" || fallback !== "operation-id") return schema;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return {
    ...schema,
    properties: {
      ...properties,
      _confirm: {
        type: "string",
        minLength: 1,
        maxLength: 2048,
        description:
          "Leave out on the first call. If the answer is CONFIRMATION_REQUIRED, ask the user; to go ahead, repeat the exact same call with this set to error.operationId.",
      },
    },
  };
}

/**
 * The discovery hints of a tool, from its instance's `alwaysLoad` and its override's `alwaysLoad` and `searchHint`
 * (the tool's own setting wins); undefined when there are none, so that a listing without hints is what it was.
 */
export function hintsOf(
  instanceAlwaysLoad: boolean | undefined,
  override: { alwaysLoad?: boolean | undefined; searchHint?: string | undefined },
): ToolHints | undefined {
  const always = override.alwaysLoad ?? instanceAlwaysLoad ?? false;
  if (!always && override.searchHint === undefined) return undefined;
  const hints: ToolHints = {};
  if (always) hints[ALWAYS_LOAD] = true;
  if (override.searchHint !== undefined) hints[SEARCH_HINT] = override.searchHint;
  return hints;
}

/** The scopes a tool requires: those given for every tool ("*") and those given for it by name. */
export function toolScopes(entry: Pick<SkillEntry, "scopes">, tool: string): readonly string[] {
  const scopes = entry.scopes;
  if (scopes === undefined) return [];
  return [...new Set([...(ownValue(scopes, "*") ?? []), ...(ownValue(scopes, tool) ?? [])])];
}

// --- internal ---

/** Names a tool and where it comes from: `skills[0] (@skillport/skill-notes as "notes")` or with its own name. */
function describeTool(instance: { source: string }, tool: string): string {
  return `${instance.source.replace(/\)$/, "")}, tool ${tool})`;
}

/** The instance's tools the entry selects; names its lists give that the skill has no tool of are problems. */
function selectTools(instance: SkillInstance, entry: SkillEntry, problems: Problem[]) {
  const { include, exclude } = entry.tools ?? {};
  const names = new Set(instance.surface.tools.map((t) => t.name));
  const scoped = scopedTools(entry.scopes);
  for (const key of Object.keys(entry.scopes ?? {})) {
    if (isReservedKey(key) && key !== RESOURCES_KEY && key !== PROMPTS_KEY) {
      problems.push({
        code: "MANIFEST_INVALID",
        message: `skills[${instance.index}].scopes: "${key}" is no key the host knows; a key with ":" is "${RESOURCES_KEY}" (the instance's resources and templates) or "${PROMPTS_KEY}" (its prompts), and every other key is a tool name`,
      });
    }
  }
  for (const [field, list] of [
    ["include", include],
    ["exclude", exclude],
    ["rename", Object.keys(entry.tools?.rename ?? {})],
    ["override", Object.keys(entry.tools?.override ?? {})],
    ["scopes", scoped],
  ] as const) {
    for (const name of list ?? []) {
      if (!names.has(name)) {
        problems.push({
          code: "MANIFEST_INVALID",
          message: `skills[${instance.index}].${field === "scopes" ? "" : "tools."}${field}: skill "${instance.surface.name}" has no tool "${name}"; its tools are ${[...names].join(", ")}`,
        });
      }
    }
  }
  return instance.surface.tools.filter(
    (t) => (include === undefined || include.includes(t.name)) && !(exclude ?? []).includes(t.name),
  );
}
