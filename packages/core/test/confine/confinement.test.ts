import { execFileSync } from "node:child_process";
import { lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { failure } from "@skillport/test-utils";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Confinement, ConfinementOptions } from "../../src/confine/index.js";
import { createConfinement, DEFAULT_PROTECTED_NAMES } from "../../src/confine/index.js";
import type { HostileTree } from "../../src/confine/testing.js";
import { CANARY, HOSTILE_PATHS, hostilePath, makeHostileTree } from "../../src/confine/testing.js";

let tree: HostileTree;

beforeAll(async () => {
  tree = await makeHostileTree();
});

afterAll(async () => {
  await tree?.dispose();
});

const CHECKS = ["auto", "inode"] as const;

function jailFor(check: ConfinementOptions["descriptorCheck"], extra: Partial<ConfinementOptions> = {}) {
  return createConfinement({ roots: [tree.root, tree.root2], descriptorCheck: check, ...extra });
}

describe.each(CHECKS)("the hostile-path corpus, descriptor check %s", (check) => {
  let jail: Confinement;
  beforeAll(async () => {
    jail = await jailFor(check);
  });

  it("has a corpus of at least 50 paths", () => {
    expect(HOSTILE_PATHS.length).toBeGreaterThanOrEqual(50);
  });

  it.each(HOSTILE_PATHS.map((entry) => [entry.label, entry] as const))("refuses %s", async (_label, entry) => {
    const error = await failure(jail.resolve(hostilePath(entry, tree), "/path"));
    expect(error.code, error.message).toBe(entry.code);
    expect(error.field).toBe("/path");
    expect(error.message).not.toContain(CANARY);
  });

  it("names the roots in a refusal and never where a link outside points", async () => {
    const error = await failure(jail.resolve("link-secret", "/path"));
    expect(error.message).toContain(tree.root);
    expect(error.message).toContain(tree.root2);
    expect(error.message).toContain("symbolic link");
    expect(error.message).not.toContain("secret.txt");
    expect(error.retryable).toBe(false);
  });

  it("resolves paths that look odd but stay inside, and links that stay inside", async () => {
    for (const odd of ["%2e%2e/%2e%2e/outside/x", "．．/outside/x", ".../x", "..x", "./odd.txt"]) {
      expect((await jail.resolve(odd, "/path")).real.startsWith(`${tree.root}/`)).toBe(true);
    }
    expect(await jail.resolve("link-in", "/path")).toMatchObject({
      real: path.join(tree.root, "hello.txt"),
      entry: path.join(tree.root, "link-in"),
      root: tree.root,
    });
    expect((await jail.resolve("link-root2/file2.txt", "/p")).root).toBe(tree.root2);
    expect((await jail.resolve(`${tree.root2.replaceAll("/", "\\")}\\file2.txt`, "/p")).real).toBe(
      path.join(tree.root2, "file2.txt"),
    );
  });

  it("maps ENAMETOOLONG from the system, after the base makes the path too long, to ARGUMENT_INVALID", async () => {
    const error = await failure(jail.resolve("ab/".repeat(1360), "/path"));
    expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
    expect(error.message).toContain("too long");
  });

  it("refuses absolute paths when told to, and starts relative paths at the base", async () => {
    const notes = await createConfinement({
      roots: [path.join(tree.root, "sub")],
      base: tree.root,
      absolutePaths: false,
      descriptorCheck: check,
      hint: "give a path inside sub/",
    });
    const error = await failure(notes.resolve(path.join(tree.root, "sub", "inner.txt"), "/path"));
    expect(error.message).toBe(
      `path "${path.join(tree.root, "sub", "inner.txt")}" is absolute; give a path inside sub/`,
    );
    expect((await notes.resolve("sub/inner.txt", "/path")).real).toBe(path.join(tree.root, "sub", "inner.txt"));
    expect((await failure(notes.resolve("hello.txt", "/path"))).message).toContain("is outside the roots");
  });

  it("answers UNAVAILABLE for a missing root, or leaves it out when told to", async () => {
    const missing = path.join(tree.base, "gone");
    const error = await failure(createConfinement({ roots: [missing] }));
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toContain("roots");
    const skipping = await createConfinement({ roots: [missing, tree.root2], missingRoots: "skip" });
    expect(skipping.roots).toEqual([tree.root2]);
  });
});

