import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertSkillEntry } from "../src/insert-skill-entry.js";
import { REPO, runCli } from "./workspace.js";

const BIN = path.join(REPO, "node_modules/.bin");

/** Runs a command to completion. */
function run(command: string, args: string[], cwd: string) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/**
 * A scratch Skillport workspace: the repo's shared configs and a manifest, with node_modules linked to this
 * repo's packages and toolchain, so a scaffolded skill builds and tests without an install or the network.
 */
async function makeWorkspace(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-new-"));
  for (const file of ["tsconfig.base.json", "vitest.shared.ts", "vitest.report.ts", "pnpm-workspace.yaml"]) {
    await cp(path.join(REPO, file), path.join(dir, file));
  }
  await mkdir(path.join(dir, ".changeset"));
  await writeFile(
    path.join(dir, "skills.manifest.json"),
    JSON.stringify(
      { name: "scratch", skills: [{ package: "@skillport/skill-notes", config: { vault: "./v" } }] },
      null,
      2,
    ),
  );
  await link(path.join(REPO, "node_modules/vitest"), path.join(dir, "node_modules/vitest"));
  await link(path.join(REPO, "node_modules/tsup"), path.join(dir, "node_modules/tsup"));
  await link(path.join(REPO, "node_modules/@types/node"), path.join(dir, "node_modules/@types/node"));
  return dir;
}

async function link(target: string, at: string): Promise<void> {
  await mkdir(path.dirname(at), { recursive: true });
  await symlink(await realpath(target), at, "dir");
}

