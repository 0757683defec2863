// The index the tool search ranks with: BM25+ per field over flat postings, MiniSearch's radix tree for prefix and
// typo matching, removal and compaction, and a filter asked only about documents that would make the results.
import SearchableMap from "minisearch/SearchableMap";
import { describe, expect, it } from "vitest";
import type { QueryTerm } from "../src/registry/term-index.js";
import { createTermIndex } from "../src/registry/term-index.js";

const term = (text: string, options: Partial<QueryTerm> = {}): QueryTerm => ({
  term: text,
  boost: 1,
  prefix: false,
  fuzzy: false,
  ...options,
});
const indexOf = () => createTermIndex(SearchableMap, { boosts: [3, 1], bm25: { k: 1.2, b: 0.7, d: 0.5 } });

describe("createTermIndex", () => {
  it("ranks a match in a field with more weight first, and a document matching more of the query's words first", () => {
    const index = indexOf();
    index.add("a", [["file"], ["delete", "path"]]);
    index.add("b", [["delete"], ["file", "path"]]);
    index.add("c", [["label"], ["delete", "card"]]);
    expect(index.search([term("delete")], 5)).toEqual(["b", "a", "c"]);
    expect(
      index
        .search([term("delete"), term("file")], 5)
        .slice(0, 2)
        .sort(),
    ).toEqual(["a", "b"]);
    expect(index.search([term("delete"), term("file")], 1)).toHaveLength(1);
    expect(index.search([term("nothing")], 5)).toEqual([]);
  });

  it("matches longer terms by prefix and misspelt ones by one edit, each counting less than the term itself", () => {
    const index = indexOf();
    index.add("issues", [["issues"], []]);
    index.add("issue", [["issue"], []]);
    index.add("tissue", [["tissue"], []]);
    expect(index.search([term("issue", { prefix: true })], 5)).toEqual(["issue", "issues"]);
    expect(index.search([term("issue", { fuzzy: true })], 5)).toEqual(["issue", "issues", "tissue"]);
    expect(index.search([term("isue", { fuzzy: true })], 5)).toEqual(["issue"]);
  });

  it("counts the terms of one word once towards how many words a document matched", () => {
    const index = indexOf();
    index.add("both", [["remove", "delete"], []]);
    index.add("other", [["remove"], ["folder"]]);
    const query = [term("remove"), term("delete", { boost: 0.5, word: "remove" }), term("folder")];
    expect(index.search(query, 5)).toEqual(["other", "both"]);
  });

  it("asks the filter only about documents that would make the results, and skips those it refuses", () => {
    const index = indexOf();
    for (let i = 0; i < 50; i++) index.add(`t${i}`, [i < 3 ? ["delete", "delete"] : ["delete"], ["x".repeat(i + 1)]]);
    const asked: string[] = [];
    const found = index.search([term("delete")], 2, (key) => {
      asked.push(key);
      return key !== "t0";
    });
    expect(found).toEqual(["t1", "t2"]);
    expect(asked.length).toBeLessThan(10);
  });

  it("forgets a removed or replaced document, and stays right after most documents are gone", () => {
    const index = indexOf();
    for (let i = 0; i < 3000; i++) index.add(`t${i}`, [["common", `only${i}`], []]);
    index.add("t5", [["changed"], []]);
    expect(index.search([term("only5")], 5)).toEqual([]);
    expect(index.search([term("changed")], 5)).toEqual(["t5"]);
    for (let i = 0; i < 2990; i++) if (i !== 5) expect(index.remove(`t${i}`)).toBe(true);
    expect(index.remove("t1")).toBe(false);
    expect(index.size).toBe(11);
    expect(index.search([term("only2995")], 5)).toEqual(["t2995"]);
    expect(index.search([term("common")], 20).sort()).toEqual(
      ["t2990", "t2991", "t2992", "t2993", "t2994", "t2995", "t2996", "t2997", "t2998", "t2999"].sort(),
    );
    index.add("new", [["common", "common"], []]);
    expect(index.search([term("common")], 1)).toEqual(["new"]);
  });

  it("lifts the documents of the owner whose documents the query's other words describe", () => {
    const index = createTermIndex(SearchableMap, {
      boosts: [1],
      bm25: { k: 1.2, b: 0.7, d: 0.5 },
      owners: { fields: [0], weight: 3 },
    });
    index.add("board.delete", [["delete", "card"]], "board");
    index.add("board.move", [["move", "card"]], "board");
    index.add("k8s.delete", [["delete", "resource"]], "k8s");
    index.add("k8s.logs", [["pod", "logs"]], "k8s");
    index.add("k8s.scale", [["scale", "deployment", "pod"]], "k8s");
    const query = [term("delete"), term("pod")];
    expect(index.search(query, 1)).toEqual(["k8s.delete"]);
    expect(index.search([term("delete"), term("card")], 1)).toEqual(["board.delete"]);
    index.remove("k8s.logs");
    index.remove("k8s.scale");
    // Without its pod tools, the k8s owner no longer says anything about pods.
    expect(index.search([term("pod")], 5)).toEqual([]);
  });

  it("forgets owners whose documents are all gone, as a reloaded composition's old instances", () => {
    const index = createTermIndex(SearchableMap, {
      boosts: [1],
      bm25: { k: 1.2, b: 0.7, d: 0.5 },
      owners: { fields: [0], weight: 3 },
    });
    for (let reload = 0; reload < 50; reload++) {
      const owner = { reload };
      index.add("k8s.delete", [["delete", "pod"]], owner);
      index.add("k8s.logs", [["logs", "pod"]], owner);
      index.add("board.delete", [["delete", "card"]], { reload, board: true });
      index.flush();
    }
    expect(index.size).toBe(3);
    expect(index.search([term("delete"), term("pod")], 1)).toEqual(["k8s.delete"]);
    expect(index.search([term("delete"), term("card")], 1)).toEqual(["board.delete"]);
  });

  it("counts an owner's own description once, as one more of its documents holding its terms", () => {
    const index = createTermIndex(SearchableMap, {
      boosts: [1],
      bm25: { k: 1.2, b: 0.7, d: 0.5 },
      owners: { fields: [0], weight: 3 },
    });
    const notes = {};
    index.add("board.search", [["search", "card"]], "board");
    index.add("notes.search", [["search", "note"]], notes);
    expect(index.search([term("search"), term("vault")], 1)).toEqual(["board.search"]);
    index.describe(notes, ["markdown", "vault", "note"]);
    expect(index.search([term("search"), term("vault")], 1)).toEqual(["notes.search"]);
    index.describe(notes, undefined);
    expect(index.search([term("search"), term("vault")], 1)).toEqual(["board.search"]);
  });
});
