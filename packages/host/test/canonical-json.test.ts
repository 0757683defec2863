import { describe, expect, it } from "vitest";
import { canonicalJson, sortKeys } from "../src/canonical-json.js";

// canonicalJson writes the text directly (lock hashes are checked at every start): it must be exactly the text of
// the sorted copy, or every lock written before would stop matching.

const VALUES: unknown[] = [
  null,
  undefined,
  0,
  -1.5,
  Number.NaN,
  'a "quoted" \n line \u2028 é',
  true,
  [],
  {},
  [1, undefined, null, "x", [[]], { b: 1, a: 2 }],
  { z: 1, a: undefined, m: [3, { y: null, x: () => 1 }], "": "empty", é: 1, B: 2, b: 3, 10: "ten", 9: "nine" },
  { nested: { deeper: { deepest: [{ c: 3, b: 2, a: 1 }] } }, list: [{ q: 1 }, { p: 2 }] },
  new Date(0),
  {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1, maxLength: 200, description: "Words to look for" },
      sort: { type: "string", enum: ["relevance", "newest", "oldest"], default: "relevance" },
    },
    required: ["query"],
    additionalProperties: false,
  },
];

describe("canonicalJson", () => {
  it("is the JSON of the value with its keys sorted and undefined members left out", () => {
    for (const value of VALUES) {
      expect(canonicalJson(value)).toBe(JSON.stringify(sortKeys(value)) ?? "null");
    }
  });

  it("does not depend on the order of keys", () => {
    expect(canonicalJson({ a: 1, b: { c: 2, d: [1, 2] } })).toBe(canonicalJson({ b: { d: [1, 2], c: 2 }, a: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});
