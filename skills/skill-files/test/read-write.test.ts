import { execFileSync } from "node:child_process";
import {
  chmod,
  mkdir,
  readFile as readBytes,
  readdir,
  readlink,
  stat,
  writeFile as writeBytes,
} from "node:fs/promises";
import path from "node:path";
import { failure } from "@skillport/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendFile, FilesConfig, readFile, writeFile } from "../src/index.js";
import type { Sandbox } from "./helpers.js";
import { ctxFor, makeSandbox } from "./helpers.js";

let box: Sandbox;

beforeEach(async () => {
  box = await makeSandbox();
});

afterEach(async () => {
  await box.dispose();
});

const read = (p: string, extra: { encoding?: "utf-8" | "base64"; offset?: number; max_bytes?: number } = {}) =>
  readFile({ path: p, encoding: "utf-8", offset: 0, ...extra }, box.ctx);

const write = (
  p: string,
  content: string,
  extra: { overwrite?: boolean; create_directories?: boolean; encoding?: "utf-8" | "base64" } = {},
) => writeFile({ path: p, content, encoding: "utf-8", overwrite: false, create_directories: false, ...extra }, box.ctx);

/** Names in a folder that are neither expected nor ours: a leftover temporary file would show here. */
async function leftovers(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith(".skillport-tmp"));
}

describe("read_file", () => {
  it("reads text with its real path, size and evidence", async () => {
    const out = await read("sub/inner.txt");
    expect(out.data).toEqual({
      path: path.join(box.root, "sub", "inner.txt"),
      encoding: "utf-8",
      content: "inner\n",
      offset: 0,
      bytes: 6,
      size: 6,
      truncated: false,
      next_offset: null,
    });
    expect(out.evidencePaths).toEqual([path.join(box.root, "sub", "inner.txt")]);
  });

  it("reads exact bytes as base64", async () => {
    const bytes = Buffer.from([0, 255, 1, 254, 10, 13]);
    await writeBytes(path.join(box.root, "bin.dat"), bytes);
    const out = await read("bin.dat", { encoding: "base64" });
    expect(Buffer.from(out.data.content, "base64")).toEqual(bytes);
  });

  it("reads a large file in parts, never splitting a character", async () => {
    const text = "añ€😀".repeat(50); // 1 + 2 + 3 + 4 bytes per round
    await writeBytes(path.join(box.root, "multi.txt"), text);
    let offset = 0;
    let joined = "";
    for (let calls = 0; calls < 200; calls++) {
      const out = await read("multi.txt", { offset, max_bytes: 7 });
      expect(out.data.content).not.toContain("\uFFFD");
      joined += out.data.content;
      if (out.data.next_offset === null) break;
      expect(out.data.truncated).toBe(true);
      expect(out.message).toContain(`continue at offset ${out.data.next_offset}`);
      offset = out.data.next_offset;
    }
    expect(joined).toBe(text);
  });

  it("caps a read at the instance's maxReadBytes, with a warning when asked for more", async () => {
    await writeBytes(path.join(box.root, "big.txt"), "x".repeat(5000));
    const ctx = ctxFor(FilesConfig.parse({ roots: [box.root], maxReadBytes: 1000 }));
    const capped = await readFile({ path: "big.txt", encoding: "utf-8", offset: 0, max_bytes: 4000 }, ctx);
    expect(capped.data).toMatchObject({ bytes: 1000, size: 5000, truncated: true, next_offset: 1000 });
    expect(capped.warnings?.[0]).toContain("maxReadBytes");
    const plain = await readFile({ path: "big.txt", encoding: "utf-8", offset: 0 }, ctx);
    expect(plain.data.bytes).toBe(1000);
    expect(plain.warnings).toEqual([]);
  });

  it("warns when a file is not UTF-8 text", async () => {
    await writeBytes(path.join(box.root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const out = await read("latin1.txt");
    expect(out.warnings?.[0]).toContain("base64");
  });

  it("refuses a folder, pointing to list_directory", async () => {
    const error = await failure(read("sub"));
    expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
    expect(error.message).toContain("list_directory");
  });

  it("refuses a FIFO without hanging", async () => {
    execFileSync("mkfifo", [path.join(box.root, "pipe")]);
    const error = await failure(read("pipe"));
    expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
  });

  it("honours an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      readFile({ path: "hello.txt", encoding: "utf-8", offset: 0 }, ctxFor(box.config, { signal: controller.signal })),
    ).rejects.toThrow();
  });
});

