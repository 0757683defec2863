// `skillport new` in this repository: its entry goes into the repository's own manifest byte for byte as the rest
// stays, and what it writes passes Biome as the repository configures it. (Scaffolding, building and testing a new
// skill: new.test.ts.)
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertSkillEntry } from "../src/insert-skill-entry.js";
import { BIN, makeWorkspace, run } from "./new-workspace.js";
import { REPO, runCli } from "./workspace.js";

describe("skillport new keeps the repository green", () => {
  let ws: string;
  const BIOME = path.join(BIN, "biome");

  beforeAll(async () => {
    ws = await makeWorkspace();
    await cp(path.join(REPO, "biome.json"), path.join(ws, "biome.json"));
  });
  afterAll(() => rm(ws, { recursive: true, force: true }));

  it("adds its entry to the repository's own manifest and changes nothing else in it, byte for byte", async () => {
    const original = await readFile(path.join(REPO, "skills.manifest.json"), "utf8");
    await writeFile(path.join(ws, "skills.manifest.json"), original);
    // Not "weather": the authoring flow's clone runs this test with a weather skill already in the manifest.
    const created = await runCli(["new", "forecast"], ws);
    expect(created.code, created.stderr).toBe(0);
    const updated = await readFile(path.join(ws, "skills.manifest.json"), "utf8");
    const end = original.lastIndexOf("}", original.lastIndexOf("]")) + 1; // after the last entry
    const entry = '{ "path": "./skills/skill-forecast", "mcp": "forecast", "enabled": false }';
    expect(updated).toBe(`${original.slice(0, end)},\n    ${entry}${original.slice(end)}`);
  });

  it("writes files that pass Biome as the repository configures it, whatever the name's length", async () => {
    for (const name of ["git-history", "a2", "a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p", "abcdefghijklmnopqrstuvwxyzabcde"]) {
      const created = await runCli(["new", name], ws);
      expect(created.code, created.stderr).toBe(0);
    }
    const checked = await run(BIOME, ["check", "--vcs-enabled=false", "skills.manifest.json", "skills"], ws);
    expect(checked.code, checked.output).toBe(0);
  });

  it("inserts into any manifest Biome formatted so that Biome leaves the result as it is", async () => {
    // Biome lays out anew a manifest whose object was on one line and no longer fits there: these start expanded.
    const manifests = [
      '{"skills":[]}',
      '{\n "name": "x", "skills": [{ "package": "a" }], "separator": "_" }',
      `{\n "skills": [{ "package": "@acme/skill-with-a-rather-long-name", "mcp": "rather-long", "config": { "k": "v" } }] }`,
      '{\r\n  "skills": [\r\n    { "package": "a", "config": { "text": "] \\" [ }" } }\r\n  ],\r\n  "name": "crlf"\r\n}\r\n',
      '{\n\t"skills": [\n\t\t{\n\t\t\t"package": "a"\n\t\t}\n\t]\n}\n',
      '{\n "skills": [1], "skills": [{ "package": "last-wins" }] }',
    ];
    const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-insert-"));
    try {
      await writeFile(path.join(dir, "biome.json"), await readFile(path.join(REPO, "biome.json")));
      await mkdir(path.join(dir, "in"));
      await mkdir(path.join(dir, "out"));
      await Promise.all(manifests.map((m, i) => writeFile(path.join(dir, "in", `${i}.json`), m)));
      const formatIn = await run(BIOME, ["format", "--write", "--vcs-enabled=false", "in"], dir);
      expect(formatIn.code, formatIn.output).toBe(0);
      const entry = { path: "./skills/skill-weather-station-with-a-long-name", mcp: "weather", enabled: false };
      const outputs: string[] = [];
      for (const i of manifests.keys()) {
        const input = await readFile(path.join(dir, "in", `${i}.json`), "utf8");
        const output = insertSkillEntry(input, entry) as string;
        expect(JSON.parse(output).skills.at(-1)).toEqual(entry);
        outputs.push(output);
        await writeFile(path.join(dir, "out", `${i}.json`), output);
      }
      const formatOut = await run(BIOME, ["format", "--write", "--vcs-enabled=false", "out"], dir);
      expect(formatOut.code, formatOut.output).toBe(0);
      for (const [i, output] of outputs.entries()) {
        expect(await readFile(path.join(dir, "out", `${i}.json`), "utf8"), `manifest ${i}`).toBe(output);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps a manifest's own line endings and indentation", () => {
    const crlf = '{\r\n\t"skills": [\r\n\t\t{ "package": "a" }\r\n\t],\r\n\t"name": "crlf"\r\n}\r\n';
    expect(insertSkillEntry(crlf, { path: "./b" })).toBe(
      '{\r\n\t"skills": [\r\n\t\t{ "package": "a" },\r\n\t\t{ "path": "./b" }\r\n\t],\r\n\t"name": "crlf"\r\n}\r\n',
    );
  });

  it("refuses a manifest without a skills list, leaving it as it is", async () => {
    await writeFile(path.join(ws, "skills.manifest.json"), '{ "name": "no-skills" }\n');
    const created = await runCli(["new", "orphan"], ws);
    expect(created.code).toBe(1);
    expect(created.stderr).toContain('has no "skills" list');
    expect(insertSkillEntry("[]", {})).toBeUndefined();
  });
});
