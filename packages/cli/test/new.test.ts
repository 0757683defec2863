import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, link, makeWorkspace, run } from "./new-workspace.js";
import { REPO, runCli } from "./workspace.js";

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
