import { cp, mkdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, REPO, runCli } from "./workspace.js";

const LIBRARY = path.join(REPO, "packages/host/test/fixtures/skill-library");

describe("skillport check reads each served SKILL.md as testSkill() does", () => {
  let ws: Workspace;
  let skill: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    // A copy of the library fixture, its @skillport/core linked as an install would.
    skill = path.join(ws.dir, "skill-library");
    await cp(LIBRARY, skill, { recursive: true });
    await mkdir(path.join(skill, "node_modules/@skillport"), { recursive: true });
    await symlink(await realpath(path.join(REPO, "packages/core")), path.join(skill, "node_modules/@skillport/core"));
    await ws.writeManifest({ name: "docs", version: "1.0.0", skills: [{ path: "./skill-library", mcp: "lib" }] });
  });
  afterAll(() => ws?.dispose());

  it("finds nothing in the fixture's SKILL.md", async () => {
    const { stdout } = await runCli(["check", "--json"], ws.dir);
    const report = JSON.parse(stdout) as { findings: { rule: string }[] };
    expect(report.findings.filter((f) => f.rule.startsWith("skill-md"))).toEqual([]);
  });

  it("fails on instructions that name a tool the skill does not have, or a frontmatter that names another skill", async () => {
    const doc = path.join(skill, "SKILL.md");
    const text = await readFile(doc, "utf8");
    await writeFile(doc, text.replace("name: library", "name: books").concat("\nThen call `lend_book`.\n"));
    const { code, stdout } = await runCli(["check", "--json"], ws.dir);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      findings: { severity: string; rule: string; where: string; message: string }[];
    };
    expect(report.findings.filter((f) => f.rule.startsWith("skill-md"))).toEqual([
      expect.objectContaining({ severity: "error", rule: "skill-md-name", where: expect.stringContaining("SKILL.md") }),
      expect.objectContaining({
        severity: "error",
        rule: "skill-md-tools",
        message: expect.stringContaining("`lend_book`, which is not a tool of library"),
      }),
    ]);
  });
});
