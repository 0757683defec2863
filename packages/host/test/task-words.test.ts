// A task's words before the ranking: argument values said as what they are, and everyday words matched with the
// words descriptions use (a synonym counts less than the task's own word).
import { stemmer } from "stemmer";
import { describe, expect, it } from "vitest";
import type { ToolEntry } from "../src/entries/tool-entry.js";
import { synonymsOf, taskWords } from "../src/registry/task-words.js";
import { buildToolIndex, loadRanking } from "../src/registry/tool-search.js";

describe("taskWords", () => {
  it("says a URL, a file name and a number as what they are", () => {
    expect(taskWords("summarize https://example.com/a.pdf")).toBe("summarize  url ");
    expect(taskWords("remove old-notes.txt now")).toBe("remove  file  now");
    expect(taskWords("add 17 and 25")).toBe("add  number  and  number ");
  });

  it("keeps names that end like a file but are libraries", () => {
    expect(taskWords("docs for next.js")).toBe("docs for next.js");
  });
});

describe("synonymsOf", () => {
  it("gives each stemmed word the other words of its groups, stemmed", () => {
    const synonyms = synonymsOf(stemmer);
    expect(synonyms.get(stemmer("remove"))).toContain(stemmer("delete"));
    expect(synonyms.get(stemmer("folder"))).toEqual([stemmer("directory")]);
    expect(synonyms.get(stemmer("hello"))).toBeUndefined();
  });
});

describe("the index with synonyms", () => {
  const entry = (name: string, description: string): ToolEntry =>
    ({
      fullName: `t.${name}`,
      toolName: name,
      instance: {},
      listing: { name: `t.${name}`, title: name, description, inputSchema: { type: "object" } },
    }) as unknown as ToolEntry;

  it("finds tools described with other words than the task's, and first the tool that matches the task's own", async () => {
    const index = buildToolIndex(
      await loadRanking(),
      [
        entry("delete_directory", "Deletes a directory and everything in it."),
        entry("remove_label", "Removes a label from a card."),
        entry("list_cards", "Lists the cards on a board."),
      ],
      new Map(),
    );
    // remove → delete, folder → directory: two synonyms outweigh one word of the task's own.
    expect(index.search("remove the build folder", 3).map((e) => e.toolName)).toEqual([
      "delete_directory",
      "remove_label",
    ]);
    expect(index.search("remove a thing", 3).map((e) => e.toolName)).toEqual(["remove_label", "delete_directory"]);
  });
});
