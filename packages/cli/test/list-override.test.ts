import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, notesManifest, runCli } from "./workspace.js";

// `tools.override.title` is what a client shows; `skillport list` must show the same.
describe("skillport list shows tools.override titles", () => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => ws?.dispose());

  const override = notesManifest({ tools: { override: { search_notes: { title: "Find notes" } } } });

  async function listed(): Promise<Record<string, string>> {
    const run = await runCli(["list", "--json"], ws.dir);
    expect(run.code, run.stderr).toBe(0);
    const rows = JSON.parse(run.stdout) as { name: string; title: string }[];
    return Object.fromEntries(rows.map((r) => [r.name, r.title]));
  }

  it("without a lock", async () => {
    await ws.writeManifest(override);
    expect(await listed()).toMatchObject({ "notes.search_notes": "Find notes", "notes.read_note": "Read note" });
    const table = await runCli(["list"], ws.dir);
    expect(table.stdout).toMatch(/^notes\.search_notes\s+read_only\s+@skillport\/skill-notes@\S+\s+Find notes$/m);
  });

  it("with a current lock (which records the skill's own surface), listing without importing the skill", async () => {
    await ws.writeManifest(override);
    const lock = await runCli(["lock"], ws.dir);
    expect(lock.code, lock.stderr).toBe(0);
    expect(await listed()).toMatchObject({ "notes.search_notes": "Find notes" });
  });

  it("when the override changes after the lock was written", async () => {
    await ws.writeManifest(notesManifest({ tools: { override: { search_notes: { title: "Search my notes" } } } }));
    expect(await listed()).toMatchObject({ "notes.search_notes": "Search my notes" });
  });
});
