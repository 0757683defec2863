import { lstat, readlink } from "node:fs/promises";
import path from "node:path";
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
import type { Sandbox } from "./helpers.js";
import { failure, makeSandbox, snapshot } from "./helpers.js";

let box: Sandbox;
let outsideBefore: Record<string, string>;
let evilBefore: Record<string, string>;

beforeAll(async () => {
  box = await makeSandbox();
  outsideBefore = await snapshot(box.outside);
  evilBefore = await snapshot(box.rootEvil);
});

afterAll(async () => {
  await box.dispose();
});

type Code = "PERMISSION_DENIED" | "ARGUMENT_INVALID";

/**
 * Paths that must never reach a file outside the roots. Each is tried with every tool; `system` ones point at the
 * machine's own files and are only tried with tools that do not write, so a broken check cannot damage anything.
 * A function gets the sandbox, for absolute paths into it.
 */
const HOSTILE: [label: string, path: string | ((b: Sandbox) => string), code: Code, system?: "system"][] = [
  // ".." in every spelling
  ["parent", "..", "PERMISSION_DENIED"],
  ["parent then sibling", "../outside/secret.txt", "PERMISSION_DENIED"],
  ["dot parent", "./../outside/secret.txt", "PERMISSION_DENIED"],
  ["down then up twice", "sub/../../outside/secret.txt", "PERMISSION_DENIED"],
  ["down then up, staying inside", "sub/../hello.txt", "PERMISSION_DENIED"],
  ["trailing parent", "sub/..", "PERMISSION_DENIED"],
  ["doubled slashes with parent", "sub//..//..//outside/secret.txt", "PERMISSION_DENIED"],
  ["missing folder then up", "missing/../../outside/new.txt", "PERMISSION_DENIED"],
  // backslashes are separators
  ["backslash parent", "..\\outside\\secret.txt", "PERMISSION_DENIED"],
  ["backslash down then up", "sub\\..\\..\\outside\\secret.txt", "PERMISSION_DENIED"],
  ["mixed separators", "sub/..\\../outside/secret.txt", "PERMISSION_DENIED"],
  ["backslash absolute", (b) => `${b.outside.replaceAll("/", "\\")}\\secret.txt`, "PERMISSION_DENIED"],
  // absolute paths outside the roots
  ["absolute outside", (b) => path.join(b.outside, "secret.txt"), "PERMISSION_DENIED"],
  ["absolute outside, new file", (b) => path.join(b.outside, "new.txt"), "PERMISSION_DENIED"],
  ["absolute through the root and up", (b) => `${b.root}/../outside/secret.txt`, "PERMISSION_DENIED"],
  ["absolute sibling sharing the root's prefix", (b) => path.join(b.rootEvil, "x.txt"), "PERMISSION_DENIED"],
  ["absolute parent of the roots", (b) => b.base, "PERMISSION_DENIED"],
  ["absolute system file", "/etc/passwd", "PERMISSION_DENIED", "system"],
  ["filesystem root", "/", "PERMISSION_DENIED", "system"],
  // Windows forms
  ["drive letter, backslashes", "C:\\Windows\\win.ini", "PERMISSION_DENIED", "system"],
  ["drive letter, slashes", "c:/x.txt", "PERMISSION_DENIED"],
  ["drive-relative", "C:x.txt", "PERMISSION_DENIED"],
  ["UNC share", "\\\\server\\share\\file.txt", "PERMISSION_DENIED"],
  ["UNC with slashes", "//server/share/file.txt", "PERMISSION_DENIED"],
  ["device namespace", "\\\\?\\C:\\x.txt", "PERMISSION_DENIED"],
  // NUL bytes and control characters
  ["NUL before an extension", "hello.txt\0.png", "PERMISSION_DENIED"],
  ["NUL alone", "\0", "PERMISSION_DENIED"],
  ["NUL after a parent", "..\0/x", "PERMISSION_DENIED"],
  ["newline hiding a parent", "hello.txt\n/../x", "PERMISSION_DENIED"],
  ["newline in a name", "hello.txt\nx", "ARGUMENT_INVALID"],
  ["control character", "hel\u0007lo.txt", "ARGUMENT_INVALID"],
  // home folders
  ["home", "~/.ssh/id_rsa", "PERMISSION_DENIED"],
  ["another user's home", "~root/.bashrc", "PERMISSION_DENIED"],
  // symbolic links
  ["link to a file outside", "link-secret", "PERMISSION_DENIED"],
  ["through a linked folder outside", "link-out/secret.txt", "PERMISSION_DENIED"],
  ["the linked folder itself", "link-out", "PERMISSION_DENIED"],
  ["relative link to outside", "link-out-rel/secret.txt", "PERMISSION_DENIED"],
  ["chain of links", "link-chain/deep/secret2.txt", "PERMISSION_DENIED"],
  ["link in a sub-folder going up", "sub/link-up/secret.txt", "PERMISSION_DENIED"],
  ["link to the parent of the roots", "link-base/outside/secret.txt", "PERMISSION_DENIED"],
  ["link to /", "link-slash/etc/passwd", "PERMISSION_DENIED", "system"],
  ["new file in a linked folder outside", "link-out/new.txt", "PERMISSION_DENIED"],
  ["new folders under a linked folder outside", "link-out/a/b/c/new.txt", "PERMISSION_DENIED"],
  ["broken link pointing outside", "dangling", "PERMISSION_DENIED"],
  ["broken link as a parent", "dangling/child.txt", "PERMISSION_DENIED"],
  ["broken link inside", "dangling-in", "PERMISSION_DENIED"],
  ["link loop", "loop1", "PERMISSION_DENIED"],
  ["through a link loop", "loop1/x.txt", "PERMISSION_DENIED"],
  ["absolute path to a link outside", (b) => path.join(b.root, "link-secret"), "PERMISSION_DENIED"],
];

