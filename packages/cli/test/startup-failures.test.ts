import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, NOTES_SKILL, runCli } from "./workspace.js";

describe("skillport refuses to start on a broken manifest", () => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => ws.dispose());

  it("exits non-zero on two instances giving the same full name, naming both entries", async () => {
    const manifest = await ws.writeManifest(
      {
        skills: [
          { path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } },
          { path: NOTES_SKILL, mcp: "notes", config: { vault: "./other-vault" } },
        ],
      },
      "conflict.json",
    );
    const { code, stdout, stderr } = await runCli(["serve", "--stdio", "--manifest", manifest], ws.dir);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain('tool "notes.search_notes" is defined by both skills[0]');
    expect(stderr).toContain('and skills[1] (@skillport/skill-notes as "notes", tool search_notes)');
  });

  it.each([
    [
      "an unknown field",
      { skills: [{ path: NOTES_SKILL, config: { vault: "./vault" }, enable: false }] },
      "skills[0].enable: is not a known field",
    ],
    [
      "a wrong type",
      { skills: [{ path: NOTES_SKILL, config: { vault: "./vault" }, enabled: "no" }] },
      'skills[0].enabled: must be a boolean, got "no"',
    ],
    [
      "an unknown package",
      { skills: [{ package: "@skillport/skill-missing" }] },
      'skills[0].package: cannot find package "@skillport/skill-missing"',
    ],
    [
      "an invalid config",
      { skills: [{ path: NOTES_SKILL, config: { vault: 3 } }] },
      "skills[0].config.vault: must be a string, got number 3",
    ],
  ])("exits non-zero on %s, naming the field", async (_case, manifest, expected) => {
    const file = await ws.writeManifest(manifest, "broken.json");
    const commands = [["serve", "--stdio"], ["list"], ["check"]];
    const runs = await Promise.all(commands.map((command) => runCli([...command, "--manifest", file], ws.dir)));
    for (const [i, { code, stderr }] of runs.entries()) {
      expect(code, commands[i]?.join(" ")).toBe(1);
      expect(stderr).toContain(expected);
    }
  });

  it("says how to fix a missing manifest: the default is created or named, a path given is checked", async () => {
    const given = await runCli(["list", "--manifest", "nope.json"], ws.dir);
    expect(given.code).toBe(1);
    expect(given.stderr).toContain(`no manifest at ${path.join(ws.dir, "nope.json")}; check the path given`);
    expect(given.stderr).not.toContain("pass --manifest");
    const empty = await mkdtemp(path.join(os.tmpdir(), "skillport-no-manifest-"));
    try {
      const byDefault = await runCli(["list"], empty);
      expect(byDefault.code).toBe(1);
      expect(byDefault.stderr).toContain("create skills.manifest.json there or pass --manifest <path>");
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("says a manifest that cannot start with one header, whatever its problems are", async () => {
    const own = await ws.writeManifest({ skills: [], bogus: 1 }, "own-problem.json");
    const skill = await ws.writeManifest({ skills: [{ package: "@skillport/skill-nope" }] }, "skill-problem.json");
    const both = await ws.writeManifest({ skills: [{ package: "@skillport/skill-nope" }], bogus: 1 }, "both.json");
    const syntax = await ws.writeManifest('{ "skills": [] "name": "x" }', "syntax.json");
    for (const [file, problems] of [
      [own, 1],
      [skill, 1],
      [both, 2],
      [syntax, 1],
    ] as const) {
      const { code, stderr } = await runCli(["list", "--manifest", file], ws.dir);
      expect(code).toBe(1);
      const noun = problems === 1 ? "problem" : "problems";
      expect(stderr.split("\n")[0], file).toBe(`[skillport] cannot start: ${problems} ${noun} in ${file}:`);
      expect(stderr).not.toContain("is invalid (");
      expect(stderr.match(/^\[skillport\]/gm)).toHaveLength(1);
    }
  });
});

describe("skillport list, call and check", () => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => ws.dispose());

  it("lists full name, risk, skill@version and title, as a table or JSON", async () => {
    const table = await runCli(["list", "--manifest", ws.manifest], ws.dir);
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^TOOL\s+RISK\s+SKILL\s+TITLE$/);
    expect(table.stdout).toMatch(
      /notes\.create_study_task\s+write\s+@skillport\/skill-notes@0\.1\.0\s+Create study task/,
    );
    const json = await runCli(["list", "--json", "--manifest", ws.manifest], ws.dir);
    expect(JSON.parse(json.stdout)).toContainEqual({
      name: "notes.search_notes",
      risk: "read_only",
      skill: "@skillport/skill-notes@0.1.0",
      title: "Search notes",
    });
  });

  it("finds skills.manifest.json in the current folder by default", async () => {
    const { code, stdout } = await runCli(["list"], ws.dir);
    expect(code).toBe(0);
    expect(stdout).toContain("notes.read_note");
  });

  it("prints the envelope of a call and exits 0, or 1 when it fails", async () => {
    const ok = await runCli(["call", "notes.search_notes", '{"keyword":"rust","scope":"all-allowed"}'], ws.dir);
    expect(ok.code).toBe(0);
    const found = JSON.parse(ok.stdout);
    expect(found.ok).toBe(true);
    expect(found.data.hits[0].path).toBe("Learning/rust-ownership.md");
    const bad = await runCli(["call", "notes.read_note", '{"path":"Private/medical.md"}'], ws.dir);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/path" } });
    expect(bad.stdout).not.toContain("SECRET-PRIVATE-MARKER");
  });

  it("explains arguments that are not JSON, and unknown tools", async () => {
    const notJson = await runCli(["call", "notes.search_notes", "{keyword:agent}"], ws.dir);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("not valid JSON");
    const unknown = await runCli(["call", "notes.nope", "{}"], ws.dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown tool "notes.nope"');
  });

  it("check fails on a missing credential, naming what to set", async () => {
    const needy = `${NOTES_SKILL}/../../packages/host/test/fixtures/skill-needs-token`;
    const manifest = await ws.writeManifest(
      { skills: [{ path: needy, credentials: { token: { env: "CHECK_UNSET_VARIABLE" } } }] },
      "needs-token.json",
    );
    const { code, stdout } = await runCli(["check", "--json", "--manifest", manifest], ws.dir);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).findings).toContainEqual({
      severity: "error",
      rule: "credentials",
      where: 'skills[0] (fixture-skill-needs-token as "needy")',
      message:
        'credential "token" is missing: set the environment variable CHECK_UNSET_VARIABLE (skills[0].credentials.token)',
    });
  });

  it("checks a manifest and reports its tool table", async () => {
    const { code, stdout } = await runCli(["check", "--json"], ws.dir);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      ok: true,
      findings: [],
      sizes: { perInstance: [{ mcp: "notes", tools: 3 }] },
    });
    const table = await runCli(["check"], ws.dir);
    expect(table.stdout).toMatch(/notes\s+3\s+\d+/);
    expect(table.stdout).toContain("1 skill instance, 3 tools, no conflicts; 0 errors, 0 warnings");
  });
});
