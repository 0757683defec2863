// The argument policies, attacked as a model (or a prompt injection) would: each row is a call that would run a
// program of the attacker's choosing, write where it should not, or read outside the roots, spelled in every way
// the program itself accepts (abbreviations, bundles, --opt=value, the old tar style). Each must be refused with
// PERMISSION_DENIED naming the argument at fault; the rows after them must pass.

import { isSkillError } from "@skillport/core";
import { describe, expect, it } from "vitest";
import { ShellConfig } from "../src/index.js";
import { BUILTIN_POLICIES, checkArguments } from "../src/policies/index.js";
import { checkAwkProgram } from "../src/policies/programs/awk.js";

const config = ShellConfig.parse({
  commands: ["git", "find", "tar", "rg", "grep", "sed", "awk", "xargs", "env", "sort", "date", "wc", "sha256sum"],
  roots: ["/srv/root"],
  policies: { make: { arguments: "paths" }, node: { arguments: "any" }, ls: { deny: ["-R"] } },
});

function refusal(command: string, args: string[], cfg = config) {
  try {
    checkArguments(cfg, command, args);
  } catch (error) {
    if (!isSkillError(error)) throw error;
    return error;
  }
  throw new Error(`${command} ${JSON.stringify(args)} was allowed`);
}

const REFUSED: Array<[command: string, args: string[], index: number, says: string]> = [
  // git: configuration on the command line, aliases, and every option family that runs a program
  ["git", ["-c", "alias.x=!touch canary", "x"], 0, "-c"],
  ["git", ["-calias.x=!id", "x"], 0, "-c"],
  ["git", ["--config-env=core.pager=EVIL", "log"], 0, "--config-env"],
  ["git", ["--exec-path=/tmp/evil", "status"], 0, "--exec-path"],
  ["git", ["x"], 0, "aliases are never run"],
  ["git", ["st"], 0, "aliases are never run"],
  ["git", ["difftool"], 0, "not a git subcommand this policy allows"],
  ["git", ["submodule", "foreach", "id"], 0, "not a git subcommand"],
  ["git", ["help", "status"], 0, "not a git subcommand"],
  ["git", ["status", "--help"], 1, "manual"],
  ["git", ["clone", "--upload-pack=touch /tmp/pwned", "repo"], 1, "--upload-pack"],
  ["git", ["clone", "--upload-p=touch /tmp/pwned", "repo"], 1, "abbreviation of --upload-pack"],
  ["git", ["clone", "-u", "touch /tmp/pwned", "repo"], 1, "-u"],
  ["git", ["clone", "-qu", "touch /tmp/pwned", "repo"], 1, "-u"],
  ["git", ["clone", "-c", "core.fsmonitor=touch x", "a", "b"], 1, "configuration"],
  ["git", ["clone", "--config=core.fsmonitor=x", "a", "b"], 1, "configuration"],
  ["git", ["clone", "ext::sh -c touch% /tmp/pwned", "dst"], 1, "ext::"],
  ["git", ["fetch", "EXT::sh -c id"], 1, "ext::"],
  ["git", ["fetch", "--upload-pack", "evil", "origin"], 1, "--upload-pack"],
  ["git", ["pull", "--upload-pack=evil"], 1, "--upload-pack"],
  ["git", ["push", "--receive-pack=evil", "origin"], 1, "--receive-pack"],
  ["git", ["push", "--exec=evil", "origin"], 1, "--exec"],
  ["git", ["ls-remote", "-u", "evil", "origin"], 1, "-u"],
  ["git", ["archive", "--exec=evil", "--remote=x", "HEAD"], 1, "--exec"],
  ["git", ["archive", "-o", "/tmp/x.tar", "HEAD"], 1, "-o"],
  ["git", ["diff", "--output=/tmp/x"], 1, "--output"],
  ["git", ["log", "--output", "x"], 1, "--output"],
  ["git", ["log", "--outp=x"], 1, "abbreviation of --output"],
  ["git", ["diff", "--ext-diff"], 1, "external diff"],
  ["git", ["log", "-p", "--textconv"], 2, "text conversion"],
  ["git", ["grep", "-O", "pattern"], 1, "-O"],
  ["git", ["grep", "--open-files-in-pager=vi", "pattern"], 1, "--open-files-in-pager"],
  ["git", ["grep", "-nOvi", "pattern"], 1, "-O"],
  ["git", ["rebase", "-x", "touch pwned", "main"], 1, "-x"],
  ["git", ["rebase", "--exec=touch pwned", "main"], 1, "--exec"],
  ["git", ["merge", "-s", "evil", "topic"], 2, "git-merge-evil"],
  ["git", ["pull", "--strategy=evil"], 1, "git-merge-evil"],
  ["git", ["init", "--template=/tmp/hooks"], 1, "template"],
  ["git", ["bisect", "run", "sh", "-c", "id"], 1, "bisect run"],
  ["git", ["cat-file", "--filters", "HEAD:a.txt"], 1, "filter"],
  ["git", ["config", "core.pager", "touch pwned"], 1, "may only read"],
  ["git", ["config", "--add", "alias.x", "!id"], 1, "may only read"],
  ["git", ["config", "--edit"], 1, "may only read"],
  ["git", ["config", "set", "core.fsmonitor", "x"], 1, "may only read"],
  // find: primaries that run, delete, write, or follow links; unknown primaries
  ["find", [".", "-exec", "touch", "pwned", ";"], 1, "-exec"],
  ["find", [".", "-execdir", "id", "+"], 1, "-execdir"],
  ["find", [".", "-ok", "id", ";"], 1, "-ok"],
  ["find", [".", "-okdir", "id", ";"], 1, "-okdir"],
  ["find", [".", "-delete"], 1, "-delete"],
  ["find", [".", "-fprint", "/tmp/x"], 1, "-fprint"],
  ["find", [".", "-fprint0", "x"], 1, "-fprint0"],
  ["find", [".", "-fprintf", "x", "%p"], 1, "-fprintf"],
  ["find", [".", "-fls", "x"], 1, "-fls"],
  ["find", ["-L", "."], 0, "-L"],
  ["find", [".", "-follow"], 1, "-follow"],
  ["find", [".", "-files0-from", "list"], 1, "-files0-from"],
  ["find", [".", "-name", "x", "-o", "-exec", "id", ";"], 4, "-exec"],
  ["find", [".", "-exe", "id", ";"], 1, "not one this policy knows"],
  ["find", [".", "(", "-name", "x", ")", "-delete"], 5, "-delete"],
  // tar: every option that runs a program, in every spelling
  [
    "tar",
    ["-cf", "x.tar", "--checkpoint=1", "--checkpoint-action=exec=touch pwned", "a.txt"],
    3,
    "--checkpoint-action",
  ],
  ["tar", ["--checkpoint-act=exec=id", "-cf", "x.tar", "a.txt"], 0, "abbreviation of --checkpoint-action"],
  ["tar", ["--to-command=id", "-xf", "x.tar"], 0, "--to-command"],
  ["tar", ["-xf", "x.tar", "--to-c", "id"], 2, "abbreviation of --to-command"],
  ["tar", ["-I", "sh", "-cf", "x.tar", "a.txt"], 0, "-I"],
  ["tar", ["-cIsh", "-f", "x.tar", "a.txt"], 0, "-I"],
  ["tar", ["--use-compress-program=sh", "-cf", "x.tar", "a.txt"], 0, "--use-compress-program"],
  ["tar", ["--use=sh", "-cf", "x.tar", "a.txt"], 0, "--use-compress-program"],
  ["tar", ["-xvf", "x.tar", "-F", "sh"], 2, "-F"],
  ["tar", ["--info-script=sh", "-xf", "x.tar"], 0, "--info-script"],
  ["tar", ["--new-volume-script=sh", "-xf", "x.tar"], 0, "--new-volume-script"],
  ["tar", ["--rsh-command=/bin/sh", "-xf", "h:x.tar"], 0, "--rsh-command"],
  ["tar", ["-xPf", "x.tar"], 0, "-P"],
  ["tar", ["-cf", "x.tar", "-T", "list.txt"], 2, "-T"],
  ["tar", ["cfI", "x.tar", "sh", "a.txt"], 0, "I"],
  ["tar", ["xvF", "sh"], 0, "F"],
  ["tar", ["-xf", "evil-host:x.tar"], 1, "remote host"],
  ["tar", ["xf", "evil-host:x.tar"], 1, "remote host"],
  // rg and grep
  ["rg", ["--pre", "sh", "pattern"], 0, "--pre"],
  ["rg", ["--pre=sh", "pattern"], 0, "--pre"],
  ["rg", ["--pr", "sh", "pattern"], 0, "--pre"],
  ["rg", ["--hostname-bin=sh", "pattern"], 0, "--hostname-bin"],
  ["rg", ["-L", "pattern"], 0, "links"],
  ["grep", ["-R", "pattern", "."], 0, "links"],
  ["grep", ["-rRn", "pattern", "."], 0, "links"],
  // sed: in-place backups elsewhere, link targets
  ["sed", ["-i/tmp/*", "s/a/b/", "a.txt"], 0, "another folder"],
  ["sed", ["--in-place=../bak/*", "s/a/b/", "a.txt"], 0, "another folder"],
  ["sed", ["-i", "--follow-symlinks", "s/a/b/", "a.txt"], 1, "--follow-symlinks"],
  // awk: commands, pipes, files, code loading
  ["awk", ['BEGIN { system("touch pwned") }'], 0, "system()"],
  ["awk", ['{ print | "sh" }'], 0, "pipes"],
  ["awk", ['BEGIN { while (("id" | getline line) > 0) print line }'], 0, "pipes"],
  ["awk", ['BEGIN { getline line < "/etc/passwd"; print line }'], 0, "getline"],
  ["awk", ['{ print > "/tmp/x" }'], 0, "writes to a file"],
  ["awk", ['{ print $1 >> "out" }'], 0, "writes to a file"],
  ["awk", ['{ printf("%s", $1) > "out" }'], 0, "writes to a file"],
  ["awk", ['@load "readfile"; BEGIN { }'], 0, "@"],
  ["awk", ['BEGIN { ARGV[1] = "/etc/passwd"; ARGC = 2 } { print }'], 0, "ARGV"],
  ["awk", ['{ x++ / 2; system("id"); y = 1/1 }'], 0, "system()"],
  ["awk", ['{ a = 4 / 2; system("id"); b = 1/1 }'], 0, "system()"],
  ["awk", ["-f", "prog.awk", "a.txt"], 0, "-f"],
  ["awk", ["-W", "exec", "prog.awk"], 0, "-W"],
  ["awk", ["-v", "x=1", 'BEGIN { system("id") }'], 2, "system()"],
  // xargs and env run whatever follows them
  ["xargs", ["sh", "-c", "id"], 0, "runs the program that follows"],
  ["xargs", ["-0", "rm"], 1, "runs the program that follows"],
  ["env", ["sh", "-c", "id"], 0, "runs the program that follows"],
  ["env", ["A=1", "sh"], 1, "runs the program that follows"],
  ["env", ["A=1", "-i"], 1, "runs the program that follows"],
  ["env", ["-S", "sh -c id"], 0, "-S"],
  ["env", ["--split-string=sh -c id"], 0, "--split-string"],
  // the harmless ones keep their few dangerous corners shut
  ["sort", ["--compress-program=sh", "a.txt"], 0, "--compress-program"],
  ["sort", ["--compress-prog", "sh", "a.txt"], 0, "--compress-program"],
  ["date", ["-s", "2030-01-01"], 0, "clock"],
  ["date", ["010100002030"], 0, "clock"],
  ["wc", ["--files0-from=list.txt"], 0, "names inside a file"],
  ["sha256sum", ["-c", "sums.txt"], 0, "names inside a file"],
];

