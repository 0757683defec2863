// git in a repository an attacker could write to (files.write_file, a cloned repo, a shared folder): nothing in
// the repository's own configuration, hooks or the host's global configuration may run a program.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { failure } from "@skillport/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../src/index.js";
import type { ConfigInput, Sandbox } from "./helpers.js";
import { ctxFor, makeSandbox, TEST_PATH } from "./helpers.js";

let box: Sandbox;
let repo: string;
let canary: string;

const IDENTITY = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
};

beforeEach(async () => {
  box = await makeSandbox();
  repo = path.join(box.root, "repo");
  canary = path.join(box.root, "canary");
  await mkdir(repo);
  execFileSync("git", ["init", "-q", repo], { env: { PATH: TEST_PATH, GIT_CONFIG_GLOBAL: "/dev/null" } });
  await writeFile(path.join(repo, "a.txt"), "a\n");
});
afterEach(() => box.dispose());

const MODES = [["the sandbox"], ["no sandbox"]] as const;
const configFor = (mode: string, extra: ConfigInput = {}) =>
  box.config({
    commands: ["git"],
    env: { PATH: TEST_PATH, HOME: box.base, ...IDENTITY },
    sandbox: mode === "no sandbox" ? "off" : "auto",
    ...extra,
  });
const git = (mode: string, args: string[], extra: ConfigInput = {}) =>
  runCommand({ command: "git", args, cwd: "repo" }, ctxFor(configFor(mode, extra)));
const plant = (text: string) => appendFile(path.join(repo, ".git", "config"), text);

describe.each(MODES)("git with %s", (mode) => {
  it("runs ordinary commands", async () => {
    expect((await git(mode, ["add", "a.txt"])).data.exitCode).toBe(0);
    expect((await git(mode, ["commit", "-q", "-m", "first"])).data.exitCode).toBe(0);
    const log = await git(mode, ["log", "--format=%s"]);
    expect(log.data).toMatchObject({ exitCode: 0, stdout: "first\n" });
  });

  it.each([
    ["core.fsmonitor", `[core]\n\tfsmonitor = "touch CANARY"\n`],
    ["alias.st", `[alias]\n\tst = "!touch CANARY"\n`],
    ["core.pager", `[core]\n\tpager = "touch CANARY"\n`],
    ["filter.evil.clean", `[filter "evil"]\n\tclean = "touch CANARY"\n`],
    ["diff.evil.textconv", `[diff "evil"]\n\ttextconv = "touch CANARY"\n`],
    ["core.sshCommand", `[core]\n\tsshCommand = "touch CANARY"\n`],
    ["credential.helper", `[credential]\n\thelper = "!touch CANARY"\n`],
    ["include.path", `[include]\n\tpath = /tmp/evil.gitconfig\n`],
    ["core.hooksPath", `[core]\n\thooksPath = /tmp/hooks\n`],
    ["core.worktree", `[core]\n\tworktree = /etc\n`],
  ])("refuses to run in a repository whose config sets %s, naming the key and the file", async (key, text) => {
    await plant(text.replace("CANARY", canary));
    const error = await failure(git(mode, ["status"]));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/cwd" });
    expect(error.message.toLowerCase()).toContain(key.toLowerCase()); // git prints keys in lower case
    expect(error.message).toContain(path.join(repo, ".git", "config"));
    expect(existsSync(canary)).toBe(false);
  });

  it("allows harmless forms of those keys", async () => {
    await plant("[alias]\n\tst = status\n[pager]\n\tlog = false\n[core]\n\tfsmonitor = false\n");
    expect((await git(mode, ["status", "--short"])).data.exitCode).toBe(0);
  });

  it("runs no hook, even one planted in .git/hooks", async () => {
    const hook = path.join(repo, ".git", "hooks", "pre-commit");
    await writeFile(hook, `#!/bin/sh\ntouch ${canary}\n`);
    await chmod(hook, 0o755);
    await git(mode, ["add", "a.txt"]);
    expect((await git(mode, ["commit", "-q", "-m", "x"])).data.exitCode).toBe(0);
    expect(existsSync(canary)).toBe(false);
  });

  it("ignores the global configuration in HOME", async () => {
    await writeFile(
      path.join(box.base, ".gitconfig"),
      `[user]\n\tname = FromHome\n[core]\n\tpager = touch ${canary}\n`,
    );
    const out = await git(mode, ["config", "--get", "user.name"]);
    expect(out.data).toMatchObject({ exitCode: 1, stdout: "" });
    expect(existsSync(canary)).toBe(false);
  });
});

describe("a bare repository planted with file writes", () => {
  it.each(MODES)("is not used as a repository (%s), so its config runs nothing", async (mode) => {
    // What files.write_file can build anywhere inside a root: HEAD, objects/, refs/ and a config that runs a program.
    const bare = path.join(box.root, "planted");
    await mkdir(path.join(bare, "objects"), { recursive: true });
    await mkdir(path.join(bare, "refs"), { recursive: true });
    await writeFile(path.join(bare, "HEAD"), "ref: refs/heads/main\n");
    await writeFile(
      path.join(bare, "config"),
      `[core]\n\tbare = true\n\tfsmonitor = "touch ${canary}"\n[alias]\n\tst = "!touch ${canary}"\n`,
    );
    const outcome = await runCommand(
      { command: "git", args: ["status"], cwd: "planted" },
      ctxFor(configFor(mode)),
    ).then(
      (ok) => ok.data.exitCode,
      (error: Error) => error.message,
    );
    expect(outcome).not.toBe(0);
    expect(existsSync(canary)).toBe(false);
  });
});

describe("a repository folder outside the roots", () => {
  it("is refused when a .git file points there", async () => {
    const elsewhere = path.join(box.outside, "repo");
    execFileSync("git", ["init", "-q", elsewhere], { env: { PATH: TEST_PATH, GIT_CONFIG_GLOBAL: "/dev/null" } });
    const linked = path.join(box.root, "linked");
    await mkdir(linked);
    await writeFile(path.join(linked, ".git"), `gitdir: ${path.join(elsewhere, ".git")}\n`);
    const error = await failure(
      runCommand({ command: "git", args: ["status"], cwd: "linked" }, ctxFor(configFor("no sandbox"))),
    );
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/cwd" });
    expect(error.message).toContain("outside the roots");
  });
});

describe("a git the manifest runs with another policy", () => {
  it('still has its repository config checked, for the repository -C names ("arguments": "any")', async () => {
    await plant(`[core]\n\tpager = "touch ${canary}"\n`);
    const config = configFor("no sandbox", { policies: { git: { arguments: "any" } } });
    const error = await failure(runCommand({ command: "git", args: ["-C", "repo", "log"] }, ctxFor(config)));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/cwd" });
    expect(existsSync(canary)).toBe(false);
  });
});
