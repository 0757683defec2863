import type { Registry } from "@skillport/host";
import type { ComparableTool, SurfaceChange } from "@skillport/tooling";
import { classifyChanges } from "@skillport/tooling";

/**
 * What a swap did to the tools clients see, classified as the lock's checks classify it (breaking, minor, patch):
 * each tool by its full name, its listing as tools/list shows it.
 *
 * @example
 * toolChanges(swap.previous, swap.current); // [{ level: "minor", tool: "notes.tag_note", message: "tool added" }]
 */
export function toolChanges(previous: Pick<Registry, "tools">, current: Pick<Registry, "tools">): SurfaceChange[] {
  return classifyChanges(comparableTools(previous), comparableTools(current));
}

/**
 * The changes as lines for a person: the worst first, each with its level, its tool and what changed, aligned.
 *
 * @example
 * formatChanges([{ level: "breaking", tool: "notes.old", message: "tool removed or renamed" }]);
 * // ["  breaking  notes.old  tool removed or renamed"]
 */
export function formatChanges(changes: readonly SurfaceChange[]): string[] {
  const sorted = [...changes].sort((a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level));
  const width = Math.max(0, ...sorted.map((c) => c.tool.length));
  return sorted.map((c) => `  ${c.level.padEnd(LEVEL_WIDTH)}  ${c.tool.padEnd(width)}  ${c.message}`);
}

/** One line that sums the changes up: how many, and the worst of them. */
export function summaryOf(changes: readonly SurfaceChange[]): string {
  if (changes.length === 0) return "the tools are the same";
  const counts = LEVELS.map((level) => [level, changes.filter((c) => c.level === level).length] as const)
    .filter(([, count]) => count > 0)
    .map(([level, count]) => `${count} ${level}`);
  return `${changes.length} ${changes.length === 1 ? "change" : "changes"} to the tools (${counts.join(", ")})`;
}

// --- internal ---

const LEVELS = ["breaking", "minor", "patch"] as const;
const LEVEL_WIDTH = Math.max(...LEVELS.map((level) => level.length));

function comparableTools(registry: Pick<Registry, "tools">): ComparableTool[] {
  return [...registry.tools.values()].map((entry) => ({
    name: entry.fullName,
    title: entry.listing.title,
    description: entry.listing.description,
    risk: entry.risk,
    inputSchema: entry.listing.inputSchema,
    outputSchema: entry.listing.outputSchema,
  }));
}
