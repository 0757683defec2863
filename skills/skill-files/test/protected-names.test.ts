import { mkdir, writeFile as putFile, readdir, readFile as readText, symlink } from "node:fs/promises";
import path from "node:path";
import { failure } from "@skillport/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendFile, deleteFile, FilesConfig, moveFile, readFile, writeFile } from "../src/index.js";
import type { Sandbox } from "./helpers.js";
import { ctxFor, makeSandbox, snapshot } from "./helpers.js";

let box: Sandbox;
let repo: string;
const CONFIG = "[core]\n\tbare = false\n";

beforeEach(async () => {
  box = await makeSandbox();
  repo = path.join(box.root, "repo");
  await mkdir(path.join(repo, ".git", "hooks"), { recursive: true });
  await putFile(path.join(repo, ".git", "config"), CONFIG);
  await putFile(path.join(repo, "README.md"), "# repo\n");
  await symlink(".git", path.join(repo, "dotgit"));
});

afterEach(async () => {
  await box.dispose();
});

const write = (p: string, overwrite = true) =>
  writeFile(
    { path: p, content: "[core]\n\tfsmonitor = evil\n", encoding: "utf-8", overwrite, create_directories: true },
    box.ctx,
  );

describe("writes under .git are refused by default", () => {
  it.each([
    ["write_file into .git/config", () => write("repo/.git/config")],
    ["write_file of a hook", () => write("repo/.git/hooks/post-checkout", false)],
    ["write_file creating .git folders", () => write("other/.git/config", false)],
    ["write_file of a .git file (gitdir: elsewhere)", () => write("other/.git", false)],
    ["write_file through a link to .git", () => write("repo/dotgit/config")],
    ["write_file into .GIT (case-insensitive file systems)", () => write("repo/.GIT/config")],
    ["write_file into .git. (Windows drops the dot)", () => write("repo/.git./config")],
    ["write_file into .hg", () => write("repo/.hg/hgrc", false)],
    [
      "append_file to .git/config",
      () =>
        appendFile({ path: "repo/.git/config", content: "x", encoding: "utf-8", create_directories: false }, box.ctx),
    ],
    [
      "move_file into .git",
      () =>
        moveFile(
          {
            source: "repo/README.md",
            destination: "repo/.git/hooks/pre-commit",
            overwrite: false,
            create_directories: false,
          },
          box.ctx,
        ),
    ],
    [
      "move_file out of .git",
      () =>
        moveFile(
          { source: "repo/.git/config", destination: "repo/config", overwrite: false, create_directories: false },
          box.ctx,
        ),
    ],
    [
      "move_file renaming a folder to .git",
      () =>
        moveFile({ source: "sub", destination: "repo/x/.git", overwrite: false, create_directories: true }, box.ctx),
    ],
    ["delete_file in .git", () => deleteFile({ path: "repo/.git/config", recursive: false }, box.ctx)],
    ["delete_file of .git itself", () => deleteFile({ path: "repo/.git", recursive: true }, box.ctx)],
    ["delete_file of a folder holding .git", () => deleteFile({ path: "repo", recursive: true }, box.ctx)],
  ])("%s answers PERMISSION_DENIED and changes nothing", async (_label, call) => {
    const before = await snapshot(box.root);
    const error = await failure(call());
    expect(error.code, error.message).toBe("PERMISSION_DENIED");
    expect(error.message).toMatch(/"\.(git|hg)"/);
    expect(await snapshot(box.root)).toEqual(before);
  });

  it("still reads inside .git", async () => {
    const out = await readFile({ path: "repo/.git/config", encoding: "utf-8", offset: 0 }, box.ctx);
    expect(out.data.content).toBe(CONFIG);
  });

  it("still writes beside .git and moves a folder that holds one", async () => {
    await write("repo/src/main.ts", false);
    await moveFile({ source: "repo", destination: "moved-repo", overwrite: false, create_directories: false }, box.ctx);
    expect(await readText(path.join(box.root, "moved-repo", ".git", "config"), "utf8")).toBe(CONFIG);
  });
});

describe("protectedNames in the config", () => {
  it("defaults to .git, .hg and .jj", () => {
    expect(FilesConfig.parse({ roots: ["/tmp"] }).protectedNames).toEqual([".git", ".hg", ".jj"]);
  });

  it("[] turns the protection off", async () => {
    const ctx = ctxFor(FilesConfig.parse({ roots: [box.root], protectedNames: [] }));
    await writeFile(
      {
        path: "repo/.git/hooks/x",
        content: "#!/bin/sh\n",
        encoding: "utf-8",
        overwrite: false,
        create_directories: false,
      },
      ctx,
    );
    await deleteFile({ path: "repo/.git/hooks/x", recursive: false }, ctx);
    expect(await readdir(path.join(repo, ".git", "hooks"))).toEqual([]);
  });

  it("takes other names, and refuses a name with a separator", async () => {
    const ctx = ctxFor(FilesConfig.parse({ roots: [box.root], protectedNames: ["secrets"] }));
    const put = (p: string) =>
      writeFile({ path: p, content: "x", encoding: "utf-8", overwrite: false, create_directories: true }, ctx);
    expect((await failure(put("secrets/a"))).code).toBe("PERMISSION_DENIED");
    expect((await failure(put("Secrets/a"))).code).toBe("PERMISSION_DENIED");
    await put("repo/.git/y"); // .git is no longer protected: the list replaces the default
    expect(() => FilesConfig.parse({ roots: ["/tmp"], protectedNames: ["a/b"] })).toThrow();
  });
});
