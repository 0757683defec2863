import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSkillHead } from "../src/registry/skill-docs.js";

// Read for every skill at start-up: a package without a regular SKILL.md of its own has none, whatever stands there.
describe("readSkillHead", () => {
  let root: string;
  const doc = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n# ${name}\n`;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "skillport-head-"));
    await mkdir(path.join(root, "outside"));
    await writeFile(path.join(root, "outside", "SKILL.md"), doc("outside"));
    for (const name of ["plain", "none", "linked", "folder", "via-link"]) await mkdir(path.join(root, name));
    await writeFile(path.join(root, "plain", "SKILL.md"), doc("plain"));
    await symlink(path.join(root, "outside", "SKILL.md"), path.join(root, "linked", "SKILL.md"));
    await mkdir(path.join(root, "folder", "SKILL.md"));
    // A package reached through a link to its folder is read: the link is the package's path, not inside it.
    await writeFile(path.join(root, "via-link", "SKILL.md"), doc("via-link"));
    await symlink(path.join(root, "via-link"), path.join(root, "link-to-package"));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("reads a package's own SKILL.md", async () => {
    expect(await readSkillHead(path.join(root, "plain"))).toEqual({ name: "plain", description: "The plain skill." });
    expect(await readSkillHead(path.join(root, "link-to-package"))).toMatchObject({ name: "via-link" });
  });

  it("has none without one, with a link named SKILL.md, with a folder of that name, or without the package", async () => {
    for (const name of ["none", "linked", "folder", "missing"]) {
      expect(await readSkillHead(path.join(root, name))).toBeUndefined();
    }
  });
});