describe.each(CHECKS)("opening, descriptor check %s", (check) => {
  let jail: Confinement;
  beforeAll(async () => {
    jail = await jailFor(check);
  });

  it("reads a file, also through a link that stays inside, and says where it really is", async () => {
    const file = await jail.openFile(await jail.resolve("link-in", "/path"));
    try {
      expect(file.path).toBe(path.join(tree.root, "hello.txt"));
      expect(file.root).toBe(tree.root);
      expect(file.stats.isFile()).toBe(true);
      expect((await file.handle.readFile()).toString()).toBe("hello\n");
    } finally {
      await file.handle.close();
    }
  });

  it("refuses a folder, a root, and a missing file", async () => {
    expect(await failure(jail.openFile(await jail.resolve("sub", "/path")))).toMatchObject({
      code: "ARGUMENT_INVALID",
      message: '"sub" is a folder, not a file',
    });
    expect((await failure(jail.openFile(await jail.resolve(".", "/path")))).code).toBe("ARGUMENT_INVALID");
    expect((await failure(jail.openFile(await jail.resolve("nope.txt", "/path")))).code).toBe("NOT_FOUND");
  });

  it("refuses a FIFO and a socket without blocking, more of them at once than libuv has threads", async () => {
    const fifos = Array.from({ length: 8 }, (_, i) => path.join(tree.root, `pipe${i}-${check}.md`));
    for (const fifo of fifos) execFileSync("mkfifo", [fifo]);
    const socketPath = path.join(tree.root, `sock-${check}`);
    const server = net.createServer().listen(socketPath);
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const errors = await Promise.all(
        [...fifos, socketPath].map(async (p) => failure(jail.openFile(await jail.resolve(p, "/path")))),
      );
      for (const error of errors) {
        expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
        expect(error.message).toContain("not a regular file");
      }
      // the thread pool is free: an ordinary read still answers
      const file = await jail.openFile(await jail.resolve("hello.txt", "/path"));
      await file.handle.close();
    } finally {
      server.close();
    }
  });

  it("opens a folder and lists it; a file answers ARGUMENT_INVALID", async () => {
    const dir = await jail.openDirectory(await jail.resolve("link-sub", "/path"));
    try {
      expect(dir.path).toBe(path.join(tree.root, "sub"));
      expect((await dir.list()).map((e) => e.name).sort()).toEqual(["inner.txt", "link-up"]);
      expect((await dir.lstat("link-up"))?.isSymbolicLink()).toBe(true);
      expect(await dir.lstat("missing")).toBeUndefined();
      // a link inside is never followed by name
      expect((await failure(dir.openDirectory("link-up"))).code).toBe("PERMISSION_DENIED");
    } finally {
      await dir.close();
    }
    expect(await failure(jail.openDirectory(await jail.resolve("hello.txt", "/path")))).toMatchObject({
      code: "ARGUMENT_INVALID",
      message: '"hello.txt" is a file, not a folder',
    });
  });

  it("stats the target through its folder", async () => {
    expect((await jail.stat(await jail.resolve("link-in", "/path"))).size).toBe(6);
    expect((await jail.stat(await jail.resolve(".", "/path"))).isDirectory()).toBe(true);
    expect((await failure(jail.stat(await jail.resolve("nope", "/path")))).code).toBe("NOT_FOUND");
  });
});

