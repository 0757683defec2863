import { RE2JS } from "re2js";

/** What ajv needs of a compiled pattern (`code.regExp`'s result): a search, and a distinct text per pattern. */
export interface LinearRegExp {
  /** Whether the pattern matches anywhere in `text`, as `RegExp.prototype.test` does for a pattern without flags. */
  test(text: string): boolean;
  /** `/pattern/u`: ajv tells patterns apart by it. */
  toString(): string;
}

/** The longest text a pattern is run on; a longer one throws a RangeError instead of being searched. */
export const MAX_PATTERN_TEXT = 100_000;

/**
 * A JSON Schema `pattern` (ECMA-262 with the `u` flag) compiled for RE2 (re2js): every search takes time linear in
 * the text, whatever the pattern (`"^(a+)+$"` on `"aaa…!"` answers at once), and a text longer than
 * {@link MAX_PATTERN_TEXT} characters throws a RangeError rather than be searched (linear is not free: a few patterns
 * cost about half a microsecond a character). The pattern is read as JavaScript reads it (`\s`, `.`, `\u{…}`,
 * `[\b]`, `\p{Script=…}` keep their JavaScript meaning); what RE2 cannot run — lookarounds, backreferences, a
 * repeat count above 1000 — throws an Error naming the pattern and the reason, never falling back to a
 * backtracking RegExp. Fits ajv's `code.regExp` option.
 *
 * @example
 * const ajv = new Ajv2020({ code: { regExp: linearRegExp } });
 * linearRegExp("^(a+)+$").test(`${"a".repeat(40)}!`); // false, in microseconds
 */
export function linearRegExp(pattern: string, _flags?: string): LinearRegExp {
  let compiled: RE2JS;
  try {
    // Read as ajv reads a pattern (the u flag) first: an invalid pattern is refused, as ajv refuses it.
    new RegExp(pattern, "u");
    compiled = RE2JS.compile(toRe2(pattern));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `[skillport-client] the pattern ${JSON.stringify(pattern)} cannot be run in linear time (RE2): ${reason}`,
    );
  }
  const text = `/${pattern}/u`;
  return {
    test(input) {
      if (input.length > MAX_PATTERN_TEXT) {
        throw new RangeError(
          `a string of ${input.length} characters is longer than the ${MAX_PATTERN_TEXT} the pattern ${JSON.stringify(pattern)} is run on`,
        );
      }
      return compiled.test(input);
    },
    toString: () => text,
  };
}

// --- internal ---

