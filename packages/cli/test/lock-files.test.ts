// Each manifest has its own lock, written in the repository's formatting: `skillport lock` on an unchanged
// workspace leaves the committed lock byte for byte, and no manifest reads, warns about or overwrites another's.
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, notesManifest, REPO, runCli } from "./workspace.js";

describe("the committed skills.lock.json", () => {
  it("is what skillport lock writes for the committed manifest, byte for byte", async () => {
    // The repository as checked out, but for the lock, written afresh in a folder of its own: everything else is
    // linked (packages, skills, examples, node_modules), so the committed lock is never rewritten while tests read it.
    const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-relock-"));
    try {
      for (const entry of await readdir(REPO)) {
        if (entry === "skills.lock.json" || entry === ".git") continue;
        if (entry === "skills.manifest.json") await cp(path.join(REPO, entry), path.join(dir, entry));
        else await symlink(path.join(REPO, entry), path.join(dir, entry));
      }
      const locked = await runCli(["lock"], dir);
      expect(locked.stderr).toBe("");
      expect(locked.code).toBe(0);
      const committed = await readFile(path.join(REPO, "skills.lock.json"), "utf8");
      expect(await readFile(path.join(dir, "skills.lock.json"), "utf8")).toBe(committed);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("one lock per manifest", () => {
  let ws: Workspace;
  const read = (name: string) => readFile(path.join(ws.dir, name), "utf8");

  beforeAll(async () => {
    ws = await makeWorkspace(); // skills.manifest.json: the notes skill
    await ws.writeManifest(
      notesManifest({ tools: { include: ["search_notes"] } }),
      "notes-only.manifest.json", // its lock: notes-only.lock.json
    );
    await ws.writeManifest(notesManifest({ mcp: "vault" }), "vault.json"); // its lock: vault.lock.json
  });
  afterAll(() => ws.dispose());

  it("writes each manifest's lock beside it, named after it, and none touches another's", async () => {
    for (const manifest of ["skills.manifest.json", "notes-only.manifest.json", "vault.json"]) {
      const locked = await runCli(["lock", "--manifest", manifest], ws.dir);
      expect(locked.code, locked.stderr).toBe(0);
    }
    const locks = {
      "skills.lock.json": await read("skills.lock.json"),
      "notes-only.lock.json": await read("notes-only.lock.json"),
      "vault.lock.json": await read("vault.lock.json"),
    };
    expect(JSON.parse(locks["skills.lock.json"]).manifest).toBe("skills.manifest.json");
    expect(JSON.parse(locks["notes-only.lock.json"]).manifest).toBe("notes-only.manifest.json");
    expect(JSON.parse(locks["vault.lock.json"]).manifest).toBe("vault.json");

    // Relocking one rewrites its own lock with the same bytes and leaves the others as they were.
    const again = await runCli(["lock", "--manifest", "notes-only.manifest.json"], ws.dir);
    expect(again.stdout).toContain(`in ${path.join(ws.dir, "notes-only.lock.json")}`);
    for (const [name, text] of Object.entries(locks)) expect(await read(name), name).toBe(text);

    // Each starts from its own lock, without a word about the others.
    for (const manifest of ["skills.manifest.json", "notes-only.manifest.json", "vault.json"]) {
      const listed = await runCli(["list", "--json", "--manifest", manifest], ws.dir);
      expect(listed.stderr, manifest).toBe("");
      expect(listed.code).toBe(0);
    }
    const onlySearch = JSON.parse(
      (await runCli(["list", "--json", "--manifest", "notes-only.manifest.json"], ws.dir)).stdout,
    );
    expect(onlySearch.map((t: { name: string }) => t.name)).toEqual(["notes.search_notes"]);
  });

  it("refuses to overwrite another manifest's lock, and never reads or warns about it", async () => {
    // notes-only.json would lock to notes-only.lock.json, which belongs to notes-only.manifest.json.
    await ws.writeManifest(notesManifest({ mcp: "other" }), "notes-only.json");
    const before = await read("notes-only.lock.json");
    const locked = await runCli(["lock", "--manifest", "notes-only.json"], ws.dir);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain("is the lock of notes-only.manifest.json, not of notes-only.json");
    expect(locked.stderr).toContain("rename notes-only.json");
    expect(await read("notes-only.lock.json")).toBe(before);

    const listed = await runCli(["list", "--manifest", "notes-only.json"], ws.dir);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe(""); // no "out of date" warning about a lock that is not its own
    expect(listed.stdout).toContain("other.search_notes");
    const checked = await runCli(["check", "--json", "--manifest", "notes-only.json"], ws.dir);
    expect(JSON.parse(checked.stdout).findings).toEqual([]);

    const frozen = await runCli(["serve", "--stdio", "--frozen-lock", "--manifest", "notes-only.json"], ws.dir);
    expect(frozen.code).toBe(1);
    expect(frozen.stderr).toContain("notes-only.lock.json does not match notes-only.json");
    expect(frozen.stderr).toContain("is the lock of notes-only.manifest.json, not of notes-only.json");
  });

  it("refuses to overwrite a file at its lock path that is not a lock", async () => {
    await ws.writeManifest(notesManifest(), "data.manifest.json");
    await writeFile(path.join(ws.dir, "data.lock.json"), '{ "rows": [1, 2, 3] }\n');
    const locked = await runCli(["lock", "--manifest", "data.manifest.json"], ws.dir);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain("data.lock.json is not a skill lock");
    expect(await read("data.lock.json")).toBe('{ "rows": [1, 2, 3] }\n');
  });

  it("names the manifest's own lock and the command that writes it when the lock is stale", async () => {
    const stale = notesManifest();
    stale.skills.push({ ...(stale.skills[0] as (typeof stale.skills)[number]), mcp: "second" });
    await ws.writeManifest(stale, "notes-only.manifest.json");
    const listed = await runCli(["list", "--manifest", "notes-only.manifest.json"], ws.dir);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain(
      "notes-only.lock.json is out of date, so every skill loads now; run skillport lock --manifest notes-only.manifest.json",
    );
    expect(listed.stderr).not.toContain("skills.lock.json");
  });
});
