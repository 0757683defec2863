import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { connectStdio, makeWorkspace, NOTES_SKILL, REPO, runCli } from "./workspace.js";

const LAZY = path.join(REPO, "packages/host/test/fixtures/skill-lazy");

describe("skillport lock and lazy loading", () => {
  let ws: Workspace;
  let manifest: string;
  let importLog: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    importLog = path.join(ws.dir, "imports.log");
    manifest = await ws.writeManifest({
      skills: [
        { path: LAZY, mcp: "lazy" },
        { path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" } },
      ],
    });
    const locked = await runCli(["lock", "--manifest", manifest], ws.dir);
    expect(locked.code, locked.stderr).toBe(0);
    expect(locked.stdout).toContain("locked 2 skill instances (5 tools)");
  });
  afterAll(() => ws.dispose());

  async function serve(args: string[] = []) {
    await writeFile(importLog, "");
    const connected = await connectStdio(manifest, ws.dir, {
      args,
      env: { SKILLPORT_LAZY_LOG: importLog, SKILLPORT_LOG_LEVEL: "warn" },
    });
    await connected.ready;
    return connected;
  }

  const imports = async () => (await readFile(importLog, "utf8")).split("\n").filter(Boolean);

  it("writes a deterministic lock: the same bytes twice, keys sorted", async () => {
    const first = await readFile(path.join(ws.dir, "skills.lock.json"), "utf8");
    await runCli(["lock", "--manifest", manifest], ws.dir);
    expect(await readFile(path.join(ws.dir, "skills.lock.json"), "utf8")).toBe(first);
    const lock = JSON.parse(first);
    expect(Object.keys(lock)).toEqual(["instances", "lockfileVersion", "manifest"]);
    expect(lock.manifest).toBe("skills.manifest.json");
    expect(lock.instances[0]).toMatchObject({ entry: 0, package: "fixture-skill-lazy", version: "3.1.0" });
    expect(lock.instances[0].hash).toMatch(/^sha256-/);
    expect(lock.instances[0].skill.tools.map((t: { name: string }) => t.name)).toEqual(["say_one", "say_two"]);
  });

  it("answers tools/list from the lock without importing any skill, then imports on the first call, once", async () => {
    const { client } = await serve(["--frozen-lock"]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("lazy.say_one");
      expect(await imports()).toEqual([]);
      const result = await client.callTool({ name: "lazy.say_one", arguments: {} });
      expect(result.structuredContent).toMatchObject({ ok: true, data: { said: "one" } });
      await client.callTool({ name: "lazy.say_two", arguments: {} });
      expect(await imports()).toEqual(["import", "register"]);
    } finally {
      await client.close();
    }
  });

  it("imports once under 20 concurrent first calls", async () => {
    const { client } = await serve();
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          client.callTool({ name: i % 2 ? "lazy.say_one" : "lazy.say_two", arguments: { ms: 5 } }),
        ),
      );
      expect(results.every((r) => (r.structuredContent as { ok: boolean }).ok)).toBe(true);
      expect(await imports()).toEqual(["import", "register"]);
    } finally {
      await client.close();
    }
  });

  it("refuses to start with --frozen-lock when the lock is stale, and warns then loads eagerly without it", async () => {
    const lockFile = path.join(ws.dir, "skills.lock.json");
    const lock = JSON.parse(await readFile(lockFile, "utf8"));
    lock.instances[0].version = "3.0.0";
    await writeFile(lockFile, JSON.stringify(lock));
    const frozen = await runCli(["serve", "--stdio", "--frozen-lock", "--manifest", manifest], ws.dir);
    expect(frozen.code).toBe(1);
    expect(frozen.stderr).toContain("cannot start with --frozen-lock");
    expect(frozen.stderr).toContain("skills[0] (fixture-skill-lazy) was locked at 3.0.0 and 3.1.0 is installed");

    const { client, stderrUntil } = await serve();
    try {
      await client.listTools();
      expect(await imports()).toEqual(["import", "register"]); // eager
      await stderrUntil((text) => text.includes("skills.lock.json is out of date"));
    } finally {
      await client.close();
      await runCli(["lock", "--manifest", manifest], ws.dir);
    }
  });

  it("check classifies a breaking change since the lock and fails without a major bump", async () => {
    const lockFile = path.join(ws.dir, "skills.lock.json");
    const lock = JSON.parse(await readFile(lockFile, "utf8"));
    // Pretend the locked surface had a third tool and an extra optional field: the live skill lost both.
    const third = { ...lock.instances[0].skill.tools[0], name: "say_three" };
    lock.instances[0].skill.tools.push(third);
    await writeFile(lockFile, JSON.stringify(lock));
    const checked = await runCli(["check", "--json", "--manifest", manifest], ws.dir);
    expect(checked.code).toBe(1);
    const report = JSON.parse(checked.stdout);
    expect(report.changes).toContainEqual(
      expect.objectContaining({ level: "breaking", tool: "say_three", message: "tool removed or renamed" }),
    );
    expect(report.findings).toContainEqual(
      expect.objectContaining({ rule: "breaking-change", message: expect.stringContaining("is not a major bump") }),
    );
    await runCli(["lock", "--manifest", manifest], ws.dir);
  });
});
