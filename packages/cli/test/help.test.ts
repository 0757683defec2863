import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, REPO, runCli } from "./workspace.js";

// Each command's help says what it does, with examples, the environment it reads and its page of the docs; bare
// `skillport` prints the help on stdout and exits 0 (asking what a command does is not an error).

const COMMANDS = ["serve", "list", "call", "check", "lock", "new"];
const DOCS = "https://skillport.dev/docs/";

/** The anchors GitHub (and the docs site, configured alike) gives a page's headings. */
function anchorsOf(markdown: string): string[] {
  return [...markdown.replace(/^```[\s\S]*?^```$/gm, "").matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
    (m[1] as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-"),
  );
}

let ws: Workspace;
beforeAll(async () => {
  ws = await makeWorkspace();
});
afterAll(() => ws.dispose());

describe("skillport's help", () => {
  it("is what bare skillport prints, on stdout, exiting 0", async () => {
    const bare = await runCli([], ws.dir);
    expect(bare.code).toBe(0);
    expect(bare.stderr).toBe("");
    expect(bare.stdout).toMatch(/^Usage: skillport /);
    for (const command of COMMANDS) expect(bare.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    expect(bare.stdout).toContain(`Docs: ${DOCS}`);
  });

  it.each(COMMANDS)(
    "of %s says what it does, with examples, its environment, --log-level and its docs page",
    async (command) => {
      const help = await runCli([command, "--help"], ws.dir);
      expect(help.code).toBe(0);
      const text = help.stdout;
      expect(text).toMatch(new RegExp(`^Usage: skillport ${command} `));
      expect(text).toMatch(/\n\nExamples:\n {2}skillport /);
      expect(text).toMatch(/\n\nEnvironment:\n {2}\S/);
      expect(text).toContain("--log-level <level>");
      const page = new RegExp(`^Docs: ${DOCS.replaceAll(".", "\\.")}([\\w-]+)(?:#([\\w-]+))?$`, "m").exec(text);
      expect(page, "a Docs: line with a page of the site").not.toBeNull();
      const file = path.join(REPO, "docs", `${page?.[1]}.md`);
      expect(existsSync(file), file).toBe(true);
      if (page?.[2] !== undefined) expect(anchorsOf(readFileSync(file, "utf8"))).toContain(page[2]);
    },
  );

  it("says what --manifest is for each command, not one phrase for all", async () => {
    const phrases = new Set<string>();
    for (const command of COMMANDS) {
      const help = await runCli([command, "--help"], ws.dir);
      phrases.add(/-m, --manifest <path>\s+(.+?)\s*\(default/s.exec(help.stdout)?.[1]?.replace(/\s+/g, " ") ?? "");
    }
    expect(phrases.size).toBe(COMMANDS.length);
  });

  it("shows calls of tools the default manifest serves", async () => {
    const served = await runCli(["list", "--json"], REPO);
    const names = (JSON.parse(served.stdout) as { name: string }[]).map((row) => row.name);
    const help = await runCli(["call", "--help"], ws.dir);
    const shown = [...help.stdout.matchAll(/^ {2}skillport call (\S+)/gm)].map((m) => m[1]);
    expect(shown.length).toBeGreaterThan(0);
    for (const tool of shown) expect(names).toContain(tool);
  });
});

describe("--log-level", () => {
  it("sets the level for one run, as SKILLPORT_LOG_LEVEL does, and refuses a level it does not know", async () => {
    const args = ["call", "notes.search_notes", '{"keyword":"agent"}'];
    const quiet = await runCli(args, ws.dir, { SKILLPORT_LOG_LEVEL: undefined });
    expect(quiet.stderr).not.toContain('"kind":"audit"');
    const info = await runCli([...args, "--log-level", "info"], ws.dir, { SKILLPORT_LOG_LEVEL: undefined });
    expect(info.code).toBe(0);
    expect(info.stderr).toContain('"kind":"audit"');
    const wrong = await runCli([...args, "--log-level", "loud"], ws.dir);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Allowed choices are debug, info, warn, error, silent");
  });
});