const pathOf = (p: string | ((b: Sandbox) => string)) => (typeof p === "function" ? p(box) : p);

describe("hostile paths", () => {
  it("has a table of at least 30", () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
  });

  it.each(HOSTILE)("%s: every reading tool refuses", async (_label, raw, code) => {
    const p = pathOf(raw);
    const calls: [string, () => Promise<unknown>][] = [
      ["read_file", () => readFile({ path: p, encoding: "utf-8", offset: 0 }, box.ctx)],
      ["file_info", () => fileInfo({ path: p }, box.ctx)],
      ["list_directory", () => listDirectory({ path: p, recursive: true, limit: 50 }, box.ctx)],
    ];
    for (const [tool, call] of calls) {
      const error = await failure(call());
      expect(error.code, `${tool}: ${error.message}`).toBe(code);
      expect(error.field, tool).toBe("/path");
    }
  });

  it.each(HOSTILE.filter((row) => row[3] !== "system"))(
    "%s: every writing tool refuses and nothing outside changes",
    async (_label, raw, code) => {
      const p = pathOf(raw);
      const calls: [string, () => Promise<unknown>, string][] = [
        [
          "write_file",
          () =>
            writeFile(
              { path: p, content: "pwned", encoding: "utf-8", overwrite: true, create_directories: true },
              box.ctx,
            ),
          "/path",
        ],
        [
          "append_file",
          () => appendFile({ path: p, content: "pwned", encoding: "utf-8", create_directories: true }, box.ctx),
          "/path",
        ],
        ["delete_file", () => deleteFile({ path: p, recursive: true }, box.ctx), "/path"],
        [
          "move_file (source)",
          () => moveFile({ source: p, destination: "moved.txt", overwrite: true, create_directories: true }, box.ctx),
          "/source",
        ],
        [
          "move_file (destination)",
          () => moveFile({ source: "hello.txt", destination: p, overwrite: true, create_directories: true }, box.ctx),
          "/destination",
        ],
      ];
      for (const [tool, call, field] of calls) {
        const error = await failure(call());
        expect(error.code, `${tool}: ${error.message}`).toBe(code);
        expect(error.field, tool).toBe(field);
      }
      expect(await snapshot(box.outside)).toEqual(outsideBefore);
      expect(await snapshot(box.rootEvil)).toEqual(evilBefore);
      expect((await lstat(path.join(box.root, "hello.txt"))).isFile()).toBe(true);
      expect(await readlink(path.join(box.root, "dangling"))).toBe(path.join(box.outside, "not-yet.txt"));
    },
  );

  it("names the roots in the refusal, so the caller knows where it may go", async () => {
    const error = await failure(readFile({ path: "../outside/secret.txt", encoding: "utf-8", offset: 0 }, box.ctx));
    expect(error.message).toContain(box.root);
    expect(error.message).toContain(box.root2);
    expect(error.retryable).toBe(false);
  });

  it("never shows where a link outside points", async () => {
    const error = await failure(readFile({ path: "link-secret", encoding: "utf-8", offset: 0 }, box.ctx));
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
      box.ctx,
    );
    expect(written.data.path.startsWith(`${box.root}/`)).toBe(true);
    expect(await snapshot(box.outside)).toEqual(outsideBefore);
  });

  it("follows links that stay inside the roots, also from one root to another", async () => {
    expect((await readFile({ path: "link-in", encoding: "utf-8", offset: 0 }, box.ctx)).data.content).toBe("hello\n");
    expect((await readFile({ path: "link-sub/inner.txt", encoding: "utf-8", offset: 0 }, box.ctx)).data.content).toBe(
      "inner\n",
    );
    const other = await readFile({ path: "link-root2/file2.txt", encoding: "utf-8", offset: 0 }, box.ctx);
    expect(other.data).toMatchObject({ content: "second root\n", path: path.join(box.root2, "file2.txt") });
    const viaBase = await readFile({ path: "link-base/root/hello.txt", encoding: "utf-8", offset: 0 }, box.ctx);
    expect(viaBase.data.content).toBe("hello\n");
  });

  it("takes absolute paths inside any root", async () => {
    const second = await readFile({ path: path.join(box.root2, "file2.txt"), encoding: "utf-8", offset: 0 }, box.ctx);
    expect(second.data.content).toBe("second root\n");
    const backslashed = box.root2.replaceAll("/", "\\");
    const viaBackslashes = await fileInfo({ path: `${backslashed}\\file2.txt` }, box.ctx);
    expect(viaBackslashes.data.type).toBe("file");
  });

  it("answers NOT_FOUND, not a refusal, for a missing file inside", async () => {
    const error = await failure(readFile({ path: "nope.txt", encoding: "utf-8", offset: 0 }, box.ctx));
    expect(error).toMatchObject({ code: "NOT_FOUND", field: "/path" });
  });

  it("refuses every path when a root does not exist, saying so", async () => {
    const config = FilesConfig.parse({ roots: [path.join(box.base, "gone")] });
    const error = await failure(readFile({ path: "x", encoding: "utf-8", offset: 0 }, { ...box.ctx, config }));
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toContain("roots");
  });
});