describe("options that run programs, write elsewhere or follow links are refused", () => {
  it("has a hostile corpus for every policy family", () => {
    expect(REFUSED.length).toBeGreaterThan(100);
  });

  it.each(REFUSED)("%s %j → /args/%i", (command, args, index, says) => {
    const error = refusal(command, args, { ...config, commands: [...config.commands, command] });
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: `/args/${index}` });
    expect(error.message).toContain(says);
  });
});

const ALLOWED: Array<[command: string, args: string[], paths: string[]]> = [
  ["git", ["status", "--short"], []],
  ["git", ["status", "-uno"], []],
  ["git", ["log", "--oneline", "-n", "5"], []],
  ["git", ["log", "--grep=/usr/bin", "--author", "/x"], []],
  ["git", ["log", "-S", "--output"], []], // -S takes a value: "--output" is the string searched, as git reads it
  ["git", ["commit", "-am", "/etc is only a message"], []],
  ["git", ["-C", "sub", "status"], ["sub"]],
  ["git", ["--git-dir=repo/.git", "log"], ["repo/.git"]],
  ["git", ["diff", "HEAD~1..HEAD", "--", "a.txt"], ["HEAD~1..HEAD", "a.txt"]],
  ["git", ["show", "HEAD:src/x.ts"], ["HEAD:src/x.ts"]],
  ["git", ["branch", "-u", "origin/main"], []],
  ["git", ["config", "--get", "user.name"], []],
  ["git", ["config", "--list", "--show-origin"], []],
  ["git", ["merge", "-s", "ort", "topic"], []],
  ["git", ["--version"], []],
  ["git", ["format-patch", "-o", "out", "HEAD~2"], ["out", "HEAD~2"]],
  ["find", [".", "-name", "*.ts", "-type", "f"], ["."]],
  ["find", ["src", "lib", "-maxdepth", "2", "-printf", "%p\\n"], ["src", "lib"]],
  ["find", [".", "-newer", "a.txt", "!", "-name", "/x"], [".", "a.txt"]],
  ["tar", ["-czf", "out.tgz", "src"], ["out.tgz", "src"]],
  ["tar", ["xvf", "a.tar"], ["a.tar"]],
  ["tar", ["cfC", "out.tar", "dir", "file"], ["out.tar", "dir", "file"]],
  ["tar", ["--checkpoint=10", "--to-stdout", "-xf", "x.tar"], ["x.tar"]],
  ["tar", ["--force-local", "-cf", "odd:name.tar", "a"], ["odd:name.tar", "a"]],
  ["rg", ["--pre-glob", "*.gz", "-e", "/usr", "."], ["."]],
  ["rg", ["--files", "src"], ["src"]],
  ["grep", ["-rn", "/etc/passwd", "a.txt"], ["a.txt"]],
  ["grep", ["-e", "x", "-f", "patterns.txt", "a.txt"], ["patterns.txt", "a.txt"]],
  ["sed", ["-n", "/^#/p", "a.txt"], ["a.txt"]],
  ["sed", ["-i.bak", "s/a/b/", "a.txt"], ["a.txt"]],
  ["awk", ["{ print $1 }", "a.txt"], ["a.txt"]],
  ["awk", ["-F", "/", '$3 > 5 { print ($1 > 2) } /system/ { print "getline" }', "FS=x", "a.txt"], ["a.txt"]],
  ["awk", ["{ if ($1 > 2) print $1; n = n / 2 }"], []],
  ["xargs", ["-a", "list.txt"], ["list.txt"]],
  ["env", [], []],
  ["env", ["-u", "PATH", "A=1"], []],
  ["sort", ["-t", "/", "-o", "out.txt", "a.txt"], ["out.txt", "a.txt"]],
  ["date", ["+%Y-%m-%d"], []],
  ["echo", ["--output=/etc/x", "/etc/passwd"], []],
  ["cat", ["a.txt", "-"], ["a.txt", "-"]],
];