describe("write_file", () => {
  it("creates a new file and says so", async () => {
    const out = await write("new.txt", "fresh\n");
    expect(out.data).toEqual({ path: path.join(box.root, "new.txt"), bytes: 6, created: true });
    expect(await readBytes(path.join(box.root, "new.txt"), "utf8")).toBe("fresh\n");
    expect(await leftovers(box.root)).toEqual([]);
  });

  it("refuses to replace an existing file unless overwrite is true", async () => {
    const error = await failure(write("hello.txt", "changed"));
    expect(error).toMatchObject({ code: "CONFLICT", field: "/overwrite" });
    expect(error.message).toContain("overwrite: true");
    expect(await readBytes(path.join(box.root, "hello.txt"), "utf8")).toBe("hello\n");
    const out = await write("hello.txt", "changed", { overwrite: true });
    expect(out.data.created).toBe(false);
    expect(await readBytes(path.join(box.root, "hello.txt"), "utf8")).toBe("changed");
  });

  it("keeps the permissions of a file it replaces", async () => {
    await chmod(path.join(box.root, "hello.txt"), 0o640);
    await write("hello.txt", "changed", { overwrite: true });
    expect((await stat(path.join(box.root, "hello.txt"))).mode & 0o777).toBe(0o640);
  });

  it("creates missing folders only when asked", async () => {
    const error = await failure(write("a/b/c.txt", "x"));
    expect(error).toMatchObject({ code: "NOT_FOUND", field: "/path" });
    expect(error.message).toContain("create_directories: true");
    await write("a/b/c.txt", "x", { create_directories: true });
    expect(await readBytes(path.join(box.root, "a", "b", "c.txt"), "utf8")).toBe("x");
  });

  it("writes base64 as exact bytes and refuses malformed base64", async () => {
    await write("bytes.bin", Buffer.from([1, 2, 3, 250]).toString("base64"), { encoding: "base64" });
    expect([...(await readBytes(path.join(box.root, "bytes.bin")))]).toEqual([1, 2, 3, 250]);
    for (const bad of ["abc", "ab$=", "a===", "@@@@"]) {
      const error = await failure(write("bad.bin", bad, { encoding: "base64" }));
      expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/content" });
    }
  });

  it("refuses content over the instance's maxWriteBytes, counting bytes not characters", async () => {
    const ctx = ctxFor(FilesConfig.parse({ roots: [box.root], maxWriteBytes: 10 }));
    const call = (content: string) =>
      writeFile({ path: "lim.txt", content, encoding: "utf-8", overwrite: true, create_directories: false }, ctx);
    await call("0123456789");
    const error = await failure(call("€€€€")); // 4 characters, 12 bytes
    expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/content" });
    expect(error.message).toContain("append_file");
  });

  it("refuses to write over a folder", async () => {
    const error = await failure(write("sub", "x", { overwrite: true }));
    expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
    expect((await stat(path.join(box.root, "sub"))).isDirectory()).toBe(true);
  });

  it("writes through a link inside the roots to its file, keeping the link", async () => {
    await write("link-in", "via link", { overwrite: true });
    expect(await readBytes(path.join(box.root, "hello.txt"), "utf8")).toBe("via link");
    expect(await readlink(path.join(box.root, "link-in"))).toBe("hello.txt");
  });

  it("reports progress per chunk and, when cancelled midway, leaves the old file and no temporary file", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const ctx = ctxFor(FilesConfig.parse({ roots: [box.root], maxWriteBytes: 8 * 1024 * 1024 }), {
      signal: controller.signal,
      progress: (done) => {
        seen.push(done);
        controller.abort();
      },
    });
    const call = writeFile(
      {
        path: "hello.txt",
        content: "y".repeat(3 * 1024 * 1024),
        encoding: "utf-8",
        overwrite: true,
        create_directories: false,
      },
      ctx,
    );
    await expect(call).rejects.toThrow();
    expect(seen).toEqual([1024 * 1024]);
    expect(await readBytes(path.join(box.root, "hello.txt"), "utf8")).toBe("hello\n");
    expect(await leftovers(box.root)).toEqual([]);
  });
});

describe("append_file", () => {
  const append = (
    p: string,
    content: string,
    extra: { create_directories?: boolean; encoding?: "utf-8" | "base64" } = {},
  ) => appendFile({ path: p, content, encoding: "utf-8", create_directories: false, ...extra }, box.ctx);

  it("adds to the end of a file and reports the new size", async () => {
    const out = await append("hello.txt", "world\n");
    expect(out.data).toEqual({ path: path.join(box.root, "hello.txt"), appended: 6, size: 12, created: false });
    expect(await readBytes(path.join(box.root, "hello.txt"), "utf8")).toBe("hello\nworld\n");
    expect(await leftovers(box.root)).toEqual([]);
  });

  it("creates a missing file, and its folders only when asked", async () => {
    expect((await append("log.md", "- one\n")).data.created).toBe(true);
    await append("log.md", "- two\n");
    expect(await readBytes(path.join(box.root, "log.md"), "utf8")).toBe("- one\n- two\n");
    await expect(append("logs/2026/march.md", "x")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await append("logs/2026/march.md", "x", { create_directories: true });
  });

  it("appends base64 bytes and keeps the file's permissions", async () => {
    await chmod(path.join(box.root, "hello.txt"), 0o600);
    await append("hello.txt", Buffer.from([0, 1]).toString("base64"), { encoding: "base64" });
    expect([...(await readBytes(path.join(box.root, "hello.txt")))].slice(-2)).toEqual([0, 1]);
    expect((await stat(path.join(box.root, "hello.txt"))).mode & 0o777).toBe(0o600);
  });

  it("refuses to grow a file past maxFileBytes, leaving it as it was", async () => {
    const ctx = ctxFor(FilesConfig.parse({ roots: [box.root], maxFileBytes: 10 }));
    const error = await failure(
      appendFile({ path: "hello.txt", content: "12345", encoding: "utf-8", create_directories: false }, ctx),
    );
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/content" });
    expect(await readBytes(path.join(box.root, "hello.txt"), "utf8")).toBe("hello\n");
  });

  it("refuses a folder", async () => {
    await mkdir(path.join(box.root, "dir.md"));
    await expect(append("dir.md", "x")).rejects.toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
  });
});
