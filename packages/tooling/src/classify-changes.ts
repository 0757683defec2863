import type { JsonSchema } from "@skillport/core";
import type { UpstreamTool } from "@skillport/host";
import { upstreamRisk } from "@skillport/host/surface";

/** How much a change to a tool's surface can hurt its callers. */
export type ChangeLevel = "breaking" | "minor" | "patch";

/** One difference between two published surfaces. */
export interface SurfaceChange {
  level: ChangeLevel;
  tool: string;
  /** What changed, e.g. `input /limit: maximum lowered from 20 to 10`. */
  message: string;
  /** Set on a lowered risk: harmless for a skill's callers, but an upstream server must not do it (see `check`). */
  lowersRisk?: true;
}

/** The parts of a tool's published surface that callers depend on. */
export interface ComparableTool {
  name: string;
  title: string;
  description: string;
  risk: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | undefined;
  /** Whether a call may run as a task (the Tasks extension): absent for a tool that never does. */
  task?: "optional" | "required" | undefined;
}

const RISK_ORDER = ["read_only", "write", "dangerous"];

/**
 * Classifies every difference between a locked and a live tool surface. Breaking: a tool removed or renamed, a
 * required field added, a field removed or narrowed (type, bounds, pattern, enum value removed), an output field
 * removed, the risk raised, a tool that now runs only as a task (`task: "required"`: clients without the Tasks
 * extension are refused). Minor: a tool added, an optional field added, a bound or enum widened, a default changed,
 * the risk lowered, task support added, dropped or made optional. Patch: titles and descriptions.
 */
export function classifyChanges(locked: readonly ComparableTool[], live: readonly ComparableTool[]): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  const liveByName = new Map(live.map((t) => [t.name, t]));
  const lockedNames = new Set(locked.map((t) => t.name));
  for (const before of locked) {
    const after = liveByName.get(before.name);
    if (after === undefined) {
      changes.push({ level: "breaking", tool: before.name, message: "tool removed or renamed" });
      continue;
    }
    const add = (level: ChangeLevel, message: string) => changes.push({ level, tool: before.name, message });
    if (before.title !== after.title) add("patch", "title changed");
    if (before.description !== after.description) add("patch", "description changed");
    const riskBefore = RISK_ORDER.indexOf(before.risk);
    const riskAfter = RISK_ORDER.indexOf(after.risk);
    if (riskAfter > riskBefore) add("breaking", `risk raised from ${before.risk} to ${after.risk}`);
    if (riskAfter < riskBefore) {
      changes.push({
        level: "minor",
        tool: before.name,
        message: `risk lowered from ${before.risk} to ${after.risk}`,
        lowersRisk: true,
      });
    }
    compareTask(before.task, after.task, add);
    compareInput(before.inputSchema, after.inputSchema, "", add);
    compareOutput(before.outputSchema ?? {}, after.outputSchema ?? {}, "", add);
  }
  for (const after of live) {
    if (!lockedNames.has(after.name)) changes.push({ level: "minor", tool: after.name, message: "tool added" });
  }
  return changes;
}

/**
 * Classifies every difference between an upstream server's locked and live tools, as {@link classifyChanges} does
 * for a skill's, each tool's risk read from its annotations (readOnlyHint, destructiveHint).
 */
export function classifyServerChanges(locked: readonly UpstreamTool[], live: readonly UpstreamTool[]): SurfaceChange[] {
  return classifyChanges(locked.map(comparableOf), live.map(comparableOf));
}

/** The parts of a skill's published surface `check` compares: tools, resources, templates and prompts. */
export interface ComparableSkill {
  tools: readonly ComparableTool[];
  resources?: readonly {
    name: string;
    uri: string;
    title?: string | undefined;
    description?: string | undefined;
    mimeType?: string | undefined;
  }[];
  resourceTemplates?: readonly {
    name: string;
    uriTemplate: string;
    title?: string | undefined;
    description?: string | undefined;
    mimeType?: string | undefined;
    paramsSchema: JsonSchema;
    completes: readonly string[];
    lists: boolean;
  }[];
  prompts?: readonly {
    name: string;
    title?: string | undefined;
    description: string;
    argumentsSchema: JsonSchema;
    completes: readonly string[];
  }[];
}

/**
 * Classifies every difference between a locked and a live skill surface: its tools (see {@link classifyChanges}),
 * and its resources, resource templates and prompts, named `resource <name>`, `template <name>`, `prompt <name>`.
 * Breaking: one removed, a URI or URI template changed, a template variable or prompt argument narrowed or newly
 * required (their schemas compare as inputs do). Minor: one added, a MIME type changed, a completion or listing
 * added or removed, an argument widened. Patch: titles and descriptions.
 */