describe("ordinary calls pass, and every argument naming a file is handed to the path check", () => {
  it.each(ALLOWED)("%s %j", (command, args, paths) => {
    const decision = checkArguments({ ...config, commands: [...config.commands, command] }, command, args);
    expect(decision.paths.map((p) => p.path)).toEqual(paths);
    for (const p of decision.paths) expect(args[p.index]?.endsWith(p.path)).toBe(true);
  });

  it("runs sed in its own sandbox mode, so e, w and r commands are refused by sed itself", () => {
    expect(checkArguments(config, "sed", ["s/x/id/e", "a.txt"]).args).toEqual(["--sandbox", "s/x/id/e", "a.txt"]);
  });
});

describe("programs without a built-in policy", () => {
  it("are refused until the manifest chooses, naming the choices", () => {
    const error = refusal("make", [], { ...config, policies: {} });
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/command" });
    expect(error.message).toContain('"arguments": "paths"');
  });

  it('with "paths", options pass but arguments naming files are checked', () => {
    expect(checkArguments(config, "make", ["-j4", "--file=/etc/x", "all"]).paths.map((p) => p.path)).toEqual([
      "/etc/x",
      "all",
    ]);
  });

  it('with "any", nothing is checked', () => {
    expect(checkArguments(config, "node", ["-e", "x", "/etc/passwd"]).paths).toEqual([]);
  });
});

