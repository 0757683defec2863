import { lstat, mkdir, readFile as readBytes, readlink, stat, writeFile as writeBytes } from "node:fs/promises";
import path from "node:path";
import { failure } from "@skillport/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteFile, fileInfo, listDirectory, moveFile } from "../src/index.js";
import type { Sandbox } from "./helpers.js";
import { ctxFor, makeSandbox } from "./helpers.js";

let box: Sandbox;

beforeEach(async () => {
  box = await makeSandbox();
});

afterEach(async () => {
  await box.dispose();
});

const exists = (p: string) =>
  lstat(p).then(
    () => true,
    () => false,
  );

describe("list_directory", () => {
  it("lists one level, sorted, with types and sizes, links shown as links", async () => {
    const out = await listDirectory({ path: "sub", recursive: false, limit: 500 }, box.ctx);
    expect(out.data.path).toBe(path.join(box.root, "sub"));
    expect(out.data.entries.map((e) => [e.path, e.type, e.size])).toEqual([
      ["inner.txt", "file", 6],
      ["link-up", "symlink", null],
    ]);
    expect(out.data).toMatchObject({ truncated: false, depth: 1 });
    expect(Date.parse(out.data.entries[0]?.modified ?? "")).not.toBeNaN();
  });

  it("lists recursively, breadth first, down to depth, never following links", async () => {
    await mkdir(path.join(box.root, "sub", "deeper", "deepest"), { recursive: true });
    await writeBytes(path.join(box.root, "sub", "deeper", "deepest", "bottom.txt"), "b");
    const two = await listDirectory({ path: ".", recursive: true, depth: 2, limit: 500 }, box.ctx);
    const paths = two.data.entries.map((e) => e.path);
    expect(paths).toContain("sub/inner.txt");
    expect(paths).toContain("sub/deeper");
    expect(paths).not.toContain("sub/deeper/deepest");
    expect(paths.indexOf("hello.txt")).toBeLessThan(paths.indexOf("sub/inner.txt"));
    // links (link-out, link-slash, sub/link-up lead outside) are listed, their contents are not
    const links = two.data.entries.filter((e) => e.type === "symlink").map((e) => e.path);
    expect(links).toEqual(expect.arrayContaining(["link-out", "link-slash", "sub/link-up", "link-sub"]));
    expect(paths.filter((p) => links.some((link) => p.startsWith(`${link}/`)))).toEqual([]);
    const all = await listDirectory({ path: ".", recursive: true, limit: 500 }, box.ctx);
    expect(all.data.depth).toBe(3);
    expect(all.data.entries.map((e) => e.path)).toContain("sub/deeper/deepest");
    expect(all.data.entries.map((e) => e.path)).not.toContain("sub/deeper/deepest/bottom.txt");
  });

  it("stops at the limit, says it was truncated, and reports progress on long listings", async () => {
    await mkdir(path.join(box.root, "many"));
    await Promise.all(
      Array.from({ length: 450 }, (_, i) =>
        writeBytes(path.join(box.root, "many", `f${String(i).padStart(3, "0")}`), ""),
      ),
    );
    const progress: number[] = [];
    const ctx = ctxFor(box.config, { progress: (done) => progress.push(done) });
    const out = await listDirectory({ path: "many", recursive: false, limit: 420 }, ctx);
    expect(out.data.entries).toHaveLength(420);
    expect(out.data.truncated).toBe(true);
    expect(out.message).toContain("limit 420 reached");
    expect(progress).toEqual([200, 400]);
  });

  it("refuses a file, and depth without recursive", async () => {
    await expect(listDirectory({ path: "hello.txt", recursive: false, limit: 5 }, box.ctx)).rejects.toMatchObject({
      code: "ARGUMENT_INVALID",
      field: "/path",
    });
    await expect(listDirectory({ path: ".", recursive: false, depth: 2, limit: 5 }, box.ctx)).rejects.toMatchObject({
      code: "ARGUMENT_INVALID",
      field: "/depth",
    });
  });

  it("stops when the call is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      listDirectory({ path: ".", recursive: true, limit: 5 }, ctxFor(box.config, { signal: controller.signal })),
    ).rejects.toThrow();
  });
});

describe("file_info", () => {
  it("describes a file and a folder", async () => {
    const file = await fileInfo({ path: "hello.txt" }, box.ctx);
    expect(file.data).toMatchObject({
      path: path.join(box.root, "hello.txt"),
      real_path: path.join(box.root, "hello.txt"),
      root: box.root,
      type: "file",
      symbolic_link: false,
      size: 6,
    });
    expect(file.data.mode).toMatch(/^0[0-7]{3,4}$/);
    expect((await fileInfo({ path: "." }, box.ctx)).data).toMatchObject({ type: "directory", path: box.root });
  });

  it("shows a link inside the roots and where it leads", async () => {
    const info = await fileInfo({ path: "link-sub" }, box.ctx);
    expect(info.data).toMatchObject({
      path: path.join(box.root, "link-sub"),
      real_path: path.join(box.root, "sub"),
      type: "directory",
      symbolic_link: true,
    });
  });

  it("answers NOT_FOUND for nothing there", async () => {
    await expect(fileInfo({ path: "nothing.txt" }, box.ctx)).rejects.toMatchObject({
      code: "NOT_FOUND",
      field: "/path",
    });
  });
});