/** ECMAScript's `\s`: WhiteSpace and LineTerminator, as code point ranges. */
const SPACE: readonly (readonly [number, number])[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;
/** Everything but `\s`. */
const NOT_SPACE = complement(SPACE);
/** ECMAScript's line terminators, which `.` does not match. */
const LINE_TERMINATORS: readonly (readonly [number, number])[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
const ANY = `[${ranges([[0, MAX_CODE_POINT]])}]`;
const NOTHING = `[^${ranges([[0, MAX_CODE_POINT]])}]`;

/** Thrown for what RE2 has no form of; its message is the reason. */
class Unsupported extends Error {}

/**
 * Rewrites a valid ECMAScript `u` pattern in RE2's syntax with the same meaning. Outside a class, characters other
 * than escapes, `.`, `[` and `(` mean the same in both. Inside a class, every character is written as `\x{…}`, so
 * no RE2 class syntax (`[:alpha:]`) can be formed by accident.
 */
function toRe2(pattern: string): string {
  const chars = Array.from(pattern); // code points, as the u flag reads them
  let out = "";
  let i = 0;
  while (i < chars.length) {
    const c = chars[i] as string;
    if (c === "\\") {
      const escaped = readEscape(chars, i + 1, false);
      out += escaped.text;
      i = escaped.end;
    } else if (c === "[") {
      const cls = readClass(chars, i + 1);
      out += cls.text;
      i = cls.end;
    } else if (c === ".") {
      out += `[^${ranges(LINE_TERMINATORS)}]`;
      i++;
    } else if (c === "(" && chars[i + 1] === "?") {
      const next = chars[i + 2];
      const after = chars[i + 3];
      if (next === "=" || next === "!") throw new Unsupported(`RE2 has no lookahead (?${next}`);
      if (next === "<" && (after === "=" || after === "!")) throw new Unsupported(`RE2 has no lookbehind (?<${after}`);
      if (next === "<") {
        out += "(?P<";
        i += 3;
      } else if (next === ":") {
        out += "(?:";
        i += 3;
      } else throw new Unsupported(`RE2 does not read the group modifier (?${next ?? ""}`);
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** One escape, `chars[at]` being the character after the backslash: its RE2 text and where it ends. */
function readEscape(chars: readonly string[], at: number, inClass: boolean): { text: string; end: number } {
  const c = chars[at] ?? "";
  const one = (text: string) => ({ text, end: at + 1 });
  switch (c) {
    case "d":
    case "D":
    case "w":
    case "W":
      return one(`\\${c}`); // ASCII in both, without the i flag
    case "s":
      return one(inClass ? ranges(SPACE) : `[${ranges(SPACE)}]`);
    case "S":
      return one(inClass ? ranges(NOT_SPACE) : `[${ranges(NOT_SPACE)}]`);
    case "b":
      return one(inClass ? codePoint(0x08) : "\\b");
    case "B":
      return one("\\B");
    case "t":
      return one(codePoint(0x09));
    case "n":
      return one(codePoint(0x0a));
    case "v":
      return one(codePoint(0x0b));
    case "f":
      return one(codePoint(0x0c));
    case "r":
      return one(codePoint(0x0d));
    case "0":
      return one(codePoint(0));
    case "c":
      return { text: codePoint((chars[at + 1] as string).charCodeAt(0) % 32), end: at + 2 };
    case "x":
      return { text: codePoint(Number.parseInt(chars.slice(at + 1, at + 3).join(""), 16)), end: at + 3 };
    case "u":
      return readUnicodeEscape(chars, at);
    case "p":
    case "P":
      return readProperty(chars, at);
    case "k":
      throw new Unsupported("RE2 has no backreferences (\\k<name>)");
    default:
      if (c >= "1" && c <= "9") throw new Unsupported(`RE2 has no backreferences (\\${c})`);
      // A syntax character (or "-" in a class) taken literally.
      return one(codePoint(c.codePointAt(0) as number));
  }
}

/** `\uXXXX` (a surrogate pair written as two is one code point, as the u flag reads it) or `\u{…}`. */
function readUnicodeEscape(chars: readonly string[], at: number): { text: string; end: number } {
  if (chars[at + 1] === "{") {
    const close = chars.indexOf("}", at + 2);
    return { text: codePoint(Number.parseInt(chars.slice(at + 2, close).join(""), 16)), end: close + 1 };
  }
  const high = Number.parseInt(chars.slice(at + 1, at + 5).join(""), 16);
  if (high >= 0xd800 && high <= 0xdbff && chars[at + 5] === "\\" && chars[at + 6] === "u") {
    const low = Number.parseInt(chars.slice(at + 7, at + 11).join(""), 16);
    if (low >= 0xdc00 && low <= 0xdfff) {
      return { text: codePoint(0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)), end: at + 11 };
    }
  }
  return { text: codePoint(high), end: at + 5 };
}

/** `\p{…}` / `\P{…}`: `Script=X`, `sc=X`, `General_Category=X` and `gc=X` as RE2's `\p{X}`; other names as written. */
function readProperty(chars: readonly string[], at: number): { text: string; end: number } {
  const close = chars.indexOf("}", at + 2);
  const body = chars.slice(at + 2, close).join("");
  const [key, value] = body.includes("=") ? body.split("=") : [undefined, body];
  if (key === "Script_Extensions" || key === "scx")
    throw new Unsupported(`RE2 has no Script_Extensions (\\p{${body}})`);
  return { text: `\\${chars[at]}{${value}}`, end: close + 1 };
}

/** A class, `chars[at]` being the character after `[`: ranges of code points, each end written as `\x{…}`. */
function readClass(chars: readonly string[], at: number): { text: string; end: number } {
  let i = at;
  const negated = chars[i] === "^";
  if (negated) i++;
  // Atoms: a code point, a set's RE2 text (\d, \s, \p{…}), or "-" as written (a range's dash, or itself).
  const atoms: ({ point: number } | { set: string } | "-")[] = [];
  while (chars[i] !== "]") {
    const c = chars[i] as string;
    if (c === "\\") {
      const escaped = readEscape(chars, i + 1, true);
      const single = /^\\x\{([0-9a-f]+)\}$/.exec(escaped.text);
      atoms.push(single === null ? { set: escaped.text } : { point: Number.parseInt(single[1] as string, 16) });
      i = escaped.end;
    } else {
      atoms.push(c === "-" ? "-" : { point: c.codePointAt(0) as number });
      i++;
    }
  }
  if (atoms.length === 0) return { text: negated ? ANY : NOTHING, end: i + 1 };
  const pointOf = (atom: (typeof atoms)[number] | undefined) =>
    atom === "-" ? 0x2d : atom !== undefined && "point" in atom ? atom.point : undefined;
  let body = "";
  for (let k = 0; k < atoms.length; k++) {
    const from = pointOf(atoms[k]);
    const to = atoms[k + 1] === "-" ? pointOf(atoms[k + 2]) : undefined;
    if (from !== undefined && to !== undefined) {
      body += `${codePoint(from)}-${codePoint(to)}`;
      k += 2;
    } else if (from !== undefined) body += codePoint(from);
    else body += (atoms[k] as { set: string }).set;
  }
  return { text: `[${negated ? "^" : ""}${body}]`, end: i + 1 };
}

function codePoint(point: number): string {
  return `\\x{${point.toString(16)}}`;
}

function ranges(list: readonly (readonly [number, number])[]): string {
  return list.map(([from, to]) => (from === to ? codePoint(from) : `${codePoint(from)}-${codePoint(to)}`)).join("");
}

function complement(list: readonly (readonly [number, number])[]): (readonly [number, number])[] {
  const out: (readonly [number, number])[] = [];
  let next = 0;
  for (const [from, to] of list) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}
