// The tool index over a registry's entries: each server ranked by its tools' words and its SKILL.md, the caller's
// filter, and an update that follows a changed table.
import { describe, expect, it } from "vitest";
import type { ToolEntry } from "../src/entries/tool-entry.js";
import { buildToolIndex, loadRanking } from "../src/registry/tool-search.js";

const entry = (instance: object, mcp: string, name: string, description: string): ToolEntry =>
  ({
    fullName: `${mcp}.${name}`,
    toolName: name,
    instance,
    listing: { name: `${mcp}.${name}`, title: name, description, inputSchema: { type: "object" } },
  }) as unknown as ToolEntry;

describe("buildToolIndex", () => {
  const vault = {};
  const board = {};
  const tools = [
    entry(board, "board", "search_cards", "Searches the cards of a board."),
    entry(board, "board", "move_card", "Moves a card to another list."),
    entry(vault, "notes", "find_notes", "Finds notes by keyword."),
  ];

  it("lifts a skill's tools when the task says what its SKILL.md describes, once per instance", async () => {
    const plain = buildToolIndex(await loadRanking(), tools, new Map());
    expect(plain.search("search my markdown vault", 1).map((e) => e.fullName)).toEqual(["board.search_cards"]);
    const described = buildToolIndex(
      await loadRanking(),
      tools,
      new Map([[vault, "notes Markdown study notes in a vault"]]),
    );
    expect(described.search("search my markdown vault", 1).map((e) => e.fullName)).toEqual(["notes.find_notes"]);
  });

  it("answers only the tools the filter lets through", async () => {
    const index = buildToolIndex(await loadRanking(), tools, new Map());
    const found = index.search("search", 5, (e) => e.instance !== board);
    expect(found.map((e) => e.fullName)).toEqual(["notes.find_notes"]);
  });

  it("follows a changed table: new tools are found, gone ones are not", async () => {
    const index = buildToolIndex(await loadRanking(), tools, new Map());
    const archive = entry(board, "board", "archive_card", "Archives a card.");
    index.update([tools[0] as ToolEntry, tools[2] as ToolEntry, archive], new Map());
    expect(index.size).toBe(3);
    expect(index.search("archive the card", 1).map((e) => e.fullName)).toEqual(["board.archive_card"]);
    expect(index.search("move a card", 5).map((e) => e.fullName)).not.toContain("board.move_card");
  });
});