describe.each(CHECKS)("writing, descriptor check %s", (check) => {
  let jail: Confinement;
  let work: string;
  let n = 0;
  beforeAll(async () => {
    jail = await jailFor(check);
  });
  afterEach(() => {
    n++;
  });
  const fresh = async () => {
    work = `w-${check}-${n}`;
    await mkdir(path.join(tree.root, work));
    return work;
  };

  it("writes atomically: creates, refuses to replace without overwrite, replaces, appends; no temp file left", async () => {
    const w = await fresh();
    const target = await jail.resolve(`${w}/a.txt`, "/path");
    const dir = await jail.openParent(target);
    try {
      await dir.writeAtomic("a.txt", Buffer.from("one\n"), { overwrite: false, mode: 0o600 });
      expect(await readFile(path.join(tree.root, w, "a.txt"), "utf8")).toBe("one\n");
      expect((await stat(path.join(tree.root, w, "a.txt"))).mode & 0o777).toBe(0o600);
      const conflict = await failure(dir.writeAtomic("a.txt", Buffer.from("two\n"), { overwrite: false }));
      expect(conflict).toMatchObject({ code: "CONFLICT", field: "/path" });
      await dir.writeAtomic("a.txt", Buffer.from("two\n"), { overwrite: true });
      await dir.writeAtomic("a.txt", Buffer.from("three\n"), { overwrite: true, append: true });
      expect(await readFile(path.join(tree.root, w, "a.txt"), "utf8")).toBe("two\nthree\n");
      expect(await readdir(path.join(tree.root, w))).toEqual(["a.txt"]);
    } finally {
      await dir.close();
    }
  });

  it("creates missing folders on the way, each through its checked parent, and only when asked", async () => {
    const w = await fresh();
    const target = await jail.resolve(`${w}/x/y/z.txt`, "/path");
    expect((await failure(jail.openParent(target))).code).toBe("NOT_FOUND");
    const dir = await jail.openParent(target, { create: true });
    try {
      expect(dir.path).toBe(path.join(tree.root, w, "x", "y"));
      await dir.writeAtomic("z.txt", Buffer.from("z"), { overwrite: false });
    } finally {
      await dir.close();
    }
    expect(await readFile(path.join(tree.root, w, "x", "y", "z.txt"), "utf8")).toBe("z");
  });

  it("never opens a root's parent: a root cannot be replaced, moved or deleted", async () => {
    const error = await failure(jail.openParent(await jail.resolve(".", "/path")));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", message: expect.stringContaining("is a root itself") });
  });

  it("moves without replacing unless told, files and folders, across folders and roots", async () => {
    const w = await fresh();
    await writeFile(path.join(tree.root, w, "a.txt"), "a");
    await writeFile(path.join(tree.root, w, "b.txt"), "b");
    await mkdir(path.join(tree.root, w, "folder"));
    const dir = await jail.openParent(await jail.resolve(`${w}/a.txt`, "/source"));
    const other = await jail.openDirectory(await jail.resolve(tree.root2, "/destination"));
    try {
      expect((await failure(dir.rename("a.txt", dir, "b.txt"))).code).toBe("CONFLICT");
      expect((await failure(dir.rename("folder", dir, "b.txt"))).code).toBe("CONFLICT");
      await dir.rename("a.txt", dir, "b.txt", { overwrite: true });
      expect(await readFile(path.join(tree.root, w, "b.txt"), "utf8")).toBe("a");
      await dir.rename("b.txt", other, `moved-${w}.txt`);
      await dir.rename("folder", dir, "folder2");
      expect((await failure(dir.rename("gone.txt", dir, "x.txt"))).code).toBe("NOT_FOUND");
    } finally {
      await dir.close();
      await other.close();
    }
    expect(await readdir(path.join(tree.root, w))).toEqual(["folder2"]);
    expect(await readFile(path.join(tree.root2, `moved-${w}.txt`), "utf8")).toBe("a");
  });

  it("removes a file, a link (never its target), an empty folder, and a whole tree only when recursive", async () => {
    const w = await fresh();
    await mkdir(path.join(tree.root, w, "tree", "deep"), { recursive: true });
    await writeFile(path.join(tree.root, w, "tree", "deep", "f"), "f");
    await symlink(path.join(tree.outside, "secret.txt"), path.join(tree.root, w, "tree", "out-link"));
    await symlink(tree.outside, path.join(tree.root, w, "tree", "out-dir"));
    await writeFile(path.join(tree.root, w, "file"), "x");
    await mkdir(path.join(tree.root, w, "empty"));
    const dir = await jail.openDirectory(await jail.resolve(w, "/path"));
    try {
      await dir.remove("file");
      await dir.remove("empty");
      expect(await failure(dir.remove("tree"))).toMatchObject({ code: "CONFLICT" });
      await dir.remove("tree", { recursive: true });
      expect((await failure(dir.remove("tree"))).code).toBe("NOT_FOUND");
    } finally {
      await dir.close();
    }
    expect(await readdir(path.join(tree.root, w))).toEqual([]);
    expect(await readFile(path.join(tree.outside, "secret.txt"), "utf8")).toContain(CANARY);
    expect((await readdir(tree.outside)).sort()).toEqual(["deep", "secret.md", "secret.txt"]);
  });
});