export function classifySkillChanges(locked: ComparableSkill, live: ComparableSkill): SurfaceChange[] {
  const changes = classifyChanges(locked.tools, live.tools);
  const compareList = <T extends { name: string; title?: string | undefined; description?: string | undefined }>(
    kind: string,
    before: readonly T[] | undefined,
    after: readonly T[] | undefined,
    compare: (a: T, b: T, add: Add) => void,
  ) => {
    const now = new Map((after ?? []).map((item) => [item.name, item]));
    for (const was of before ?? []) {
      const item = `${kind} ${was.name}`;
      const add: Add = (level, message) => changes.push({ level, tool: item, message });
      const is = now.get(was.name);
      if (is === undefined) add("breaking", `${kind} removed or renamed`);
      else {
        compareText(was, is, add);
        compare(was, is, add);
      }
      now.delete(was.name);
    }
    for (const added of now.values())
      changes.push({ level: "minor", tool: `${kind} ${added.name}`, message: `${kind} added` });
  };
  compareList("resource", locked.resources, live.resources, (was, is, add) => {
    if (was.uri !== is.uri) add("breaking", `uri changed from ${was.uri} to ${is.uri}`);
    if (was.mimeType !== is.mimeType) add("minor", "mimeType changed");
  });
  compareList("template", locked.resourceTemplates, live.resourceTemplates, (was, is, add) => {
    if (was.uriTemplate !== is.uriTemplate)
      add("breaking", `uriTemplate changed from ${was.uriTemplate} to ${is.uriTemplate}`);
    if (was.mimeType !== is.mimeType) add("minor", "mimeType changed");
    if (was.lists !== is.lists) add("minor", is.lists ? "now lists its resources" : "no longer lists its resources");
    compareCompletions(was.completes, is.completes, add);
    compareInput(was.paramsSchema, is.paramsSchema, "", (level, message) =>
      add(level, message.replace(/^input/, "params")),
    );
  });
  compareList("prompt", locked.prompts, live.prompts, (was, is, add) => {
    compareCompletions(was.completes, is.completes, add);
    compareInput(was.argumentsSchema, is.argumentsSchema, "", (level, message) =>
      add(level, message.replace(/^input/, "arguments")),
    );
  });
  return changes;
}

/** The most severe level among changes, or undefined when there are none. */
export function worstLevel(changes: readonly SurfaceChange[]): ChangeLevel | undefined {
  for (const level of ["breaking", "minor", "patch"] as const) if (changes.some((c) => c.level === level)) return level;
  return undefined;
}

// --- internal ---

function comparableOf(tool: UpstreamTool): ComparableTool {
  return {
    name: tool.name,
    title: tool.title ?? "",
    description: tool.description ?? "",
    risk: upstreamRisk(tool),
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
  };
}

type Add = (level: ChangeLevel, message: string) => void;

/** A tool's task support: `required` shuts out clients without the Tasks extension, anything else is minor. */
function compareTask(was: ComparableTool["task"], is: ComparableTool["task"], add: Add): void {
  if (was === is) return;
  if (is === "required") add("breaking", "now runs only as a task (task: required)");
  else if (is === undefined) add("minor", "no longer runs as a task");
  else
    add(
      "minor",
      was === undefined ? "may now run as a task" : "runs as a task only when the client can (task: optional)",
    );
}

function compareText(
  was: { title?: string | undefined; description?: string | undefined },
  is: { title?: string | undefined; description?: string | undefined },
  add: Add,
): void {
  if (was.title !== is.title) add("patch", "title changed");
  if (was.description !== is.description) add("patch", "description changed");
}

function compareCompletions(was: readonly string[], is: readonly string[], add: Add): void {
  for (const name of was) if (!is.includes(name)) add("minor", `no longer completes ${name}`);
  for (const name of is) if (!was.includes(name)) add("minor", `completes ${name}`);
}

const TIGHTER_WHEN_HIGHER = ["minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"];
const TIGHTER_WHEN_LOWER = ["maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"];

