import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { failure } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../src/index.js";
import type { Sandbox } from "./helpers.js";
import { ctxFor, makeSandbox } from "./helpers.js";

let box: Sandbox;
let before: string[];

beforeAll(async () => {
  box = await makeSandbox();
  before = (await readdir(box.root)).sort();
});

afterAll(async () => {
  await box.dispose();
});

const run = (command: string, args: string[], extra: { cwd?: string } = {}) =>
  runCommand({ command, args, ...extra }, ctxFor(box.config()));

/**
 * What a shell would act on. Passed as arguments they must arrive as plain text: each row is run through a program
 * that prints its argv as JSON, and through echo and printf, and nothing it names may happen.
 */
const INJECTIONS: [label: string, arg: (b: Sandbox) => string][] = [
  ["command separator", (b) => `; rm -rf ${b.root}`],
  ["command substitution", (b) => `$(touch ${b.root}/pwned-subst)`],
  ["backticks", (b) => `\`touch ${b.root}/pwned-backtick\``],
  ["newline then a command", (b) => `x\ntouch ${b.root}/pwned-newline`],
  ["and-then", (b) => `&& touch ${b.root}/pwned-and`],
  ["or-else", (b) => `|| touch ${b.root}/pwned-or`],
  ["pipe", () => "| cat /etc/passwd"],
  ["redirect", (b) => `> ${b.root}/pwned-redirect`],
  ["append redirect", (b) => `>> ${b.root}/pwned-append`],
  ["background", (b) => `& touch ${b.root}/pwned-bg`],
  ["single quotes", () => "'quoted' and 'unbalanced"],
  ["double quotes", () => '"double" and "unbalanced'],
  ["option injection", () => "--output=/etc/x"],
  ["short option", () => "-rf"],
  ["variable", () => "$HOME"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text a shell would expand is the point
  ["braced variable", () => "${PATH}"],
  ["Windows variable", () => "%PATH%"],
  ["glob", () => "*"],
  ["glob with a suffix", () => "*.txt"],
  ["tilde", () => "~"],
  ["brace expansion", () => "{a,b}.txt"],
  ["history expansion", () => "!!"],
  ["process substitution", () => "<(id)"],
  ["spaces stay one argument", () => "one two  three"],
  ["escape characters", () => "\\n\\t\\"],
  ["empty string", () => ""],
  ["unicode", () => "naïve ☃ 日本"],
];

describe("injection attempts in arguments are passed literally", () => {
  it("has at least 15", () => {
    expect(INJECTIONS.length).toBeGreaterThanOrEqual(15);
  });

  it.each(INJECTIONS)("%s: arrives as one unchanged argument", async (_label, make) => {
    const arg = make(box);
    const out = await run("node", ["argv.js", arg, "after"]);
    expect(out.data.exitCode).toBe(0);
    expect(JSON.parse(out.data.stdout)).toEqual([arg, "after"]);
  });

  it.each(INJECTIONS)("%s: echo prints it as is", async (_label, make) => {
    const arg = make(box);
    if (arg.startsWith("-")) return; // echo reads a leading dash as its own option; argv above shows it arrives intact
    const out = await run("echo", [arg]);
    expect(out.data.stdout).toBe(`${arg}\n`);
  });

  it("printf gets a format and an argument, nothing more", async () => {
    const all = INJECTIONS.map(([, make]) => make(box));
    const out = await run("printf", ["[%s]\n", ...all]);
    expect(out.data.stdout).toBe(all.map((a) => `[${a}]\n`).join(""));
  });

  it("nothing the injections named has happened", async () => {
    expect((await readdir(box.root)).sort()).toEqual(before);
    expect(existsSync(path.join(box.root, "a.txt"))).toBe(true);
    expect(existsSync("/etc/x")).toBe(false);
  });
});

describe("commands off the allowlist are refused before anything runs", () => {
  it.each([
    ["a shell line", "echo hi; rm -rf /"],
    ["a command with its arguments", "echo hello"],
    ["an interpreter not on the list", "bash"],
    ["an absolute path to an allowed name", "/bin/echo"],
    ["a relative path", "./echo"],
    ["a parent path", "../bin/echo"],
    ["another case", "ECHO"],
    ["a trailing space", "echo "],
    ["substitution as the command", "$(echo)"],
    ["a NUL byte", "echo\0"],
  ])("%s (%j)", async (_label, command) => {
    const error = await failure(run(command, []));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/command" });
    expect(error.message).toContain("allowlist");
  });

  it("refuses an argument holding a NUL byte, naming it", async () => {
    const error = await failure(run("echo", ["fine", "a\0b"]));
    expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/args/1" });
  });
});
