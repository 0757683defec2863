import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertSkillEntry } from "../src/insert-skill-entry.js";
import type { Workspace } from "./workspace.js";
import { connectStdio, makeWorkspace, NOTES_SKILL, runCli } from "./workspace.js";

// A manifest may carry comments and trailing commas, as every example in the docs does: each command reads it, and
// the commands that write beside it or into it (lock, new) keep every comment where it was.

const COMMENTED = `{
  // served to the team's agents
  "name": "commented",
  "skills": [
    /* the notes, over the workspace's copy of the vault */
    { "path": ${JSON.stringify(NOTES_SKILL)}, "mcp": "notes", "config": { "vault": "./vault" } }, // read-only use
  ],
}
`;

describe("a manifest with comments", () => {
  let ws: Workspace;
  let manifest: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    manifest = await ws.writeManifest(COMMENTED, "commented.manifest.json");
  });
  afterAll(() => ws.dispose());

  it("is listed, checked, locked and served; lock leaves it byte for byte, and serve starts from that lock", async () => {
    const listed = await runCli(["list", "--manifest", manifest], ws.dir);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("notes.search_notes");
    const checked = await runCli(["check", "--manifest", manifest], ws.dir);
    expect(checked.stdout, checked.stderr).toMatch(/^✔ /m);
    const locked = await runCli(["lock", "--manifest", manifest], ws.dir);
    expect(locked.code, locked.stderr).toBe(0);
    expect(await readFile(manifest, "utf8")).toBe(COMMENTED);
    const served = await connectStdio(manifest, ws.dir, { args: ["--frozen-lock"] });
    try {
      await served.ready;
      const { tools } = await served.client.listTools();
      expect(tools.map((t) => t.name)).toContain("notes.search_notes");
    } finally {
      await served.client.close();
    }
  });

  it("gets skillport new's entry after the last one, every comment kept where it was", async () => {
    const scaffolded = await runCli(["new", "forecast", "--manifest", manifest], ws.dir);
    expect(scaffolded.code, scaffolded.stderr).toBe(0);
    const entry = '{ "path": "./skills/skill-forecast", "mcp": "forecast", "enabled": false }';
    const [before, after] = COMMENTED.split("// read-only use\n") as [string, string];
    expect(await readFile(manifest, "utf8")).toBe(`${before}// read-only use\n    ${entry},\n${after}`);
    const listed = await runCli(["list", "--json", "--manifest", manifest], ws.dir);
    expect(listed.code, listed.stderr).toBe(0);
  });

  it("keeps a comment on the last entry's line with that entry, and a block comment inside a one-line list", () => {
    const entry = { path: "./b" };
    expect(insertSkillEntry('{\n  "skills": [\n    { "path": "./a" } // the a skill\n  ]\n}\n', entry)).toBe(
      '{\n  "skills": [\n    { "path": "./a" }, // the a skill\n    { "path": "./b" }\n  ]\n}\n',
    );
    expect(insertSkillEntry('{\n  "skills": [\n    { "path": "./a" }, /* a */\n  ]\n}\n', entry)).toBe(
      '{\n  "skills": [\n    { "path": "./a" }, /* a */\n    { "path": "./b" },\n  ]\n}\n',
    );
    expect(insertSkillEntry('{ "skills": [{ "path": "./a" } /* a */] }', entry)).toBe(
      '{ "skills": [{ "path": "./a" }, { "path": "./b" } /* a */] }',
    );
    // A comment that looks like the list is not the list.
    expect(insertSkillEntry('{\n  // "skills": [1]\n  "skills": []\n}', entry)).toBe(
      '{\n  // "skills": [1]\n  "skills": [{ "path": "./b" }]\n}',
    );
  });

  it("that is not JSON is refused by new with the place, and left as it was", async () => {
    const broken = await ws.writeManifest('{\n  "skills": []\n  "name": "x"\n}\n', "broken.manifest.json");
    const refused = await runCli(["new", "forecast2", "--manifest", broken], ws.dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("line 3, column 3:");
    expect(refused.stderr).toContain('3 |   "name": "x"');
    expect(await readFile(broken, "utf8")).toBe('{\n  "skills": []\n  "name": "x"\n}\n');
  });
});
