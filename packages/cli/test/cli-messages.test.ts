import { existsSync } from "node:fs";
import { copyFile, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { CLI, makeWorkspace, NOTES_SKILL, REPO, runCli, runNode } from "./workspace.js";

const NOISY = path.join(REPO, "packages/host/test/fixtures/skill-noisy");
const SEARCH = ["call", "notes.search_notes", '{"keyword":"agent"}'];

/** A count said as a person says it: never "1 tools" or "1 warnings". */
const BAD_SINGULAR = /\b1 (skill instances|instances|tools|errors|warnings|problems)\b/;

describe("skillport's messages are where a person looks", () => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => ws?.dispose());

  describe("an unknown tool in skillport call", () => {
    it("suggests the closest names and points at skillport list", async () => {
      const typo = await runCli(["call", "notes.serch_notes", "{}"], ws.dir);
      expect(typo.code).toBe(1);
      expect(typo.stdout).toBe("");
      expect(typo.stderr).toContain('unknown tool "notes.serch_notes"');
      expect(typo.stderr).toContain("did you mean notes.search_notes?");
      expect(typo.stderr).toContain("skillport list");
      expect(typo.stderr).not.toContain("tools/list");
    });

    it("finds a tool named without its prefix", async () => {
      const bare = await runCli(["call", "read_note", "{}"], ws.dir);
      expect(bare.stderr).toContain("did you mean notes.read_note?");
    });

    it("names the manifest in the list command when it is not the default", async () => {
      const other = await ws.writeManifest(
        { skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }] },
        "other.manifest.json",
      );
      const far = await runCli(["call", "zzzzzzzz", "{}", "--manifest", other], ws.dir);
      expect(far.code).toBe(1);
      expect(far.stderr).not.toContain("did you mean");
      expect(far.stderr).toContain(`skillport list --manifest ${other}`);
    });
  });

  describe("the audit line of skillport call follows SKILLPORT_LOG_LEVEL", () => {
    it.each(["warn", "error", "silent", undefined])("prints no audit line at level %s", async (level) => {
      const { code, stdout, stderr } = await runCli(SEARCH, ws.dir, { SKILLPORT_LOG_LEVEL: level });
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ ok: true });
      expect(stderr).toBe("");
    });

    it("prints it at info, and always writes the manifest's audit.file, made by the first call", async () => {
      const shown = await runCli(SEARCH, ws.dir, { SKILLPORT_LOG_LEVEL: "info" });
      expect(shown.stderr).toContain('"kind":"audit"');
      const audited = await ws.writeManifest(
        { audit: { file: "./audit.log" }, skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } }] },
        "audited.manifest.json",
      );
      // Commands that call nothing leave no empty audit file behind.
      for (const command of ["lock", "list", "check"]) {
        expect((await runCli([command, "--manifest", audited], ws.dir)).code, command).toBe(0);
        expect(existsSync(path.join(ws.dir, "audit.log")), command).toBe(false);
      }
      const silent = await runCli([...SEARCH, "--manifest", audited], ws.dir, { SKILLPORT_LOG_LEVEL: "silent" });
      expect(silent.stderr).toBe("");
      expect(await readFile(path.join(ws.dir, "audit.log"), "utf8")).toContain('"tool":"notes.search_notes"');
    });
  });

  describe("did you mean", () => {
    it("names the field, the installed package and the argument a typo was meant to be", async () => {
      // Beside the repository's packages, as a manifest in it is.
      const dir = path.join(ws.dir, "beside-packages");
      await mkdir(dir);
      await symlink(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
      const manifest = path.join(dir, "typos.manifest.json");
      await writeFile(
        manifest,
        JSON.stringify({
          seperator: "_",
          skills: [{ package: "@skillport/skill-notse", config: { vault: "../vault" } }],
        }),
      );
      const checked = await runCli(["check", "--manifest", manifest], ws.dir);
      expect(checked.code).toBe(1);
      expect(checked.stderr).toContain('seperator: is not a known field: did you mean "separator"?');
      expect(checked.stderr).toContain('did you mean "@skillport/skill-notes", which is installed? Fix the name');
      expect(checked.stderr).not.toContain("pnpm add @skillport/skill-notse");
      const called = await runCli(["call", "notes.search_notes", '{"keywrd":"agent"}'], ws.dir);
      expect(called.code).toBe(1);
      expect(JSON.parse(called.stdout)).toMatchObject({
        error: { code: "ARGUMENT_INVALID", field: "/keyword" },
        message:
          'invalid arguments for notes.search_notes: keyword is required but missing (found "keywrd": did you mean "keyword"?)',
      });
    });
  });

  it("names the manifest that asked for a missing package", async () => {
    const manifest = await ws.writeManifest({ skills: [{ package: "@skillport/skill-nope" }] }, "notes-only.json");
    const { code, stderr } = await runCli(["list", "--manifest", manifest], ws.dir);
    expect(code).toBe(1);
    expect(stderr).toContain('cannot find package "@skillport/skill-nope"');
    expect(stderr).toContain(manifest);
    expect(stderr).not.toContain("skills.manifest.json");
  });

  describe("counts", () => {
    it("lock says 1 skill instance and 1 tool", async () => {
      const one = await ws.writeManifest({ skills: [{ path: NOISY }] }, "noisy.manifest.json");
      const locked = await runCli(["lock", "--manifest", one], ws.dir);
      expect(locked.code, locked.stderr).toBe(0);
      expect(locked.stdout).toContain("locked 1 skill instance (1 tool)");
      expect(locked.stdout).not.toMatch(BAD_SINGULAR);
    });

    it("lock counts the tools served, as list does: one left out by tools.exclude is not counted", async () => {
      const manifest = await ws.writeManifest(
        { skills: [{ path: NOTES_SKILL, config: { vault: "./vault" }, tools: { exclude: ["create_study_task"] } }] },
        "exclude.manifest.json",
      );
      const locked = await runCli(["lock", "--manifest", manifest], ws.dir);
      expect(locked.code, locked.stderr).toBe(0);
      const listed = await runCli(["list", "--json", "--manifest", manifest], ws.dir);
      const served = (JSON.parse(listed.stdout) as { name: string }[]).map((row) => row.name);
      expect(served).not.toContain("notes.create_study_task");
      expect(locked.stdout).toContain(`locked 1 skill instance (${served.length} tools)`);
    });

    it("check says 1 skill instance, 1 tool, 1 error", async () => {
      const manifest = await ws.writeManifest({ skills: [{ path: NOISY }] }, "noisy.manifest.json");
      const { code, stdout } = await runCli(["check", "--manifest", manifest], ws.dir);
      expect(code).toBe(1);
      expect(stdout).toMatch(/1 skill instance, 1 tool, no conflicts; 1 error, \d+ warnings?$/m);
      expect(stdout).not.toMatch(BAD_SINGULAR);
    });

    it("a broken manifest with one problem says 1 problem", async () => {
      const manifest = await ws.writeManifest({ skills: [{ path: NOTES_SKILL }] }, "one-problem.json");
      const { stderr } = await runCli(["list", "--manifest", manifest], ws.dir);
      expect(stderr).toContain("cannot start: 1 problem in");
      expect(stderr).not.toMatch(BAD_SINGULAR);
    });
  });

  describe("a CLI that is not built yet", () => {
    /** The bin shim as the package ships it, in a folder laid out like packages/cli. */
    async function shim(folder: string) {
      await mkdir(path.join(folder, "bin"), { recursive: true });
      await writeFile(path.join(folder, "package.json"), JSON.stringify({ name: "skillport", type: "module" }));
      await copyFile(CLI, path.join(folder, "bin/skillport.js"));
      return path.join(folder, "bin/skillport.js");
    }

    it.each([
      ["before any build", async (_folder: string) => undefined],
      [
        "when a package it imports is not built",
        async (folder: string) => {
          await mkdir(path.join(folder, "dist"), { recursive: true });
          await writeFile(path.join(folder, "dist/cli.js"), 'export { main } from "@skillport/host";\n');
          const host = path.join(folder, "node_modules/@skillport/host");
          await mkdir(host, { recursive: true });
          await writeFile(
            path.join(host, "package.json"),
            JSON.stringify({ name: "@skillport/host", type: "module", exports: { ".": "./dist/index.js" } }),
          );
        },
      ],
    ])("says to run pnpm build %s, without a stack", async (_case, prepare) => {
      const folder = path.join(ws.dir, `unbuilt-${Math.random().toString(36).slice(2)}`);
      const bin = await shim(folder);
      await prepare(folder);
      const { code, stdout, stderr } = await runNode(bin, ["list"], folder);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toContain("pnpm build");
      expect(stderr).not.toMatch(/^\s+at /m);
      expect(stderr).not.toContain("ERR_MODULE_NOT_FOUND");
    });
  });
});
