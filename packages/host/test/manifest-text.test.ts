import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { HostError } from "../src/errors/host-error.js";
import { loadManifest } from "../src/manifest/load-manifest.js";
import { parseManifestText } from "../src/manifest/manifest-text.js";
import { scratch } from "./helpers.js";

// A manifest is read as JSON with comments and trailing commas (as tsconfig.json and biome.json are), so the
// examples the docs show with their `//` notes load as they are; a syntax error says where, as an editor would.

const COMMENTED = `{
  // the composition's name, shown to clients
  "name": "commented",
  /* a block comment
     over two lines */
  "skills": [
    { "package": "fixture-skill-notebook", "mcp": "nb" }, // a trailing comment
  ],
}
`;

async function written(text: string): Promise<string> {
  const file = path.join(await scratch("skillport-manifest-text-"), "skills.manifest.json");
  await writeFile(file, text);
  return file;
}

describe("a manifest's text", () => {
  it("may have comments and trailing commas: it loads as the same manifest without them", async () => {
    const manifest = await loadManifest(await written(COMMENTED));
    expect(manifest).toMatchObject({ name: "commented", skills: [{ package: "fixture-skill-notebook", mcp: "nb" }] });
  });

  it("is read as JSON.parse reads the same JSON: the last of two keys, a __proto__ key an own (unknown) field", () => {
    expect(parseManifestText('{ "name": "a", "name": "b" }', "m.json")).toEqual({ name: "b" });
    const proto = parseManifestText('{ "__proto__": { "polluted": true }, "skills": [] }', "m.json") as object;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(["__proto__", "skills"]);
    expect(proto).toEqual(JSON.parse('{ "__proto__": { "polluted": true }, "skills": [] }'));
    expect(parseManifestText('\uFEFF{ "skills": [] }', "m.json")).toEqual({ skills: [] });
  });

  it("that is not JSON stops the host with the line, the column, the line itself and a caret", async () => {
    const text = '{\n  "name": "x"\n  "skills": []\n}\n';
    const file = await written(text);
    const error = (await loadManifest(file).catch((e: unknown) => e)) as HostError;
    expect(error).toMatchObject({ code: "MANIFEST_INVALID" });
    expect(error.message).toBe(
      [
        `[skillport] cannot start: 1 problem in ${file}:`,
        '  - line 3, column 3: expected "," between two entries; a manifest is JSON, with comments and trailing commas allowed',
        '    2 |   "name": "x"',
        '    3 |   "skills": []',
        "      |   ^",
      ].join("\n"),
    );
    expect(error.message).not.toMatch(/position/);
  });

  it("puts the caret under the place on a long line, and after tabs as the line has them", () => {
    const long = `{ "skills": [], "name": "${"x".repeat(300)}" "version": "1" }`;
    const thrown = (() => {
      try {
        parseManifestText(long, "m.json");
      } catch (error) {
        return error as HostError;
      }
    })();
    const [problem = ""] = thrown?.problems ?? [];
    const [, shown = "", caret = ""] = problem.split("\n");
    expect(problem).toMatch(/^line 1, column 328: /);
    expect(shown.length).toBeLessThan(130);
    expect(shown[caret.indexOf("^")]).toBe('"');
    const tabbed = (() => {
      try {
        parseManifestText('{\n\t\t"a": 1 "b"\n}', "m.json");
      } catch (error) {
        return (error as HostError).problems[0] ?? "";
      }
    })();
    expect(tabbed?.split("\n").slice(-1)[0]).toBe("  | \t\t       ^");
  });

  it("that is empty, or stops in the middle, says what is missing", () => {
    for (const [text, expected] of [
      ["", "line 1, column 1: expected a value"],
      ['{ "skills": [', 'line 1, column 14: expected "]" to close the list'],
      ['{ "skills": [] /* open', "line 1, column 16: this comment is not closed"],
      ['{ "name": "x', "line 1, column 11: this string is not closed"],
    ] as const) {
      expect(() => parseManifestText(text, "m.json"), JSON.stringify(text)).toThrow(expected);
    }
  });
});
