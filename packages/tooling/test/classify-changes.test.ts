import { describe, expect, it } from "vitest";
import type { ComparableTool } from "../src/classify-changes.js";
import { classifyChanges, worstLevel } from "../src/classify-changes.js";

const base: ComparableTool = {
  name: "search_notes",
  title: "Search notes",
  description: "Search notes by keyword.",
  risk: "read_only",
  inputSchema: {
    type: "object",
    properties: {
      keyword: { type: "string", minLength: 2, maxLength: 80, description: "what to find" },
      limit: { type: "integer", minimum: 1, maximum: 20, default: 5 },
      scope: { type: "string", enum: ["ai-agent", "all-allowed"] },
    },
    required: ["keyword"],
    additionalProperties: false,
  },
  outputSchema: { type: "object", properties: { hits: { type: "array" }, scanned: { type: "integer" } } },
};

type Edit = (tool: ComparableTool) => void;
const input = (t: ComparableTool) =>
  t.inputSchema as { properties: Record<string, Record<string, unknown>>; required: string[] };
const output = (t: ComparableTool) => t.outputSchema as { properties: Record<string, unknown> };

const CASES: Array<[string, Edit, "breaking" | "minor" | "patch", string]> = [
  [
    "a required field added",
    (t) => {
      input(t).properties.owner = { type: "string" };
      input(t).required.push("owner");
    },
    "breaking",
    "input /owner: required field added",
  ],
  [
    "a field removed",
    (t) => {
      delete input(t).properties.scope;
    },
    "breaking",
    "input /scope: field removed",
  ],
  [
    "an optional field made required",
    (t) => {
      input(t).required.push("limit");
    },
    "breaking",
    "input /limit: now required",
  ],
  [
    "a type changed",
    (t) => {
      input(t).properties.limit = { ...input(t).properties.limit, type: "string" };
    },
    "breaking",
    "input /limit: type changed from integer to string",
  ],
  [
    "a maximum lowered",
    (t) => {
      input(t).properties.limit = { ...input(t).properties.limit, maximum: 10 };
    },
    "breaking",
    "input /limit: maximum lowered from 20 to 10",
  ],
  [
    "a minLength raised",
    (t) => {
      input(t).properties.keyword = { ...input(t).properties.keyword, minLength: 3 };
    },
    "breaking",
    "input /keyword: minLength raised from 2 to 3",
  ],
  [
    "a pattern added",
    (t) => {
      input(t).properties.keyword = { ...input(t).properties.keyword, pattern: "^[a-z]+$" };
    },
    "breaking",
    "input /keyword: pattern added",
  ],
  [
    "an enum value removed",
    (t) => {
      input(t).properties.scope = { type: "string", enum: ["ai-agent"] };
    },
    "breaking",
    'input /scope: enum value "all-allowed" removed',
  ],
  [
    "an output field removed",
    (t) => {
      delete output(t).properties.scanned;
    },
    "breaking",
    "output /scanned: field removed",
  ],
  [
    "the risk raised",
    (t) => {
      t.risk = "write";
    },
    "breaking",
    "risk raised from read_only to write",
  ],
  [
    "a tool that now runs only as a task",
    (t) => {
      t.task = "required";
    },
    "breaking",
    "now runs only as a task (task: required)",
  ],
  [
    "task support added",
    (t) => {
      t.task = "optional";
    },
    "minor",
    "may now run as a task",
  ],
  [
    "an optional field added",
    (t) => {
      input(t).properties.since = { type: "string" };
    },
    "minor",
    "input /since: optional field added",
  ],
  [
    "an enum widened",
    (t) => {
      input(t).properties.scope = { type: "string", enum: ["ai-agent", "all-allowed", "work"] };
    },
    "minor",
    'input /scope: enum value "work" added',
  ],
  [
    "a maximum raised",
    (t) => {
      input(t).properties.limit = { ...input(t).properties.limit, maximum: 50 };
    },
    "minor",
    "input /limit: maximum raised from 20 to 50",
  ],
  [
    "a default changed",
    (t) => {
      input(t).properties.limit = { ...input(t).properties.limit, default: 10 };
    },
    "minor",
    "input /limit: default changed",
  ],
  [
    "an output field added",
    (t) => {
      output(t).properties.took = { type: "number" };
    },
    "minor",
    "output /took: field added",
  ],
  [
    "the risk lowered",
    (t) => {
      t.risk = "read_only";
    },
    "patch",
    "",
  ],
  [
    "a description changed",
    (t) => {
      t.description = "Find notes.";
    },
    "patch",
    "description changed",
  ],
  [
    "a title changed",
    (t) => {
      t.title = "Find notes";
    },
    "patch",
    "title changed",
  ],
  [
    "a field's description changed",
    (t) => {
      input(t).properties.keyword = { ...input(t).properties.keyword, description: "the words" };
    },
    "patch",
    "input /keyword: description changed",
  ],
];

describe("classifyChanges", () => {
  it("calls task support dropped, or made optional, minor", () => {
    const required = { ...structuredClone(base), task: "required" as const };
    const optional = { ...structuredClone(base), task: "optional" as const };
    expect(classifyChanges([optional], [base])).toEqual([
      { level: "minor", tool: "search_notes", message: "no longer runs as a task" },
    ]);
    expect(classifyChanges([required], [optional])).toEqual([
      { level: "minor", tool: "search_notes", message: "runs as a task only when the client can (task: optional)" },
    ]);
  });

  it.each(CASES.filter(([, , , message]) => message !== ""))("calls %s %s", (_case, edit, level, message) => {
    const live = structuredClone(base);
    edit(live);
    const changes = classifyChanges([base], [live]);
    expect(changes).toContainEqual({ level, tool: "search_notes", message });
    expect(worstLevel(changes)).toBe(level);
  });

  it("calls a removed or renamed tool breaking and an added one minor", () => {
    const renamed = { ...structuredClone(base), name: "find_notes" };
    expect(classifyChanges([base], [renamed])).toEqual([
      { level: "breaking", tool: "search_notes", message: "tool removed or renamed" },
      { level: "minor", tool: "find_notes", message: "tool added" },
    ]);
  });

  it("calls a lowered risk minor, and marks it", () => {
    const before = { ...structuredClone(base), risk: "dangerous" };
    expect(classifyChanges([before], [base])).toEqual([
      { level: "minor", tool: "search_notes", message: "risk lowered from dangerous to read_only", lowersRisk: true },
    ]);
  });

  it("finds nothing when nothing changed", () => {
    expect(classifyChanges([base], [structuredClone(base)])).toEqual([]);
    expect(worstLevel([])).toBeUndefined();
  });
});
