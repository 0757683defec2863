import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseManifest } from "@skillport/host";
import type { TestHost } from "@skillport/testing";
import { createTestHost } from "@skillport/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "./workspace.js";

const MANIFEST = path.join(REPO, "skills.manifest.json");

describe("the default manifest", () => {
  // Skills a person adds (`skillport new`, then enabling it) join these: nothing here pins the whole list.
  it("serves notes and files; shell and github are listed but disabled", async () => {
    const { code, stdout } = await runCli(["check", "--json"], REPO);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      ok: boolean;
      findings: unknown[];
      sizes: { perInstance: { mcp: string }[] };
    };
    expect(report.ok).toBe(true);
    expect(report.findings).toEqual([]); // no lint finding, and no change since the committed lock
    // No warning the user cannot act on: every name the manifest serves is one the model APIs take.
    expect(report).toMatchObject({ notes: [] });
    for (const compat of ["anthropic", "openai", "strict"]) {
      const checked = await runCli(["check", "--compat", compat], REPO);
      expect(checked.code, checked.stdout).toBe(0);
      expect(checked.stdout).not.toContain("Tool names:");
    }
    const served = report.sizes.perInstance.map((i) => i.mcp);
    expect(served).toEqual(expect.arrayContaining(["notes", "files"]));
    expect(served).not.toContain("shell");
    expect(served).not.toContain("github");
    const manifest = JSON.parse(await readFile(MANIFEST, "utf8")) as { skills: { mcp: string; enabled?: boolean }[] };
    expect(manifest.skills.map((s) => [s.mcp, s.enabled ?? true])).toEqual(
      expect.arrayContaining([
        ["notes", true],
        ["files", true],
        ["shell", false],
        ["github", false],
      ]),
    );
  });

  describe("with every entry enabled, as a user would enable them", () => {
    let t: TestHost;

    beforeAll(async () => {
      const json = JSON.parse(await readFile(MANIFEST, "utf8")) as { skills: Record<string, unknown>[] };
      for (const entry of json.skills) delete entry.enabled;
      t = await createTestHost({ manifest: parseManifest(json, MANIFEST) });
    });

    afterAll(() => t?.close());

    it("loads every bundled skill with its example config", async () => {
      const names = (await t.listTools()).map((tool) => tool.name);
      for (const name of ["notes_read_note", "files_read_file", "shell_run_command", "github_create_issue"]) {
        expect(names).toContain(name);
      }
    });

    it("reads the sample workspace and refuses to leave it", async () => {
      const read = await t.callTool<{ content: string }>("files_read_file", { path: "README.md" });
      expect(read).toMatchObject({ ok: true, data: { content: expect.stringContaining("# Sample workspace") } });
      const out = await t.callTool("files_read_file", { path: "../vault/AI-Agent/mcp-basics.md" });
      expect(out).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED", field: "/path" } });
    });

    it("refuses delete_file, which the manifest does not allow; run_command is allowed and asks the user", async () => {
      const remove = await t.callTool("files_delete_file", { path: "notes.txt" });
      expect(remove).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } });
      expect(remove.message).toContain("skills[1].allow");
      const run = await t.callTool("shell_run_command", { command: "echo", args: ["hello"] });
      expect(run).toMatchObject({ ok: false, error: { code: "PERMISSION_DENIED" } }); // the test client says no
      expect(t.questions).toEqual(["shell_run_command wants to: Run echo hello. Allow it?"]);
    });
  });
});
