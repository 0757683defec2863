import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { defineSkill } from "@skillport/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Host } from "../src/host.js";
import { createHost } from "../src/host.js";
import { connectInMemory } from "../src/mcp/connect-in-memory.js";
import { manifestOf, silentLogger } from "./helpers.js";

const SECRET = "outside-secret-5d1f9c";
const SKILL_MD = "---\nname: atlas\ndescription: Maps and how to read them.\n---\n\n# Atlas\n";

let dir: string;
let host: Host;
let client: Client;

/**
 * A skill package whose folder links out of itself: `references` is a link to a folder outside, `assets/key.txt`
 * a link to a file outside, `scripts/inside.md` a link to a file inside. Everything outside holds a secret.
 */
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-skill-files-"));
  const pkg = path.join(dir, "pkg");
  const outside = path.join(dir, "outside");
  await mkdir(path.join(pkg, "assets"), { recursive: true });
  await mkdir(path.join(pkg, "scripts", "nested"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.md"), SECRET);
  await writeFile(path.join(pkg, "SKILL.md"), SKILL_MD);
  await writeFile(path.join(pkg, "scripts", "nested", "run.sh"), "echo hi\n");
  await writeFile(path.join(pkg, "assets", "legend.md"), "# Legend\n");
  await symlink(outside, path.join(pkg, "references"));
  await symlink(path.join(outside, "secret.md"), path.join(pkg, "assets", "key.txt"));
  await symlink(path.join(pkg, "assets", "legend.md"), path.join(pkg, "scripts", "inside.md"));
  host = await createHost({
    manifest: manifestOf({ skills: [{ package: "atlas-skill" }] }),
    modules: { "atlas-skill": { register: defineSkill({ name: "atlas", tools: [] }), dir: pkg } },
    logger: silentLogger(),
  });
  client = new Client({ name: "t", version: "0" });
  await client.connect(await connectInMemory(host));
});

afterAll(async () => {
  await client?.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a skill's files (skill://) stay inside its package folder", () => {
  it("lists the package's own files only: a folder or file that links outside is left out", async () => {
    const skills = new SkillsClient(client);
    const {
      skills: [atlas],
    } = await skills.list();
    const files = ((atlas?.resources ?? []) as { uri: string }[]).map((r) => r.uri).sort();
    expect(files).toEqual([
      "skill://atlas/atlas/SKILL.md",
      "skill://atlas/atlas/assets/legend.md",
      "skill://atlas/atlas/scripts/nested/run.sh",
    ]);
  });

  it("reads nothing from outside under any skill:// URI", async () => {
    for (const uri of ["skill://atlas/atlas/references/secret.md", "skill://atlas/atlas/assets/key.txt"]) {
      await expect(client.readResource({ uri }), uri).rejects.toThrow(/not found/i);
    }
    const { contents } = await client.readResource({ uri: "skill://atlas/atlas/SKILL.md" });
    expect(JSON.stringify(contents)).not.toContain(SECRET);
  });
});

describe("resources/directory/read over a skill's folders (the Skills extension's directoryRead)", () => {
  it("lists a folder's direct children: files with size and MIME type, folders as inode/directory, no links", async () => {
    const skills = new SkillsClient(client);
    const root = await skills.readDirectory("skill://atlas/atlas");
    expect(root.resources).toEqual([
      { uri: "skill://atlas/atlas/SKILL.md", name: "SKILL.md", mimeType: "text/markdown", size: SKILL_MD.length },
      { uri: "skill://atlas/atlas/assets", name: "assets", mimeType: "inode/directory" },
      { uri: "skill://atlas/atlas/scripts", name: "scripts", mimeType: "inode/directory" },
    ]);
    const scripts = await skills.readDirectory("skill://atlas/atlas/scripts");
    expect(scripts.resources.map((r) => r.uri)).toEqual(["skill://atlas/atlas/scripts/nested"]);
  });

  it("answers invalid params for a file, a link's folder, or a URI no skill serves", async () => {
    for (const uri of [
      "skill://atlas/atlas/SKILL.md",
      "skill://atlas/atlas/references",
      "skill://other/x",
      "file:///etc",
    ]) {
      await expect(new SkillsClient(client).readDirectory(uri), uri).rejects.toMatchObject({ code: -32602 });
    }
  });
});
