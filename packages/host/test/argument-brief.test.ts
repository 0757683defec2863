// The brief an upstream tool's confirmation question shows: every argument named, on its own line, where the call
// acts first; values shortened in the middle with their length; nothing invisible, nothing that reads as another line.
import { describe, expect, it } from "vitest";
import { createArgumentBrief } from "../src/entries/argument-brief.js";
import { showInvisible } from "../src/entries/show-invisible.js";

const TIDY = {
  type: "object",
  properties: { note: { type: "string" }, path: { type: "string" } },
  required: ["path"],
};
const tidy = createArgumentBrief({ heading: "Call tidy on files", schema: TIDY });

/** The lines after the heading, as `key` → what follows `key: `. */
function valuesOf(lines: string[]): Map<string, string> {
  return new Map(
    lines.slice(1).map((line) => {
      const at = line.indexOf(": ");
      return [line.slice(2, at), line.slice(at + 2)];
    }),
  );
}

describe("an argument brief", () => {
  it("names the path after a 5,000-character note, the note shortened in the middle with its length", () => {
    const note = `tidy-up of /tmp/build-cache ${"a".repeat(4969)}END`;
    const lines = tidy({ note, path: "/home/user/.ssh" });
    expect(lines[0]).toBe("Call tidy on files with 2 arguments:");
    expect(lines[1]).toBe('  path: "/home/user/.ssh"');
    expect(lines[2]).toMatch(/^ {2}note: "tidy-up of \/tmp\/build-cache a+…a+END" \(5,000 chars\)$/);
    expect((lines[2] as string).length).toBeLessThan(300);
  });

  it("writes a short value whole, without a length, and says when there are no arguments", () => {
    expect(tidy({ path: "/tmp/x", note: "why" })).toEqual([
      "Call tidy on files with 2 arguments:",
      '  path: "/tmp/x"',
      '  note: "why"',
    ]);
    expect(tidy({ path: "/tmp/x" })).toEqual(["Call tidy on files with 1 argument:", '  path: "/tmp/x"']);
    expect(tidy({})).toEqual(["Call tidy on files with no arguments"]);
  });

  it("writes numbers, booleans and null as JSON does", () => {
    const brief = createArgumentBrief({ heading: "Call t on s", schema: {} });
    expect(brief({ n: -1.5e21, yes: true, none: null })).toEqual([
      "Call t on s with 3 arguments:",
      "  n: -1.5e+21",
      "  yes: true",
      "  none: null",
    ]);
  });

  describe("orders", () => {
    const schema = {
      type: "object",
      properties: {
        comment: { type: "string" },
        mode: { type: "string" },
        where: { type: "string", format: "path" },
        outputFile: { type: "string" },
        link: { type: "string", format: "uri" },
        target_dir: { type: "string" },
        force: { type: "boolean" },
        hosts: { type: "array", items: { type: "string", format: "hostname" } },
      },
      required: ["force", "mode"],
    };
    const brief = createArgumentBrief({ heading: "Call t on s", schema });

    it("keys with a place's format first, then keys named like one, then required keys, then the rest", () => {
      const args = {
        comment: "c",
        mode: "m",
        extra: "e",
        outputFile: "o",
        force: true,
        target_dir: "t",
        where: "w",
        cmd: "rm",
        link: "l",
        hosts: ["h"],
      };
      const keys = [...valuesOf(brief(args)).keys()];
      expect(keys).toEqual([
        "where",
        "link",
        "hosts",
        "outputFile",
        "target_dir",
        "cmd",
        "mode",
        "force",
        "comment",
        "extra",
      ]);
    });

    it("in the order the call gave them within a rank, and a format under anyOf counts", () => {
      const alternatives = createArgumentBrief({
        heading: "Call t on s",
        schema: { properties: { b: { anyOf: [{ type: "null" }, { type: "string", format: "uri" }] } } },
      });
      expect([...valuesOf(alternatives({ z: 1, a: 2, b: "x" })).keys()]).toEqual(["b", "z", "a"]);
    });

    it("reads a key's words whatever its case: camelCase, snake_case, kebab-case, dotted", () => {
      const plain = createArgumentBrief({ heading: "Call t on s", schema: {} });
      const args = { a: 1, destinationFolder: 2, "x-url": 3, "config.path": 4, FILE: 5, profile: 6, sourcery: 7 };
      expect([...valuesOf(plain(args)).keys()]).toEqual([
        "destinationFolder",
        "x-url",
        "config.path",
        "FILE",
        "a",
        "profile",
        "sourcery",
      ]);
    });
  });

  describe("escapes", () => {
    it("every control, bidirectional and invisible character with the host's one escaper", () => {
      const value = "invoice\u202Efdp.exe\u2066\u200B\u0000\u0007\u{E0041}\u2028";
      const [, line] = tidy({ path: value });
      expect(line).toBe(`  path: "${showInvisible(value)}"`);
      expect(line).toBe('  path: "invoice\\u{202E}fdp.exe\\u{2066}\\u{200B}\\u{0000}\\u{0007}\\u{E0041}\\u{2028}"');
    });

    it("so a value cannot end early or write a line of its own", () => {
      const lines = tidy({ note: 'ok" (2 chars)\n  path: "/tmp/safe', path: "/home/user/.ssh" });
      expect(lines).toEqual([
        "Call tidy on files with 2 arguments:",
        '  path: "/home/user/.ssh"',
        '  note: "ok\\" (2 chars)\\u{000A}  path: \\"/tmp/safe"',
      ]);
      expect(tidy({ path: 'a\\"b' })[1]).toBe('  path: "a\\\\\\"b"');
    });

    it("keys too: a plain name bare, any other quoted and escaped, a long one shortened", () => {
      const plain = createArgumentBrief({ heading: "Call t on s", schema: {} });
      const lines = plain({ "pa\u202Eth": 1, "": 2, "two words": 3, ["k".repeat(5000)]: 4 });
      expect(lines.slice(1, 4)).toEqual(['  "pa\\u{202E}th": 1', '  "": 2', '  "two words": 3']);
      expect(lines[4]).toMatch(/^ {2}"k+…k+" \(5,000 chars\): 4$/);
      expect((lines[4] as string).length).toBeLessThan(100);
    });
  });

  describe("shortens in the middle", () => {
    it("keeping the first and last characters of the value", () => {
      const value = `/head/${"x".repeat(1000)}/tail`;
      const shown = valuesOf(tidy({ path: value })).get("path") as string;
      expect(shown).toMatch(/^"\/head\/x+…x+\/tail" \(1,011 chars\)$/);
    });

    it("never through a surrogate pair or an escape, and counts characters, not UTF-16 units", () => {
      const emoji = valuesOf(tidy({ path: "😀".repeat(1000) })).get("path") as string;
      expect(emoji).toMatch(/^"(😀)+…(😀)+" \(1,000 chars\)$/u);
      const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
      for (let shift = 0; shift < 4; shift++) {
        const odd = valuesOf(tidy({ path: `${"a".repeat(shift)}${"😀".repeat(500)}${"b".repeat(shift)}` })).get("path");
        expect(odd).not.toMatch(LONE);
        expect(odd).toContain(`(${500 + 2 * shift} chars)`);
      }
      const ends = valuesOf(tidy({ path: `\u202E${"a".repeat(1000)}\u2066` })).get("path") as string;
      expect(ends).toMatch(/^"\\u\{202E\}a+…a+\\u\{2066\}" \(1,002 chars\)$/);
      const overrides = valuesOf(tidy({ path: "\u202E".repeat(1000) })).get("path") as string;
      expect(overrides).toMatch(/^"(\\u\{202E\})+…(\\u\{202E\})+" \(1,000 chars\)$/);
      // A short value whose escapes would not fit is shortened too, and says how long it really is.
      const short = createArgumentBrief({ heading: "Call t on s", schema: {} });
      const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, "\u200B".repeat(20)]));
      const zeroWidth = valuesOf(short(many)).get("k0") as string;
      expect(zeroWidth).toMatch(/^"(\\u\{200B\})+…(\\u\{200B\})+" \(20 chars\)$/);
    });

    it("a huge value in a line of bounded length, reading only its ends", () => {
      const huge = "z".repeat(4 * 1024 * 1024);
      const lines = tidy({ note: huge, path: huge });
      expect(lines).toHaveLength(3);
      for (const line of lines.slice(1)) {
        expect(line).toMatch(/: "z+…z+" \(4,194,304 chars\)$/);
        expect(line.length).toBeLessThan(300);
      }
    });
  });

  describe("with many arguments", () => {
    it("names every key, each once on its own line, values shrunk rather than keys dropped", () => {
      const plain = createArgumentBrief({ heading: "Call t on s", schema: TIDY });
      const args: Record<string, unknown> = Object.fromEntries(
        Array.from({ length: 5000 }, (_, i) => [`key${i}`, `${i}:${"v".repeat(1000)}`]),
      );
      args.path = "/home/user/.ssh";
      const lines = plain(args);
      expect(lines[0]).toBe("Call t on s with 5,001 arguments:");
      expect(lines[1]).toBe('  path: "/home/user/.ssh"');
      expect(lines).toHaveLength(5002);
      const values = valuesOf(lines);
      expect([...values.keys()].sort()).toEqual(Object.keys(args).sort());
      for (let i = 0; i < 5000; i++) {
        const shown = values.get(`key${i}`) as string;
        expect(shown.startsWith(`"${i}:`), shown).toBe(true);
        expect(shown, shown).toMatch(/^"\d+:v*…v+" \(1,00\d chars\)$/);
        expect(shown.length).toBeLessThan(60);
      }
    });

    it("gives what short values leave to the long ones", () => {
      const plain = createArgumentBrief({ heading: "Call t on s", schema: {} });
      const args: Record<string, unknown> = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`n${i}`, i]));
      args.body = "b".repeat(5000);
      const body = valuesOf(plain(args)).get("body") as string;
      // Thirty numbers need little: the body gets a value's most, as if it were alone.
      expect(body).toBe(valuesOf(plain({ body: args.body })).get("body"));
      expect(body.length).toBeGreaterThan(200);
    });
  });

  describe("writes nested values compactly", () => {
    it("objects and arrays whole when they fit, nested keys ordered the same way", () => {
      const schema = {
        properties: { options: { properties: { recursive: { type: "boolean" }, into: { format: "path" } } } },
      };
      const brief = createArgumentBrief({ heading: "Call t on s", schema });
      expect(brief({ options: { recursive: true, tags: ["a", "b"], into: "/x", empty: {}, none: [] } })[1]).toBe(
        '  options: {into: "/x", recursive: true, tags: ["a", "b"], empty: {}, none: []}',
      );
    });

    it("every string in them shortened, so a long member cannot hide a later one", () => {
      const brief = createArgumentBrief({ heading: "Call t on s", schema: {} });
      const shown = brief({ job: { a: "x".repeat(5000), b: "y".repeat(5000), path: "/home/user/.ssh" } })[1] as string;
      expect(shown).toContain('path: "/home/user/.ssh"');
      expect(shown).toMatch(/a: "x+…x+" \(5,000 chars\)/);
      expect(shown).toMatch(/b: "y+…y+" \(5,000 chars\)/);
      expect(shown.length).toBeLessThan(400);
    });

    it("a long list by its first and last members, naming how many are left out and how many there are", () => {
      const brief = createArgumentBrief({ heading: "Call t on s", schema: {} });
      const list = Array.from({ length: 100_000 }, (_, i) => i);
      const shown = valuesOf(brief({ list })).get("list") as string;
      expect(shown).toMatch(/^\[0, 1, 2, .*, …\([\d,]+ more items\)…, .*99998, 99999\] \(100,000 items\)$/);
      const [front, back] = shown.replace(/ \(100,000 items\)$/, "").split(/, …\([\d,]+ more items\)…, /);
      const kept = (front as string).slice(1).split(", ").length + (back as string).slice(0, -1).split(", ").length;
      const left = Number(/…\(([\d,]+) more/.exec(shown)?.[1]?.replace(/,/g, ""));
      expect(kept + left).toBe(100_000);
      expect(shown.length).toBeLessThan(300);
      const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`m${i}`, i]));
      expect(valuesOf(brief({ wide })).get("wide")).toMatch(
        /^\{m0: 0, .*, …\([\d,]+ more keys\)…, .*m999: 999\} \(1,000 keys\)$/,
      );
    });

    it("deep ones down to a depth, deeper containers named with their size", () => {
      const brief = createArgumentBrief({ heading: "Call t on s", schema: {} });
      const shown = brief({ a: { b: { c: { d: { e: { f: 1 }, g: 2 }, h: [[[1, 2, 3]]] } } } })[1];
      expect(shown).toBe("  a: {b: {c: {d: {e: {…(1 key)}, g: 2}, h: [[…(1 item)]]}}}");
    });

    it("escaped like any value", () => {
      const brief = createArgumentBrief({ heading: "Call t on s", schema: {} });
      expect(brief({ o: { "k\u202E": ["v\u2066\n"] } })[1]).toBe('  o: {"k\\u{202E}": ["v\\u{2066}\\u{000A}"]}');
    });
  });
});
