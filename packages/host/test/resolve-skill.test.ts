import { realpathSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { resolve as resolveImport } from "import-meta-resolve";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostError } from "../src/errors/host-error.js";
import { resolveSkill } from "../src/registry/resolve-skill.js";

// A `path` entry whose package.json has "exports" is imported by its own name, as Node resolves it. The host reads
// a plain "exports" itself (no resolver to load at start-up); whatever it answers must be what Node's rules answer.
describe("resolveSkill of a local package folder with exports", () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "skillport-resolve-"));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  /** A package folder with these exports and files; answers what Node resolves its own name to, or the error. */
  async function pkg(name: string, exports: unknown, files: string[] = ["index.js"], links: [string, string][] = []) {
    const dir = path.join(root, name);
    for (const file of files) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), "export const register = () => ({});\n");
    }
    for (const [link, target] of links) await symlink(path.join(dir, target), path.join(dir, link));
    await writeFile(
      path.join(dir, "package.json"),
      JSON.stringify({ name, version: "1.0.0", type: "module", exports }),
    );
    let expected: string | Error;
    try {
      expected = resolveImport(name, pathToFileURL(path.join(dir, "package.json")).href);
    } catch (error) {
      expected = error as Error;
    }
    return { dir, expected };
  }

  const cases: [string, unknown, string[]?, [string, string][]?][] = [
    ["plain-string", "./index.js"],
    ["plain-dot", { ".": "./dist/main.js", "./extra": "./extra.js" }, ["dist/main.js"]],
    ["conditions", { import: "./esm.js", default: "./index.js" }, ["esm.js", "index.js"]],
    ["dot-conditions", { ".": { node: "./node.js", default: "./index.js" } }, ["node.js", "index.js"]],
    ["array", ["./missing.js", "./index.js"]],
    ["missing-file", "./dist/index.js"],
    ["folder-target", "./dist", ["dist/index.js"]],
    ["dot-dot", "./../escape.js"],
    ["node-modules-segment", "./node_modules/x.js", ["node_modules/x.js"]],
    ["hash-in-name", "./a#b.js", ["a#b.js"]],
    ["encoded", "./a%2Fb.js", ["a%2Fb.js"]],
    ["linked-entry", "./link.js", ["real.js"], [["link.js", "real.js"]]],
    ["mixed-keys", { ".": "./index.js", import: "./index.js" }],
  ];

  it("a package folder reached through a linked folder (as pnpm links packages): the entry Node gives", async () => {
    const { dir } = await pkg("real-home", "./dist/index.js", ["dist/index.js"]);
    const linked = path.join(root, "linked-home");
    await symlink(dir, linked);
    const expected = resolveImport("real-home", pathToFileURL(path.join(linked, "package.json")).href);
    const resolved = await resolveSkill({ path: linked }, path.join(root, "skills.manifest.json"), "skills[0]");
    expect(resolved.entryUrl).toBe(expected);
    expect(resolved.entryUrl).toBe(pathToFileURL(path.join(realpathSync(dir), "dist/index.js")).href);
  });

  it.each(cases)(
    "%s: the entry Node's resolver gives, or an error where it refuses",
    async (name, exports, files, links) => {
      const { dir, expected } = await pkg(name, exports, files, links);
      const resolving = resolveSkill({ path: dir }, path.join(root, "skills.manifest.json"), "skills[0]");
      if (expected instanceof Error) {
        await expect(resolving).rejects.toBeInstanceOf(HostError);
        await expect(resolving).rejects.toThrow("cannot resolve the entry");
      } else {
        expect((await resolving).entryUrl).toBe(expected);
      }
    },
  );
});
