// formatJson promises the bytes Biome writes for a .json file under the repository's biome.json, so that generated
// files (manifest.schema.json, every skill lock) pass `biome check` and do not churn. Biome itself is the oracle:
// a corpus of hand-picked edge cases and generated values is laid out, then formatted by Biome, and must not change.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatJson } from "../src/json/format-json.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const BIOME = path.join(REPO, "node_modules/.bin/biome");

/** A long string of `n` characters, to land a value just inside or just past the line width. */
const long = (n: number) => "x".repeat(n);

/** Values placed so that their line ends at 118–122 characters, with and without a comma after them. */
function boundaries(): unknown[] {
  const cases: unknown[] = [];
  for (let n = 100; n <= 112; n++) {
    cases.push({ k: [long(n)] }, { k: [long(n)], z: 1 }, { a: { k: [long(n), 1] } }, [[long(n - 4)], 1]);
    cases.push({ nums: Array.from({ length: n / 2 }, (_, i) => i * 7) });
    cases.push({ nums: Array.from({ length: n / 3 }, (_, i) => (i % 2 === 0 ? -i * 1001 : i)), z: [] });
  }
  return cases;
}

const HAND_PICKED: unknown[] = [
  {},
  [],
  { empty: {}, emptyList: [], list: [{}], nested: [[], [{}]] },
  { nums: [1, 2.5, -3, 1e21, 1.5e-7, 0] },
  { mixed: [1, "a", null, true, false], objects: [{ a: 1 }, { b: [1, 2] }] },
  { deep: [[[1, 2], [3]], [[4, "five"]]] },
  { text: 'quotes " and \\ backslash, \u0001 control, é, 智能体, \u2028 separator, emoji 🎉' },
  { 'key with "quotes"': { "": "empty key" } },
  ...boundaries(),
];

/** Runs Biome's formatter, with the repository's formatter settings, over every file in `dir`. */
async function biomeFormat(dir: string): Promise<void> {
  const repoConfig = JSON.parse(await readFile(path.join(REPO, "biome.json"), "utf8")) as { formatter: unknown };
  await writeFile(path.join(dir, "biome.json"), JSON.stringify({ formatter: repoConfig.formatter }));
  await new Promise<void>((resolve, reject) => {
    const child = spawn(BIOME, ["format", "--write", "--vcs-enabled=false", "cases"], { cwd: dir, stdio: "pipe" });
    let output = "";
    child.stdout.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`biome exited ${code}:\n${output}`))));
  });
}

describe("formatJson", () => {
  it("writes what Biome writes, for edge cases and generated values", async () => {
    const generated = fc.sample(
      fc.jsonValue({ maxDepth: 4, depthSize: "medium" }).map((value) => ({ value, pad: "k".repeat(60) })),
      { numRuns: 300, seed: 12 },
    );
    const corpus = [...HAND_PICKED, ...generated];
    const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-format-json-"));
    try {
      await mkdir(path.join(dir, "cases"));
      const texts = corpus.map((value) => formatJson(value));
      await Promise.all(texts.map((text, i) => writeFile(path.join(dir, "cases", `${i}.json`), text)));
      await biomeFormat(dir);
      const changed: string[] = [];
      for (const [i, text] of texts.entries()) {
        const formatted = await readFile(path.join(dir, "cases", `${i}.json`), "utf8");
        if (formatted !== text) changed.push(`case ${i}:\n--- formatJson\n${text}--- biome\n${formatted}`);
      }
      expect(changed.slice(0, 3).join("\n"), `${changed.length} of ${texts.length} cases differ`).toBe("");
      for (const [i, text] of texts.entries()) expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(corpus[i])));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("keeps keys in the order given and leaves out undefined members, as JSON.stringify does", () => {
    expect(formatJson({ b: 1, a: undefined, c: [undefined] })).toBe('{\n  "b": 1,\n  "c": [null]\n}\n');
  });
});