describe("move_file", () => {
  const move = (
    source: string,
    destination: string,
    extra: { overwrite?: boolean; create_directories?: boolean } = {},
  ) => moveFile({ source, destination, overwrite: false, create_directories: false, ...extra }, box.ctx);

  it("renames a file", async () => {
    const out = await move("hello.txt", "greeting.txt");
    expect(out.data).toEqual({
      source: path.join(box.root, "hello.txt"),
      destination: path.join(box.root, "greeting.txt"),
      replaced: false,
    });
    expect(await exists(path.join(box.root, "hello.txt"))).toBe(false);
    expect(await readBytes(path.join(box.root, "greeting.txt"), "utf8")).toBe("hello\n");
  });

  it("moves between roots", async () => {
    await move("hello.txt", path.join(box.root2, "hello.txt"));
    expect(await readBytes(path.join(box.root2, "hello.txt"), "utf8")).toBe("hello\n");
  });

  it("never replaces without overwrite, and never replaces a folder", async () => {
    const error = await failure(move("hello.txt", "sub/inner.txt"));
    expect(error).toMatchObject({ code: "CONFLICT", field: "/destination" });
    expect(await readBytes(path.join(box.root, "sub", "inner.txt"), "utf8")).toBe("inner\n");
    expect(await exists(path.join(box.root, "hello.txt"))).toBe(true);
    const replaced = await move("hello.txt", "sub/inner.txt", { overwrite: true });
    expect(replaced.data.replaced).toBe(true);
    expect(await readBytes(path.join(box.root, "sub", "inner.txt"), "utf8")).toBe("hello\n");
    await writeBytes(path.join(box.root, "a.txt"), "a");
    await expect(move("a.txt", "sub", { overwrite: true })).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("moves folders, but not into themselves, and never a root", async () => {
    await move("sub", "moved-sub");
    expect(await readBytes(path.join(box.root, "moved-sub", "inner.txt"), "utf8")).toBe("inner\n");
    await expect(move("moved-sub", "moved-sub/inside")).rejects.toMatchObject({
      code: "ARGUMENT_INVALID",
      field: "/destination",
    });
    await expect(move(".", "elsewhere")).rejects.toMatchObject({ code: "PERMISSION_DENIED", field: "/source" });
    await expect(move("hello.txt", box.root2, { overwrite: true })).rejects.toMatchObject({
      code: "PERMISSION_DENIED",
      field: "/destination",
    });
  });

  it("moves a link as a link, leaving its target alone", async () => {
    await move("link-in", "link-renamed");
    expect(await readlink(path.join(box.root, "link-renamed"))).toBe("hello.txt");
    expect(await readBytes(path.join(box.root, "hello.txt"), "utf8")).toBe("hello\n");
  });

  it("creates the destination's folders only when asked", async () => {
    await expect(move("hello.txt", "x/y/hello.txt")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await move("hello.txt", "x/y/hello.txt", { create_directories: true });
    expect(await exists(path.join(box.root, "x", "y", "hello.txt"))).toBe(true);
  });

  it("answers NOT_FOUND for a missing source", async () => {
    await expect(move("nope.txt", "x.txt")).rejects.toMatchObject({ code: "NOT_FOUND", field: "/source" });
  });
});

describe("delete_file", () => {
  const del = (p: string, recursive = false) => deleteFile({ path: p, recursive }, box.ctx);

  it("deletes a file", async () => {
    expect((await del("hello.txt")).data).toEqual({ path: path.join(box.root, "hello.txt"), type: "file" });
    expect(await exists(path.join(box.root, "hello.txt"))).toBe(false);
  });

  it("deletes a link, never its target", async () => {
    expect((await del("link-in")).data.type).toBe("symlink");
    expect(await exists(path.join(box.root, "link-in"))).toBe(false);
    expect(await readBytes(path.join(box.root, "hello.txt"), "utf8")).toBe("hello\n");
    await del("link-sub");
    expect((await stat(path.join(box.root, "sub"))).isDirectory()).toBe(true);
  });

  it("deletes a non-empty folder only with recursive", async () => {
    await mkdir(path.join(box.root, "empty"));
    await del("empty");
    const error = await failure(del("sub"));
    expect(error).toMatchObject({ code: "CONFLICT", field: "/recursive" });
    expect(await exists(path.join(box.root, "sub", "inner.txt"))).toBe(true);
    await del("sub", true);
    expect(await exists(path.join(box.root, "sub"))).toBe(false);
    // the link inside sub pointed outside: deleting the folder removed the link, not what it pointed to
    expect(await readBytes(path.join(box.outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  it("never deletes a root", async () => {
    for (const p of [".", box.root2, `${box.root}/`]) {
      await expect(del(p, true)).rejects.toMatchObject({ code: "PERMISSION_DENIED", field: "/path" });
    }
    expect(await exists(path.join(box.root, "hello.txt"))).toBe(true);
    expect(await exists(path.join(box.root2, "file2.txt"))).toBe(true);
  });

  it("answers NOT_FOUND for nothing there", async () => {
    await expect(del("gone.txt")).rejects.toMatchObject({ code: "NOT_FOUND", field: "/path" });
  });
});