describe("skillport new", () => {
  let ws: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => rm(ws, { recursive: true, force: true }));

  it("scaffolds a skill that builds, passes its tests and serves at once", async () => {
    const created = await runCli(["new", "demo-tool"], ws);
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("Created @skillport/skill-demo-tool in skills/skill-demo-tool");

    const skill = path.join(ws, "skills/skill-demo-tool");
    const pkg = JSON.parse(await readFile(path.join(skill, "package.json"), "utf8"));
    expect(pkg).toMatchObject({
      name: "@skillport/skill-demo-tool",
      peerDependencies: { "@skillport/core": "workspace:^" },
      devDependencies: { "@skillport/testing": "workspace:*" },
      files: ["dist", "SKILL.md"],
    });
    const test = await readFile(path.join(skill, "test/get-demo-tool.test.ts"), "utf8");
    expect(test).toContain("testSkill(register)");
    expect(test).toContain('mockContext({ token: "test-token" })');
    expect(await readFile(path.join(skill, "README.md"), "utf8")).toContain("`get_demo_tool`");
    const skillMd = await readFile(path.join(skill, "SKILL.md"), "utf8");
    expect(skillMd).toMatch(/^---\nname: demo-tool\ndescription: .+\n---\n/);
    expect(skillMd).toContain("`get_demo_tool`");
    expect(await readFile(path.join(skill, "LICENSE"), "utf8")).toContain("The Skillport authors");
    expect(await readFile(path.join(ws, ".changeset/skill-demo-tool-first-release.md"), "utf8")).toContain(
      '"@skillport/skill-demo-tool": minor',
    );
    const manifest = JSON.parse(await readFile(path.join(ws, "skills.manifest.json"), "utf8"));
    expect(manifest.skills[1]).toEqual({ path: "./skills/skill-demo-tool", mcp: "demo-tool", enabled: false });

    // What `pnpm install` would link in a real workspace.
    await link(path.join(REPO, "packages/core"), path.join(skill, "node_modules/@skillport/core"));
    await link(path.join(REPO, "packages/testing"), path.join(skill, "node_modules/@skillport/testing"));
    await link(path.join(REPO, "packages/core/node_modules/zod"), path.join(skill, "node_modules/zod"));

    const build = await run(path.join(BIN, "tsup"), [], skill);
    expect(build.code, build.output).toBe(0);
    const typecheck = await run(path.join(BIN, "tsc"), ["-p", "tsconfig.test.json"], skill);
    expect(typecheck.code, typecheck.output).toBe(0);
    const tests = await run(path.join(BIN, "vitest"), ["run"], skill);
    expect(tests.code, tests.output).toBe(0);
    // testSkill() checks the scaffolded SKILL.md too.
    expect(tests.output).toMatch(/Tests\s+9 passed/);

    manifest.skills[1].enabled = true;
    manifest.skills.splice(0, 1);
    await writeFile(path.join(ws, "skills.manifest.json"), JSON.stringify(manifest));
    const called = await runCli(["call", "demo-tool.get_demo_tool", '{"query":"hello"}'], ws);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ ok: true, data: { query: "hello" } });
  }, 180_000);

  it.each([
    ["an uppercase name", "Weather"],
    ["a one-letter name", "w"],
    ["a name with a space", "my skill"],
    ["a name starting with a digit", "2fa"],
    ["a name ending in a dash", "weather-"],
    ["a double dash", "git--log"],
    ["a name too long", `a${"b".repeat(31)}`],
  ])("refuses %s with exit 2, saying what a name may be", async (_case, name) => {
    const { code, stderr } = await runCli(["new", name], ws);
    expect(code).toBe(2);
    expect(stderr).toContain(`[skillport] new: "${name}" is not a valid skill name: use 2-31 lowercase letters`);
  });

  it("refuses a skill that already exists, or a name the manifest already uses", async () => {
    await writeFile(
      path.join(ws, "skills.manifest.json"),
      JSON.stringify({ skills: [{ package: "@skillport/skill-notes", config: { vault: "./v" } }] }),
    );
    await mkdir(path.join(ws, "skills/skill-taken"), { recursive: true });
    const existing = await runCli(["new", "taken"], ws);
    expect(existing.code).toBe(1);
    expect(existing.stderr).toContain("skills/skill-taken already exists; choose another name");
    const inManifest = await runCli(["new", "notes"], ws);
    expect(inManifest.code).toBe(1);
    expect(inManifest.stderr).toContain('the manifest already has "notes" (skills[0]); choose another name');
    await expect(readFile(path.join(ws, "skills/skill-notes/package.json"))).rejects.toThrow();
  });

  it("says where to run it when there is no manifest", async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), "skillport-new-empty-"));
    try {
      const { code, stderr } = await runCli(["new", "weather"], empty);
      expect(code).toBe(1);
      expect(stderr).toContain("run skillport new at the root of your Skillport workspace");
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe("skillport new keeps the repository green", () => {
  let ws: string;
  const BIOME = path.join(BIN, "biome");

  beforeAll(async () => {
    ws = await makeWorkspace();
    await cp(path.join(REPO, "biome.json"), path.join(ws, "biome.json"));
  });
  afterAll(() => rm(ws, { recursive: true, force: true }));

  it("adds its entry to the repository's own manifest and changes nothing else in it, byte for byte", async () => {
    const original = await readFile(path.join(REPO, "skills.manifest.json"), "utf8");
    await writeFile(path.join(ws, "skills.manifest.json"), original);
    // Not "weather": the authoring flow's clone runs this test with a weather skill already in the manifest.
    const created = await runCli(["new", "forecast"], ws);
    expect(created.code, created.stderr).toBe(0);
    const updated = await readFile(path.join(ws, "skills.manifest.json"), "utf8");
    const end = original.lastIndexOf("}", original.lastIndexOf("]")) + 1; // after the last entry
    const entry = '{ "path": "./skills/skill-forecast", "mcp": "forecast", "enabled": false }';
    expect(updated).toBe(`${original.slice(0, end)},\n    ${entry}${original.slice(end)}`);
  });

  it("writes files that pass Biome as the repository configures it, whatever the name's length", async () => {
    for (const name of ["git-history", "a2", "a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p", "abcdefghijklmnopqrstuvwxyzabcde"]) {
      const created = await runCli(["new", name], ws);
      expect(created.code, created.stderr).toBe(0);
    }
    const checked = await run(BIOME, ["check", "--vcs-enabled=false", "skills.manifest.json", "skills"], ws);
    expect(checked.code, checked.output).toBe(0);
  });

  it("inserts into any manifest Biome formatted so that Biome leaves the result as it is", async () => {
    // Biome lays out anew a manifest whose object was on one line and no longer fits there: these start expanded.
    const manifests = [
      '{"skills":[]}',
      '{\n "name": "x", "skills": [{ "package": "a" }], "separator": "_" }',
      `{\n "skills": [{ "package": "@acme/skill-with-a-rather-long-name", "mcp": "rather-long", "config": { "k": "v" } }] }`,
      '{\r\n  "skills": [\r\n    { "package": "a", "config": { "text": "] \\" [ }" } }\r\n  ],\r\n  "name": "crlf"\r\n}\r\n',
      '{\n\t"skills": [\n\t\t{\n\t\t\t"package": "a"\n\t\t}\n\t]\n}\n',
      '{\n "skills": [1], "skills": [{ "package": "last-wins" }] }',
    ];
    const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-insert-"));
    try {
      await writeFile(path.join(dir, "biome.json"), await readFile(path.join(REPO, "biome.json")));
      await mkdir(path.join(dir, "in"));
      await mkdir(path.join(dir, "out"));
      await Promise.all(manifests.map((m, i) => writeFile(path.join(dir, "in", `${i}.json`), m)));
      const formatIn = await run(BIOME, ["format", "--write", "--vcs-enabled=false", "in"], dir);
      expect(formatIn.code, formatIn.output).toBe(0);
      const entry = { path: "./skills/skill-weather-station-with-a-long-name", mcp: "weather", enabled: false };
      const outputs: string[] = [];
      for (const i of manifests.keys()) {
        const input = await readFile(path.join(dir, "in", `${i}.json`), "utf8");
        const output = insertSkillEntry(input, entry) as string;
        expect(JSON.parse(output).skills.at(-1)).toEqual(entry);
        outputs.push(output);
        await writeFile(path.join(dir, "out", `${i}.json`), output);
      }
      const formatOut = await run(BIOME, ["format", "--write", "--vcs-enabled=false", "out"], dir);
      expect(formatOut.code, formatOut.output).toBe(0);
      for (const [i, output] of outputs.entries()) {
        expect(await readFile(path.join(dir, "out", `${i}.json`), "utf8"), `manifest ${i}`).toBe(output);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps a manifest's own line endings and indentation", () => {
    const crlf = '{\r\n\t"skills": [\r\n\t\t{ "package": "a" }\r\n\t],\r\n\t"name": "crlf"\r\n}\r\n';
    expect(insertSkillEntry(crlf, { path: "./b" })).toBe(
      '{\r\n\t"skills": [\r\n\t\t{ "package": "a" },\r\n\t\t{ "path": "./b" }\r\n\t],\r\n\t"name": "crlf"\r\n}\r\n',
    );
  });

  it("refuses a manifest without a skills list, leaving it as it is", async () => {
    await writeFile(path.join(ws, "skills.manifest.json"), '{ "name": "no-skills" }\n');
    const created = await runCli(["new", "orphan"], ws);
    expect(created.code).toBe(1);
    expect(created.stderr).toContain('has no "skills" list');
    expect(insertSkillEntry("[]", {})).toBeUndefined();
  });
});