describe("protected names", () => {
  let w: string;
  beforeAll(async () => {
    w = path.join(tree.root, "repo");
    await mkdir(path.join(w, ".git", "hooks"), { recursive: true });
    await writeFile(path.join(w, ".git", "config"), "[core]\n");
    await writeFile(path.join(w, "README"), "readme");
    await symlink(".git", path.join(w, "g"));
  });

  it("default to .git, .hg and .jj", () => {
    expect(DEFAULT_PROTECTED_NAMES).toEqual([".git", ".hg", ".jj"]);
  });

  it.each([
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/new-folder/x",
    ".git",
    "sub/.hg/hgrc",
    ".jj/repo/config.toml",
    ".GIT/config",
    ".git./config",
    ".g\u200cit/config",
    ".git\ufe0f/config",
    "g/config",
  ])("refuse writes to repo/%s", async (rel) => {
    const jail = await createConfinement({ roots: [tree.root] });
    const target = await jail.resolve(`repo/${rel}`, "/path");
    const error = await failure((async () => jail.assertWritable(target))());
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/path" });
    expect(error.message).toMatch(/is inside "\.(git|hg|jj)", which is protected from writes/);
  });

  it("are checked on the checked folder too, whatever path led there", async () => {
    const jail = await createConfinement({ roots: [tree.root] });
    const dir = await jail.openParent(await jail.resolve("repo/g/config", "/path"));
    try {
      expect(dir.path).toBe(path.join(w, ".git"));
      for (const write of [
        () => dir.writeAtomic("config", Buffer.from("[core]\n\tfsmonitor = evil\n"), { overwrite: true }),
        () => dir.writeAtomic("new", Buffer.from("x"), { overwrite: false }),
        () => dir.mkdir("hooks2"),
        () => dir.remove("config"),
        () => dir.rename("config", dir, "config.bak"),
      ]) {
        expect((await failure(write())).code).toBe("PERMISSION_DENIED");
      }
      // reads stay allowed
      const file = await dir.openFile("config");
      await file.handle.close();
    } finally {
      await dir.close();
    }
    expect(await readFile(path.join(w, ".git", "config"), "utf8")).toBe("[core]\n");
  });

  it("refuse a move into or out of a protected folder, and creating one", async () => {
    const jail = await createConfinement({ roots: [tree.root] });
    const repo = await jail.openDirectory(await jail.resolve("repo", "/path"));
    const git = await jail.openDirectory(await jail.resolve("repo/.git", "/path"));
    try {
      expect((await failure(repo.rename("README", git, "README"))).code).toBe("PERMISSION_DENIED");
      expect((await failure(git.rename("config", repo, "config"))).code).toBe("PERMISSION_DENIED");
      expect((await failure(repo.rename("README", repo, ".git"))).code).toBe("PERMISSION_DENIED");
      expect((await failure(repo.mkdir(".hg"))).code).toBe("PERMISSION_DENIED");
    } finally {
      await repo.close();
      await git.close();
    }
  });

  it("refuse a recursive delete of a folder holding one, before anything is deleted", async () => {
    const jail = await createConfinement({ roots: [tree.root] });
    const root = await jail.openDirectory(await jail.resolve(".", "/path"));
    try {
      const error = await failure(root.remove("repo", { recursive: true }));
      expect(error.message).toContain('".git"');
    } finally {
      await root.close();
    }
    expect((await lstat(path.join(w, "README"))).isFile()).toBe(true);
    expect(await readlink(path.join(w, "g"))).toBe(".git");
  });

  it("are off with protectedNames: []", async () => {
    const jail = await createConfinement({ roots: [tree.root], protectedNames: [] });
    const target = await jail.resolve("repo/.git/hooks/post-checkout", "/path");
    jail.assertWritable(target);
    const dir = await jail.openParent(target);
    try {
      await dir.writeAtomic("post-checkout", Buffer.from("#!/bin/sh\n"), { overwrite: false });
    } finally {
      await dir.close();
    }
    expect(await readFile(path.join(w, ".git", "hooks", "post-checkout"), "utf8")).toBe("#!/bin/sh\n");
  });
});
