import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, NOTES_SKILL, runCli, serveHttp } from "./workspace.js";

/**
 * A person fixing a manifest reads every problem at once, whichever command they ran and whether a lock is present:
 * one problem per run would turn five mistakes into five edit-run cycles.
 */
describe("every manifest problem at once, whatever the command and the lock", () => {
  let ws: Workspace;

  const notes = (mcp: string, extra: Record<string, unknown> = {}) => ({
    path: NOTES_SKILL,
    mcp,
    config: { vault: "./vault" },
    ...extra,
  });

  // Problems the registry finds, several of them in one entry, and some only once the tool table is built.
  const registryBroken = {
    name: "broken",
    skills: [
      notes("notes", { tools: { exclude: ["no_such_tool"] } }),
      notes("notes"),
      notes("more", {
        config: { vault: "./vault", colour: "blue" },
        credentials: { nope: { env: "NOPE" } },
        allow: ["search_notes"],
      }),
    ],
  };
  const registryProblems = [
    'skills[0].tools.exclude: skill "notes" has no tool "no_such_tool"',
    'tool "notes.search_notes" is defined by both skills[0]',
    "skills[2].config.colour: is not a known field",
    'skills[2].credentials.nope: skill "notes" declares no credential "nope"',
    'skills[2].allow: "search_notes" is not a dangerous tool',
  ];
  // The same, plus what the manifest's own schema rejects: an unknown top-level field and an invalid entry.
  const allBroken = {
    ...registryBroken,
    colour: "blue",
    skills: [
      ...registryBroken.skills,
      notes("Bad Name!"),
      notes("fine", { tools: { include: ["a"], exclude: ["b"] } }),
    ],
  };
  const schemaProblems = [
    "colour: is not a known field",
    "skills[3].mcp: must match the pattern",
    'skills[4].tools: use "include" or "exclude", not both',
  ];

  beforeAll(async () => {
    ws = await makeWorkspace();
    // A current lock beside the manifest (the same packages at the same places): serve and list start from it.
    await ws.writeManifest({ name: "broken", skills: registryBroken.skills.map((_, i) => notes(`n${i}`)) });
    const locked = await runCli(["lock", "--manifest", ws.manifest], ws.dir);
    expect(locked.code, locked.stderr).toBe(0);
  });
  afterAll(() => ws?.dispose());

  const commands: Array<[string, string[]]> = [
    ["list", ["list"]],
    ["serve --stdio", ["serve", "--stdio"]],
    ["serve --stdio --no-lock", ["serve", "--stdio", "--no-lock"]],
    ["check", ["check"]],
    ["call", ["call", "notes.search_notes", '{"keyword":"agent"}']],
  ];

  it.each([
    ["problems the registry finds", registryBroken, registryProblems],
    ["those and the manifest's schema problems", allBroken, [...schemaProblems, ...registryProblems]],
  ])("reports %s, every one, from every command", async (_case, manifest, expected) => {
    await ws.writeManifest(manifest);
    const runs = await Promise.all(commands.map(([, args]) => runCli([...args, "--manifest", ws.manifest], ws.dir)));
    for (const [i, { code, stdout, stderr }] of runs.entries()) {
      const name = commands[i]?.[0];
      expect(code, `${name}: ${stderr}`).toBe(1);
      expect(stdout, name).toBe("");
      for (const problem of expected) expect(stderr, `${name} names ${problem}`).toContain(problem);
      // One message, each problem once, none with a second "[skillport]" inside the list.
      expect(stderr.match(/cannot start/g), name).toHaveLength(1);
      expect(stderr, name).not.toMatch(/^ {2}- \[skillport\]/m);
    }
    // And over HTTP, with the lock.
    const served = serveHttp(["--manifest", ws.manifest], ws.dir);
    expect(await served.exit).toBe(1);
    for (const problem of expected) expect(served.stderr()).toContain(problem);
  });

  it("counts the problems it lists", async () => {
    await ws.writeManifest(allBroken);
    const { stderr } = await runCli(["list", "--manifest", ws.manifest], ws.dir);
    const listed = stderr.split("\n").filter((line) => line.startsWith("  - ")).length;
    expect(stderr).toContain(`cannot start: ${listed} problems in ${ws.manifest}:`);
    expect(listed).toBeGreaterThanOrEqual(schemaProblems.length + registryProblems.length);
  });
});