/** Inputs are contravariant: accepting less than before breaks callers. */
function compareInput(before: JsonSchema, after: JsonSchema, at: string, add: Add): void {
  const where = `input ${at || "/"}`;
  if (typeKey(before) !== typeKey(after))
    add("breaking", `${where}: type changed from ${typeKey(before)} to ${typeKey(after)}`);
  compareEnum(before, after, where, add, "breaking", "minor");
  for (const key of TIGHTER_WHEN_HIGHER) compareBound(before, after, key, 1, where, add);
  for (const key of TIGHTER_WHEN_LOWER) compareBound(before, after, key, -1, where, add);
  for (const key of ["pattern", "format", "const"]) {
    if (before[key] === after[key]) continue;
    if (after[key] === undefined) add("minor", `${where}: ${key} removed`);
    else add("breaking", `${where}: ${key} ${before[key] === undefined ? "added" : "changed"}`);
  }
  if (before.additionalProperties !== false && after.additionalProperties === false) {
    add("breaking", `${where}: no longer accepts unknown fields`);
  }
  if (JSON.stringify(before.default) !== JSON.stringify(after.default)) add("minor", `${where}: default changed`);
  if (before.description !== after.description && at !== "") add("patch", `${where}: description changed`);

  const beforeProps = propertiesOf(before);
  const afterProps = propertiesOf(after);
  const beforeRequired = new Set(requiredOf(before));
  const afterRequired = new Set(requiredOf(after));
  for (const [name, schema] of Object.entries(beforeProps)) {
    const child = `${at}/${name}`;
    const next = afterProps[name];
    if (next === undefined) {
      add("breaking", `input ${child}: field removed`);
      continue;
    }
    if (!beforeRequired.has(name) && afterRequired.has(name)) add("breaking", `input ${child}: now required`);
    if (beforeRequired.has(name) && !afterRequired.has(name)) add("minor", `input ${child}: now optional`);
    compareInput(schema, next, child, add);
  }
  for (const name of Object.keys(afterProps)) {
    if (Object.hasOwn(beforeProps, name)) continue;
    if (afterRequired.has(name)) add("breaking", `input ${at}/${name}: required field added`);
    else add("minor", `input ${at}/${name}: optional field added`);
  }
  if (isObject(before.items) && isObject(after.items)) compareInput(before.items, after.items, `${at}/items`, add);
}

/** Outputs are covariant: giving callers less than before breaks them. */
function compareOutput(before: JsonSchema, after: JsonSchema, at: string, add: Add): void {
  const where = `output ${at || "/"}`;
  if (typeKey(before) !== typeKey(after) && typeKey(before) !== "any") {
    add("breaking", `${where}: type changed from ${typeKey(before)} to ${typeKey(after)}`);
  }
  compareEnum(before, after, where, add, "minor", "breaking");
  const beforeProps = propertiesOf(before);
  const afterProps = propertiesOf(after);
  for (const [name, schema] of Object.entries(beforeProps)) {
    const next = afterProps[name];
    if (next === undefined) add("breaking", `output ${at}/${name}: field removed`);
    else compareOutput(schema, next, `${at}/${name}`, add);
  }
  for (const name of Object.keys(afterProps))
    if (!Object.hasOwn(beforeProps, name)) add("minor", `output ${at}/${name}: field added`);
  if (isObject(before.items) && isObject(after.items)) compareOutput(before.items, after.items, `${at}/items`, add);
}

function compareEnum(
  before: JsonSchema,
  after: JsonSchema,
  where: string,
  add: Add,
  removed: ChangeLevel,
  added: ChangeLevel,
) {
  const was = before.enum;
  const now = after.enum;
  if (!Array.isArray(was) && !Array.isArray(now)) return;
  if (!Array.isArray(now)) return add(added, `${where}: enum removed`);
  if (!Array.isArray(was)) return add(removed, `${where}: enum added`);
  const has = (list: unknown[], v: unknown) => list.some((w) => JSON.stringify(w) === JSON.stringify(v));
  const gone = was.filter((v) => !has(now, v));
  const come = now.filter((v) => !has(was, v));
  if (gone.length > 0)
    add(
      removed,
      `${where}: enum value${gone.length > 1 ? "s" : ""} ${gone.map((v) => JSON.stringify(v)).join(", ")} removed`,
    );
  if (come.length > 0)
    add(
      added,
      `${where}: enum value${come.length > 1 ? "s" : ""} ${come.map((v) => JSON.stringify(v)).join(", ")} added`,
    );
}

function compareBound(before: JsonSchema, after: JsonSchema, key: string, tighter: 1 | -1, where: string, add: Add) {
  const a = before[key];
  const b = after[key];
  if (a === b) return;
  if (typeof b !== "number") return add("minor", `${where}: ${key} removed`);
  if (typeof a !== "number") return add("breaking", `${where}: ${key} ${b} added`);
  const narrowed = (b - a) * tighter > 0;
  add(narrowed ? "breaking" : "minor", `${where}: ${key} ${b > a ? "raised" : "lowered"} from ${a} to ${b}`);
}

function typeKey(schema: JsonSchema): string {
  const type = schema.type;
  if (type === undefined) return "any";
  return Array.isArray(type) ? [...type].sort().join("|") : String(type);
}

function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  return isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
}

function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required) ? (schema.required as string[]) : [];
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
