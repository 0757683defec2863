import { execFileSync } from "node:child_process";
import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import type { HostileTree } from "@skillport/core/confine/testing";
import { CANARY, HOSTILE_PATHS, hostilePath, makeHostileTree } from "@skillport/core/confine/testing";
import { failure } from "@skillport/test-utils";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCommand, ShellConfig } from "../src/index.js";
import type { Sandbox } from "./helpers.js";
import { ctxFor, makeSandbox, TEST_PATH } from "./helpers.js";

let box: Sandbox;

beforeEach(async () => {
  box = await makeSandbox();
});

afterEach(async () => {
  await box.dispose();
});

const printEnv = ["-e", "process.stdout.write(JSON.stringify(process.env))"];

describe("the child's environment", () => {
  it("is exactly the configured variables, none of the host's", async () => {
    // the test process has a secret in its own environment; the child must not see it
    process.env.SKILL_SHELL_HOST_SECRET = "do-not-leak";
    try {
      const config = box.config({ env: { PATH: TEST_PATH, GREETING: "hello", EMPTY: "" } });
      const out = await runCommand({ command: "node", args: printEnv }, ctxFor(config));
      expect(JSON.parse(out.data.stdout)).toEqual({ PATH: TEST_PATH, GREETING: "hello", EMPTY: "" });
    } finally {
      delete process.env.SKILL_SHELL_HOST_SECRET;
    }
  });

  it("is what env(1) prints too", async () => {
    const out = await runCommand(
      { command: "env", args: [] },
      ctxFor(box.config({ env: { PATH: TEST_PATH, A: "1" } })),
    );
    expect(out.data.stdout.trim().split("\n").sort()).toEqual(["A=1", `PATH=${TEST_PATH}`]);
  });

  it("defaults to a PATH of the system folders only", () => {
    const config = ShellConfig.parse({ commands: ["ls"], roots: [box.root] });
    expect(config.env).toEqual({ PATH: "/usr/local/bin:/usr/bin:/bin" });
  });

  it("is where bare names are found: a command outside PATH is not", async () => {
    const config = box.config({ env: { PATH: "/nonexistent" } });
    const error = await failure(runCommand({ command: "echo", args: ["x"] }, ctxFor(config)));
    expect(error).toMatchObject({ code: "NOT_FOUND", field: "/command" });
  });
});

describe("the working folder", () => {
  const pwd = (cwd?: string) =>
    runCommand({ command: "node", args: ["-e", "process.stdout.write(process.cwd())"], cwd }, ctxFor(box.config()));

  it("defaults to the first root and takes folders inside it", async () => {
    expect((await pwd()).data.stdout).toBe(box.root);
    expect((await pwd("sub")).data).toMatchObject({
      stdout: path.join(box.root, "sub"),
      cwd: path.join(box.root, "sub"),
    });
    expect((await pwd(path.join(box.root, "sub"))).data.stdout).toBe(path.join(box.root, "sub"));
  });

  it.each([
    ["parent", ".."],
    ["parent then down", "../outside"],
    ["down then up", "sub/../.."],
    ["absolute outside", "/tmp"],
    ["filesystem root", "/"],
    ["home", "~"],
    ["drive letter", "C:\\"],
    ["UNC", "\\\\server\\share"],
    ["NUL", "sub\0"],
    ["link outside", "link-out"],
    ["through a link outside", "link-out/deeper"],
  ])("refuses %s (%j)", async (_label, cwd) => {
    await symlink(box.outside, path.join(box.root, "link-out")).catch(() => undefined);
    await mkdir(path.join(box.outside, "deeper"), { recursive: true });
    const error = await failure(pwd(cwd));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/cwd" });
    expect(error.message).toContain(box.root);
  });

  it("answers NOT_FOUND for a missing folder and ARGUMENT_INVALID for a file", async () => {
    await expect(pwd("missing")).rejects.toMatchObject({ code: "NOT_FOUND", field: "/cwd" });
    await expect(pwd("a.txt")).rejects.toMatchObject({ code: "ARGUMENT_INVALID", field: "/cwd" });
  });
});

describe("the working folder and the shared hostile-path corpus", () => {
  let tree: HostileTree;
  let config: ShellConfig;

  beforeAll(async () => {
    tree = await makeHostileTree();
    execFileSync("mkfifo", [path.join(tree.root, "pipe")]);
    config = ShellConfig.parse({
      commands: ["node"],
      roots: [tree.root, tree.root2],
      env: { PATH: TEST_PATH },
      policies: { node: { arguments: "any" } }, // node has no built-in argument policy
    });
  });

  afterAll(async () => {
    await tree?.dispose();
  });

  const pwdIn = (cwd: string) =>
    runCommand({ command: "node", args: ["-e", "process.stdout.write(process.cwd())"], cwd }, ctxFor(config));

  it.each(HOSTILE_PATHS.map((entry) => [entry.label, entry] as const))("refuses %s", async (_label, entry) => {
    const error = await failure(pwdIn(hostilePath(entry, tree)));
    expect(error.code, error.message).toBe(entry.code);
    expect(error.field).toBe("/cwd");
    expect(error.message).not.toContain(CANARY);
  });

  it("takes a link that stays inside, and runs in its real folder", async () => {
    expect((await pwdIn("link-sub")).data.stdout).toBe(path.join(tree.root, "sub"));
    expect((await pwdIn("link-root2")).data.stdout).toBe(tree.root2);
  });

  it("refuses a FIFO or a file as the folder with ARGUMENT_INVALID, without blocking", async () => {
    for (const cwd of ["pipe", "hello.txt"]) {
      expect(await failure(pwdIn(cwd))).toMatchObject({ code: "ARGUMENT_INVALID", field: "/cwd" });
    }
  });
});
