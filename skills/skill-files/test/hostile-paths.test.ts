import { lstat, readlink } from "node:fs/promises";
import path from "node:path";
import type { SkillContext } from "@skillport/core";
import type { HostileTree } from "@skillport/core/confine/testing";
import { CANARY, HOSTILE_PATHS, hostilePath, makeHostileTree } from "@skillport/core/confine/testing";
import { failure } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendFile,
  deleteFile,
  FilesConfig,
  fileInfo,
  listDirectory,
  moveFile,
  readFile,
  writeFile,
} from "../src/index.js";
import { ctxFor, snapshot } from "./helpers.js";

let tree: HostileTree;
let ctx: SkillContext<FilesConfig>;
let outsideBefore: Record<string, string>;
let evilBefore: Record<string, string>;

beforeAll(async () => {
  tree = await makeHostileTree();
  ctx = ctxFor(FilesConfig.parse({ roots: [tree.root, tree.root2] }));
  outsideBefore = await snapshot(tree.outside);
  evilBefore = await snapshot(tree.rootEvil);
});

afterAll(async () => {
  await tree?.dispose();
});

/**
 * The shared hostile-path corpus of @skillport/core/confine, each path tried with every tool; `system` ones point at
 * the machine's own files and are only tried with tools that do not write, so a broken check cannot damage anything.
 */
const CORPUS = HOSTILE_PATHS.map((entry) => [entry.label, entry] as const);

describe("hostile paths", () => {
  it.each(CORPUS)("%s: every reading tool refuses", async (_label, entry) => {
    const p = hostilePath(entry, tree);
    const calls: [string, () => Promise<unknown>][] = [
      ["read_file", () => readFile({ path: p, encoding: "utf-8", offset: 0 }, ctx)],
      ["file_info", () => fileInfo({ path: p }, ctx)],
      ["list_directory", () => listDirectory({ path: p, recursive: true, limit: 50 }, ctx)],
    ];
    for (const [tool, call] of calls) {
      const error = await failure(call());
      expect(error.code, `${tool}: ${error.message}`).toBe(entry.code);
      expect(error.field, tool).toBe("/path");
      expect(error.message).not.toContain(CANARY);
    }
  });

  it.each(CORPUS.filter(([, entry]) => entry.system !== true))(
    "%s: every writing tool refuses and nothing outside changes",
    async (_label, entry) => {
      const p = hostilePath(entry, tree);
      const calls: [string, () => Promise<unknown>, string][] = [
        [
          "write_file",
          () =>
            writeFile({ path: p, content: "pwned", encoding: "utf-8", overwrite: true, create_directories: true }, ctx),
          "/path",
        ],
        [
          "append_file",
          () => appendFile({ path: p, content: "pwned", encoding: "utf-8", create_directories: true }, ctx),
          "/path",
        ],
        ["delete_file", () => deleteFile({ path: p, recursive: true }, ctx), "/path"],
        [
          "move_file (source)",
          () => moveFile({ source: p, destination: "moved.txt", overwrite: true, create_directories: true }, ctx),
          "/source",
        ],
        [
          "move_file (destination)",
          () => moveFile({ source: "hello.txt", destination: p, overwrite: true, create_directories: true }, ctx),
          "/destination",
        ],
      ];
      for (const [tool, call, field] of calls) {
        const error = await failure(call());
        expect(error.code, `${tool}: ${error.message}`).toBe(entry.code);
        expect(error.field, tool).toBe(field);
      }
      expect(await snapshot(tree.outside)).toEqual(outsideBefore);
      expect(await snapshot(tree.rootEvil)).toEqual(evilBefore);
      expect((await lstat(path.join(tree.root, "hello.txt"))).isFile()).toBe(true);
      expect(await readlink(path.join(tree.root, "dangling"))).toBe(path.join(tree.outside, "not-yet.txt"));
    },
  );

  it("names the roots in the refusal, so the caller knows where it may go", async () => {
    const error = await failure(readFile({ path: "../outside/secret.txt", encoding: "utf-8", offset: 0 }, ctx));
    expect(error.message).toContain(tree.root);
    expect(error.message).toContain(tree.root2);
    expect(error.retryable).toBe(false);
  });

  it("never shows where a link outside points", async () => {
    const error = await failure(readFile({ path: "link-secret", encoding: "utf-8", offset: 0 }, ctx));
    expect(error.message).toContain("symbolic link");
    expect(error.message).not.toContain("secret.txt");
  });
});

describe("paths that look odd but stay inside", () => {
  it.each([
    ["percent-encoded parents are plain names", "%2e%2e/%2e%2e/outside/secret.txt"],
    ["full-width dots are plain names", "．．/outside/secret.txt"],
    ["three dots is a plain name", ".../secret.txt"],
    ["a name that starts with two dots", "..secret.txt"],
    ["a leading dot slash", "./odd.txt"],
  ])("%s (%j): written inside the first root", async (_label, p) => {
    const written = await writeFile(
      { path: p, content: "ok", encoding: "utf-8", overwrite: true, create_directories: true },
      ctx,
    );
    expect(written.data.path.startsWith(`${tree.root}/`)).toBe(true);
    expect(await snapshot(tree.outside)).toEqual(outsideBefore);
  });

  it("follows links that stay inside the roots, also from one root to another", async () => {
    expect((await readFile({ path: "link-in", encoding: "utf-8", offset: 0 }, ctx)).data.content).toBe("hello\n");
    expect((await readFile({ path: "link-sub/inner.txt", encoding: "utf-8", offset: 0 }, ctx)).data.content).toBe(
      "inner\n",
    );
    const other = await readFile({ path: "link-root2/file2.txt", encoding: "utf-8", offset: 0 }, ctx);
    expect(other.data).toMatchObject({ content: "second root\n", path: path.join(tree.root2, "file2.txt") });
    const viaBase = await readFile({ path: "link-base/root/hello.txt", encoding: "utf-8", offset: 0 }, ctx);
    expect(viaBase.data.content).toBe("hello\n");
  });

  it("takes absolute paths inside any root", async () => {
    const second = await readFile({ path: path.join(tree.root2, "file2.txt"), encoding: "utf-8", offset: 0 }, ctx);
    expect(second.data.content).toBe("second root\n");
    const backslashed = tree.root2.replaceAll("/", "\\");
    const viaBackslashes = await fileInfo({ path: `${backslashed}\\file2.txt` }, ctx);
    expect(viaBackslashes.data.type).toBe("file");
  });

  it("answers NOT_FOUND, not a refusal, for a missing file inside", async () => {
    const error = await failure(readFile({ path: "nope.txt", encoding: "utf-8", offset: 0 }, ctx));
    expect(error).toMatchObject({ code: "NOT_FOUND", field: "/path" });
  });

  it("refuses every path when a root does not exist, saying so", async () => {
    const config = FilesConfig.parse({ roots: [path.join(tree.base, "gone")] });
    const error = await failure(readFile({ path: "x", encoding: "utf-8", offset: 0 }, { ...ctx, config }));
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toContain("roots");
  });
});
