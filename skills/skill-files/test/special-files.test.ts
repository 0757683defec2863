import { execFileSync } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { failure } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFile, fileInfo, readFile, writeFile } from "../src/index.js";
import type { Sandbox } from "./helpers.js";
import { makeSandbox } from "./helpers.js";

let box: Sandbox;
let server: net.Server;

beforeAll(async () => {
  box = await makeSandbox();
  for (let i = 0; i < 6; i++) execFileSync("mkfifo", [path.join(box.root, `pipe${i}.txt`)]);
  server = net.createServer().listen(path.join(box.root, "socket"));
  await new Promise((resolve) => server.once("listening", resolve));
});

afterAll(async () => {
  server?.close();
  await box.dispose();
});

describe("files that are not regular files", () => {
  it("answers read_file on FIFOs, more of them at once than libuv has threads, without blocking", async () => {
    const errors = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        failure(readFile({ path: `pipe${i}.txt`, encoding: "utf-8", offset: 0 }, box.ctx)),
      ),
    );
    for (const error of errors) {
      expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
      expect(error.message).toContain("not a regular file");
    }
    const after = await readFile({ path: "hello.txt", encoding: "utf-8", offset: 0 }, box.ctx);
    expect(after.data.content).toBe("hello\n");
  });

  it("refuses a socket, and writing or appending over a FIFO", async () => {
    expect(await failure(readFile({ path: "socket", encoding: "utf-8", offset: 0 }, box.ctx))).toMatchObject({
      code: "ARGUMENT_INVALID",
    });
    const write = writeFile(
      { path: "pipe0.txt", content: "x", encoding: "utf-8", overwrite: true, create_directories: false },
      box.ctx,
    );
    expect(await failure(write)).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
    const append = appendFile(
      { path: "pipe1.txt", content: "x", encoding: "utf-8", create_directories: false },
      box.ctx,
    );
    expect(await failure(append)).toMatchObject({ code: "ARGUMENT_INVALID", field: "/path" });
    expect((await fileInfo({ path: "pipe2.txt" }, box.ctx)).data.type).toBe("other");
  });
});

describe("names the system refuses", () => {
  it.each([
    ["a 4,000-character name (ENAMETOOLONG)", "ARGUMENT_INVALID", "x".repeat(4000)],
    ["a file used as a folder (ENOTDIR)", "ARGUMENT_INVALID", "hello.txt/x"],
    ["a loop of links (ELOOP)", "PERMISSION_DENIED", "loop1"],
  ])("%s answers %s, never INTERNAL", async (_label, code, name) => {
    for (const call of [
      () => readFile({ path: name, encoding: "utf-8", offset: 0 }, box.ctx),
      () =>
        writeFile({ path: name, content: "x", encoding: "utf-8", overwrite: true, create_directories: true }, box.ctx),
      () => appendFile({ path: name, content: "x", encoding: "utf-8", create_directories: true }, box.ctx),
      () => fileInfo({ path: name }, box.ctx),
    ]) {
      expect(await failure(call())).toMatchObject({ code, field: "/path" });
    }
  });
});
