import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, sortKeys } from "../src/json/canonical-json.js";

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

  // A confirmation is bound to a hash of this text: two calls' arguments share it only when they are the same JSON.
  it("is, for any JSON value, the sorted copy's JSON, the same value back when parsed, whatever the order of keys", () => {
    const shuffled = (value: unknown, flip: boolean): unknown => {
      if (Array.isArray(value)) return value.map((item) => shuffled(item, !flip));
      if (typeof value !== "object" || value === null) return value;
      const entries = Object.entries(value).map(([k, v]) => [k, shuffled(v, !flip)] as const);
      return Object.fromEntries(flip ? entries.reverse() : entries);
    };
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (value, other) => {
        const text = canonicalJson(value);
        expect(text).toBe(JSON.stringify(sortKeys(value)));
        // The value back, as JSON writes it (-0 is written 0, as JSON.stringify writes it and every tool reads it).
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(shuffled(value, true))).toBe(text);
        // Different JSON values never share the text (JSON.stringify tells them apart, key order aside).
        const same = JSON.stringify(sortKeys(value)) === JSON.stringify(sortKeys(other));
        expect(canonicalJson(other) === text).toBe(same);
      }),
      { numRuns: 1000 },
    );
  });
});
