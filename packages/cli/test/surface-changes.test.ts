import type { Registry, ToolEntry } from "@skillport/host";
import { describe, expect, it } from "vitest";
import { formatChanges, summaryOf, toolChanges } from "../src/surface-changes.js";

/** A table of tools as dev compares them: each by its full name, listing and risk. */
function tableOf(tools: Record<string, { description?: string; input?: Record<string, unknown>; risk?: string }>) {
  const entries = Object.entries(tools).map(([name, tool]) => {
    const entry = {
      fullName: name,
      risk: tool.risk ?? "read_only",
      listing: {
        name,
        title: name,
        description: tool.description ?? "Does a thing.",
        inputSchema: { type: "object", properties: {}, ...tool.input },
        outputSchema: { type: "object" },
      },
    } as unknown as ToolEntry;
    return [name, entry] as const;
  });
  return { tools: new Map(entries) } as Pick<Registry, "tools">;
}

describe("toolChanges", () => {
  it("classifies each change as the lock's checks do: removed and narrowed are breaking, added minor, text patch", () => {
    const before = tableOf({ "a.keep": {}, "a.gone": {}, "a.narrow": {} });
    const after = tableOf({
      "a.keep": { description: "Does a thing, better." },
      "a.narrow": { input: { properties: { id: { type: "string" } }, required: ["id"] } },
      "a.new": {},
    });
    expect(toolChanges(before, after)).toEqual([
      { level: "patch", tool: "a.keep", message: "description changed" },
      { level: "breaking", tool: "a.gone", message: "tool removed or renamed" },
      { level: "breaking", tool: "a.narrow", message: "input /id: required field added" },
      { level: "minor", tool: "a.new", message: "tool added" },
    ]);
  });

  it("finds nothing between two tables with the same tools", () => {
    expect(toolChanges(tableOf({ "a.x": {} }), tableOf({ "a.x": {} }))).toEqual([]);
  });
});

describe("formatChanges and summaryOf", () => {
  const changes = [
    { level: "patch", tool: "a.keep", message: "description changed" },
    { level: "minor", tool: "a.new", message: "tool added" },
    { level: "breaking", tool: "a.gone_for_good", message: "tool removed or renamed" },
  ] as const;

  it("lists the worst first, level and tool names aligned", () => {
    expect(formatChanges(changes)).toEqual([
      "  breaking  a.gone_for_good  tool removed or renamed",
      "  minor     a.new            tool added",
      "  patch     a.keep           description changed",
    ]);
  });

  it("sums them up by level, and says when nothing changed", () => {
    expect(summaryOf(changes)).toBe("3 changes to the tools (1 breaking, 1 minor, 1 patch)");
    expect(summaryOf([changes[1]])).toBe("1 change to the tools (1 minor)");
    expect(summaryOf([])).toBe("the tools are the same");
    expect(formatChanges([])).toEqual([]);
  });
});
