// Arguments that name files must resolve inside the roots, after links: run through the real capability.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { failure } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../src/index.js";
import type { Sandbox } from "./helpers.js";
import { ctxFor, makeSandbox } from "./helpers.js";

let box: Sandbox;

beforeAll(async () => {
  box = await makeSandbox();
  await writeFile(path.join(box.outside, "secret.txt"), "outside secret");
  await symlink(box.outside, path.join(box.root, "link-out"));
  await symlink(path.join(box.outside, "secret.txt"), path.join(box.root, "secret-link.txt"));
  await mkdir(path.join(box.root, "sub", "deeper"), { recursive: true });
});
afterAll(() => box.dispose());

const COMMANDS = ["cat", "ls", "git", "tar", "grep", "find", "sort", "sed", "head", "wc", "cp", "make"];
const run = (command: string, args: string[], cwd?: string) =>
  runCommand(
    { command, args, ...(cwd === undefined ? {} : { cwd }) },
    ctxFor(box.config({ commands: COMMANDS, policies: { make: { arguments: "paths" } } })),
  );

describe("arguments naming files outside the roots are refused before anything runs", () => {
  it.each([
    ["cat", ["/etc/passwd"], 0],
    ["cat", ["a.txt", "/etc/hostname"], 1],
    ["ls", ["../.."], 0],
    ["ls", ["-la", "/"], 1],
    ["cat", ["link-out/secret.txt"], 0],
    ["cat", ["secret-link.txt"], 0],
    ["head", ["-n", "1", "/proc/self/environ"], 2],
    ["git", ["-C", "/", "status"], 1],
    ["git", ["--git-dir=/etc", "status"], 0],
    ["git", ["clone", "file:///etc", "dst"], 1],
    ["git", ["archive", "--remote=file:///etc/repo", "HEAD"], 1],
    ["git", ["diff", "--no-index", "/etc/passwd", "a.txt"], 2],
    ["tar", ["-cf", "x.tar", "/etc"], 2],
    ["tar", ["-C", "/", "-cf", "x.tar", "etc"], 1],
    ["tar", ["cf", "/tmp/x.tar", "a.txt"], 1],
    ["grep", ["-r", "root", "/etc"], 2],
    ["find", ["/", "-name", "passwd"], 0],
    ["find", [".", "-newer", "/etc/passwd"], 2],
    ["sort", ["-o", "/tmp/sorted", "a.txt"], 1],
    ["sed", ["-n", "p", "/etc/passwd"], 2],
    ["cp", ["a.txt", "link-out/copied.txt"], 1],
    ["make", ["-C", "/etc"], 1],
    ["make", ["--file=/etc/passwd"], 0],
  ])("%s %j → /args/%i", async (command, args, index) => {
    const error = await failure(run(command, args));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: `/args/${index}` });
    expect(error.message).toContain(box.root);
  });

  it("names the argument and the roots, and says relative paths start at the cwd", async () => {
    const error = await failure(run("cat", ["/etc/passwd"]));
    expect(error.message).toMatch(/\/etc\/passwd.*outside the roots/);
    expect(error.message).toContain("relative paths start at the cwd");
  });
});

describe("files inside the roots work as before", () => {
  it("reads, lists and copies inside the roots, relative to the cwd", async () => {
    expect((await run("cat", ["a.txt", "b.txt"])).data.stdout).toBe("ab");
    expect((await run("ls", ["sub"])).data.stdout).toBe("deeper\n");
    await run("cp", ["a.txt", "sub/copied.txt"]);
    expect((await run("cat", ["copied.txt"], "sub")).data.stdout).toBe("a");
    expect((await run("cat", [path.join(box.root, "b.txt")])).data.stdout).toBe("b");
  });
});