describe("the manifest can refuse more", () => {
  const extended = ShellConfig.parse({
    commands: ["git", "tar", "ls"],
    roots: ["/srv/root"],
    policies: { git: { deny: ["push", "--force", "-f"] }, tar: { deny: ["--remove-files"] }, ls: { deny: ["-R"] } },
  });

  it.each([
    ["git", ["push", "origin"], 0],
    ["git", ["fetch", "--forc", "origin"], 1],
    ["git", ["fetch", "-qf", "origin"], 1],
    ["tar", ["-cf", "x.tar", "--remove-files", "a"], 2],
    ["tar", ["-cf", "x.tar", "--remove", "a"], 2],
    ["ls", ["-laR"], 0],
  ] as const)("%s %j → /args/%i", (command, args, index) => {
    expect(refusal(command, [...args], extended)).toMatchObject({ code: "PERMISSION_DENIED", field: `/args/${index}` });
  });
});

describe("the awk checker reads programs as awk does", () => {
  it.each([
    ['{ print "a | b > c" }'],
    ["/a\\/b|c/ { print }"],
    ["{ print $1 } # system() in a comment"],
    ["$1 ~ /[/|]/ { n++ } END { print n / 2 }"],
    ["{ print a || b }"],
  ])("allows %j", (program) => {
    expect(() => checkAwkProgram(program, 0)).not.toThrow();
  });
});

describe("the policy table", () => {
  it("covers the programs the issue names, and the common harmless ones", () => {
    for (const name of ["git", "find", "tar", "rg", "grep", "sed", "awk", "xargs", "env", "ls", "cat", "echo"]) {
      expect(BUILTIN_POLICIES[name], name).toBeDefined();
    }
    for (const name of ["head", "tail", "wc", "sort", "uniq", "cut", "diff", "stat", "du", "mkdir", "cp", "mv"]) {
      expect(BUILTIN_POLICIES[name], name).toBeDefined();
    }
    for (const name of ["sh", "bash", "node", "python3", "perl", "make", "ssh", "curl"]) {
      expect(BUILTIN_POLICIES[name], name).toBeUndefined();
    }
  });
});
