// linearRegExp reads a JSON Schema pattern as JavaScript does (the u flag) and runs it with RE2: every pattern here
// answers as `new RegExp(pattern, "u").test` does on every text, and what RE2 cannot run is refused, never run by a
// backtracking RegExp.
import { describe, expect, it } from "vitest";
import { linearRegExp, MAX_PATTERN_TEXT } from "../src/linear-reg-exp.js";

const TEXTS = [
  "",
  "a",
  "aaa",
  "abc",
  "ABC",
  "a\nb",
  "a\rb",
  "a\u2028b",
  "x y",
  "x\u00a0y",
  "x\u3000y",
  "x\ufeffy",
  "x\u000by",
  "x\ty",
  "2026-12-04",
  "é",
  "😀",
  "a😀b",
  "αβγ",
  "-",
  "[",
  "]",
  "\\",
  "/",
  ":",
  "\b",
  "\u0000",
  "foo_bar-9",
  "a.b",
  "{x}",
  "$",
  "^",
];

const PATTERNS = [
  "^(a+)+$",
  "^[a-z0-9_-]+$",
  "^\\d{4}-\\d{2}-\\d{2}$",
  "\\s",
  "\\S",
  "^\\S+$",
  "[\\s]",
  "[\\S]",
  "[^\\s]",
  "[\\s\\S]",
  "^.$",
  "^.*$",
  "a.b",
  "[.]",
  "\\.",
  "^[^]$",
  "^[]$",
  "[\\b]",
  "\\bfoo",
  "a\\B",
  "\\u00e9",
  "\\u{1F600}",
  "\\uD83D\\uDE00",
  "^[\\u{1F600}-\\u{1F64F}]$",
  "\\x41",
  "\\cJ",
  "\\0",
  "\\t|\\n|\\v|\\f|\\r",
  "\\p{L}",
  "^\\p{Lu}+$",
  "\\P{L}",
  "\\p{Script=Greek}",
  "\\p{sc=Greek}",
  "\\p{gc=Ll}",
  "[\\p{L}\\d]",
  "(?<year>\\d{4})",
  "(?:ab)+",
  "a{2,3}",
  "a{2,}?",
  "[a-]",
  "[-a]",
  "[--0]",
  "[a-c-e]",
  "[\\--0]",
  "[\\]]",
  "[\\[]",
  "[[:a]",
  "[\\^]",
  "[^a-z]",
  "\\/",
  "\\$",
  "\\^",
  "\\{x\\}",
  "^$",
  "",
  "\\w+",
  "\\W",
  "\\D",
  "[\\w-]",
];

describe("linearRegExp", () => {
  it.each(PATTERNS)("%s matches as JavaScript's u flag reads it", (pattern) => {
    const native = new RegExp(pattern, "u");
    const linear = linearRegExp(pattern, "u");
    const differ = TEXTS.filter((text) => linear.test(text) !== native.test(text));
    expect(differ).toEqual([]);
  });

  it("differs in one known place: \\B also matches between the halves of a character outside the BMP", () => {
    expect(TEXTS.filter((text) => linearRegExp("\\B").test(text) !== /\B/u.test(text))).toEqual(["a😀b"]);
  });

  it("answers a backtracking pattern's worst case at once", () => {
    const started = performance.now();
    expect(linearRegExp("^(a+)+$").test(`${"a".repeat(MAX_PATTERN_TEXT - 1)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it.each([
    ["^(?=a)a*$", "RE2 has no lookahead (?="],
    ["^(?!a)", "RE2 has no lookahead (?!"],
    ["(?<=a)b", "RE2 has no lookbehind (?<="],
    ["(?<!a)b", "RE2 has no lookbehind (?<!"],
    ["(a)\\1", "RE2 has no backreferences (\\1)"],
    ["(?<x>a)\\k<x>", "RE2 has no backreferences (\\k<name>)"],
    ["a{1001}", "invalid repeat count"],
    ["\\p{scx=Greek}", "Script_Extensions"],
    ["(", "Invalid regular expression"],
    ["\\a", "Invalid regular expression"],
  ])("refuses %s, naming the pattern and the reason", (pattern, reason) => {
    expect(() => linearRegExp(pattern, "u")).toThrow(`the pattern ${JSON.stringify(pattern)} cannot be run`);
    expect(() => linearRegExp(pattern, "u")).toThrow(reason);
  });

  it("tells patterns apart by their text, as ajv keys them", () => {
    expect(String(linearRegExp("^a$"))).toBe("/^a$/u");
    expect(String(linearRegExp("^a$"))).not.toBe(String(linearRegExp("^b$")));
  });

  it("throws a RangeError for a text longer than it runs on", () => {
    expect(() => linearRegExp("a").test("a".repeat(MAX_PATTERN_TEXT + 1))).toThrow(RangeError);
  });

  it("is what the output schema check runs patterns with; its url format is bounded too", async () => {
    const { linearJsonSchemaValidator } = await import("../src/linear-json-schema-validator.js");
    const provider = linearJsonSchemaValidator();
    const patterned = provider.getValidator({ type: "string", pattern: "^(a+)+$" });
    expect(patterned(`${"a".repeat(40)}!`)).toMatchObject({ valid: false });
    expect(patterned("aaa")).toMatchObject({ valid: true, data: "aaa" });
    expect(() => provider.getValidator({ type: "string", pattern: "(?=a)" })).toThrow("RE2 has no lookahead");
    const url = provider.getValidator({ type: "string", format: "url" });
    const started = performance.now();
    expect(url(`ftp://172.30.3.56${"4.1.6.7:155".repeat(16_000)}\u0000`)).toMatchObject({ valid: false });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(url("https://example.com/a")).toMatchObject({ valid: true });
    const draft7 = provider.getValidator({ $schema: "http://json-schema.org/draft-07/schema#", type: "integer" });
    expect(draft7(1)).toMatchObject({ valid: true });
  });
});
