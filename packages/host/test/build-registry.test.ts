import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { defineSkill, defineTool } from "@skillport/core";
import { describe, expect, it } from "vitest";
import { HostError } from "../src/errors/host-error.js";
import { parseManifest } from "../src/manifest/load-manifest.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import { BROKEN_IMPORT, ECHO, FIXTURES, manifestOf, NOTEBOOK } from "./helpers.js";

async function failureOf(json: unknown): Promise<HostError> {
  try {
    await buildRegistry(manifestOf(json));
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    return error as HostError;
  }
  throw new Error("the registry was built");
}

const notes = (extra: Record<string, unknown> = {}) => ({ path: NOTEBOOK, config: { vault: "./vault" }, ...extra });

describe("buildRegistry", () => {
  it("namespaces tools as <mcp><separator><tool>, in manifest order", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [notes(), { path: ECHO, mcp: "say" }] }));
    expect([...registry.tools.keys()]).toEqual([
      "notes.search_notes",
      "notes.read_note",
      "notes.create_study_task",
      "say.echo",
      "say.plain",
      "say.nothing",
      "say.fail",
      "say.boom",
      "say.wait",
      "say.whoami",
      "say.config",
      "say.wipe",
      "say.find",
      "say.sleep",
      "say.spin",
      "say.hog",
      "say.count",
      "say.stray",
      "say.leak",
    ]);
    expect(registry.listings.map((l) => l.name)).toEqual([...registry.tools.keys()]);
    const echo = registry.tools.get("say.echo");
    expect(echo?.instance).toMatchObject({ id: "say", packageName: "fixture-skill-echo", version: "1.4.2" });
    expect(echo?.listing.annotations).toEqual({ title: "Echo", readOnlyHint: true, destructiveHint: false });
    expect(registry.tools.get("say.wipe")?.listing.annotations).toMatchObject({ destructiveHint: true });
  });

  it("uses the skill's name when the entry gives no mcp id, and the chosen separator", async () => {
    const registry = await buildRegistry(manifestOf({ separator: "__", skills: [{ path: ECHO }] }));
    expect(registry.tools.has("echo__echo")).toBe(true);
  });

  it("resolves a package the way Node resolves an import from the manifest's folder", async () => {
    // The package is installed beside a manifest in a scratch folder, as `pnpm add` would link it.
    const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-resolve-"));
    try {
      await mkdir(path.join(dir, "node_modules"));
      await symlink(NOTEBOOK, path.join(dir, "node_modules", "fixture-skill-notebook"), "dir");
      const manifest = parseManifest(
        { skills: [{ package: "fixture-skill-notebook", config: { vault: "./v" } }] },
        path.join(dir, "skills.manifest.json"),
      );
      const registry = await buildRegistry(manifest);
      expect(registry.instances[0]).toMatchObject({ id: "notes", packageName: "fixture-skill-notebook" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("validates the config, fills its defaults and resolves path fields against the manifest's folder", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [notes(), { path: ECHO, config: { dir: "~/x" } }] }));
    expect(registry.instances[0]?.config).toMatchObject({ vault: path.join(FIXTURES, "vault"), tasksFolder: "Tasks" });
    expect(registry.instances[1]?.config).toEqual({ prefix: "", dir: path.join(os.homedir(), "x") });
  });

  it("refuses two tools with the same full name, naming both manifest entries", async () => {
    const error = await failureOf({ skills: [notes({ mcp: "notes" }), notes({ mcp: "notes" })] });
    expect(error.code).toBe("TOOL_CONFLICT");
    expect(error.problems).toHaveLength(3);
    expect(error.problems[0]).toBe(
      `tool "notes.search_notes" is defined by both skills[0] (fixture-skill-notebook as "notes", tool search_notes) and skills[1] (fixture-skill-notebook as "notes", tool search_notes); give one of them another "mcp" id, or rename one in tools.rename`,
    );
  });

  it("allows the same skill twice under different mcp ids", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [notes({ mcp: "a" }), notes({ mcp: "b" })] }));
    expect(registry.tools.size).toBe(6);
    expect(registry.instances[0]).not.toBe(registry.instances[1]);
  });

  it.each([
    [
      "an unknown package",
      { package: "@skillport/skill-nope" },
      "SKILL_NOT_FOUND",
      'skills[0].package: cannot find package "@skillport/skill-nope"',
    ],
    ["a folder without a package", { path: "./nowhere" }, "SKILL_NOT_FOUND", "skills[0].path:"],
    [
      "a version the package does not satisfy",
      { path: ECHO, version: "^2.0.0" },
      "VERSION_MISMATCH",
      "fixture-skill-echo@^2.0.0 but 1.4.2 is installed",
    ],
    [
      "a version that is not a range",
      { path: ECHO, version: "latest-and-greatest" },
      "MANIFEST_INVALID",
      "not a semver range",
    ],
    [
      "a config missing a required field",
      { path: NOTEBOOK, config: {} },
      "CONFIG_INVALID",
      "skills[0].config.vault: is required but missing",
    ],
    [
      "a config field of the wrong type",
      { path: NOTEBOOK, config: { vault: "./v", maxNoteBytes: "big" } },
      "CONFIG_INVALID",
      'skills[0].config.maxNoteBytes: must be an integer, got "big"',
    ],
    [
      "an unknown config field",
      { path: NOTEBOOK, config: { vault: "./v", vualt: 1 } },
      "CONFIG_INVALID",
      "skills[0].config.vualt: is not a known field",
    ],
    [
      "an unknown tool in exclude",
      { path: ECHO, tools: { exclude: ["ecco"] } },
      "MANIFEST_INVALID",
      'skills[0].tools.exclude: skill "echo" has no tool "ecco"',
    ],
  ])("stops on %s, naming the field", async (_case, entry, code, expected) => {
    const error = await failureOf({ skills: [entry] });
    expect(error.code).toBe(code);
    expect(error.message).toContain(expected);
  });

  it("reports the problems of every entry at once", async () => {
    const error = await failureOf({ skills: [{ package: "@skillport/skill-nope" }, { path: NOTEBOOK, config: {} }] });
    // Each problem once, as a line of the list: without a "[skillport]" of its own.
    expect(error.problems.map((p) => p.slice(0, 14))).toEqual(["skills[0].pack", "skills[1].conf"]);
  });

  it("reports every problem of one entry, and the tool table's, with them", async () => {
    const error = await failureOf({
      skills: [
        { path: ECHO, mcp: "a", tools: { exclude: ["no_such_tool"] } },
        { path: ECHO, mcp: "a" },
        { path: NOTEBOOK, config: { colour: "blue" }, credentials: { nope: { env: "NOPE" } }, allow: ["read_note"] },
      ],
    });
    const places = error.problems.map((p) => p.split(":")[0]);
    expect(places).toEqual(
      expect.arrayContaining([
        "skills[2].config.vault",
        "skills[2].config.colour",
        "skills[2].credentials.nope",
        "skills[2].allow",
        "skills[0].tools.exclude",
      ]),
    );
    expect(error.problems.some((p) => p.startsWith('tool "a.'))).toBe(true);
  });

  it("never imports a disabled instance", async () => {
    const registry = await buildRegistry(
      manifestOf({ skills: [{ path: BROKEN_IMPORT, enabled: false }, { path: ECHO }] }),
    );
    expect(registry.instances.map((i) => i.id)).toEqual(["echo"]);
  });

  it("serves only the included tools, or all but the excluded", async () => {
    const included = await buildRegistry(
      manifestOf({ skills: [{ path: ECHO, tools: { include: ["echo", "plain"] } }] }),
    );
    expect([...included.tools.keys()]).toEqual(["echo.echo", "echo.plain"]);
    const excluded = await buildRegistry(
      manifestOf({ skills: [notes({ tools: { exclude: ["create_study_task"] } })] }),
    );
    expect([...excluded.tools.keys()]).toEqual(["notes.search_notes", "notes.read_note"]);
  });
});

describe("buildRegistry with skill modules already in memory", () => {
  const register = defineSkill({
    name: "mem",
    version: "2.0.0",
    tools: [
      defineTool({
        name: "get_value",
        title: "Get value",
        description: "Return a fixed value.",
        input: { type: "object", properties: {}, additionalProperties: false },
        risk: "read_only",
        run: () => 42,
      }),
    ],
  });

  it("uses a listed module instead of resolving the package", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [{ package: "@acme/skill-mem", version: "^2.0.0" }] }), {
      modules: { "@acme/skill-mem": { register } },
    });
    expect(registry.instances[0]).toMatchObject({ id: "mem", packageName: "@acme/skill-mem", version: "2.0.0" });
    expect([...registry.tools.keys()]).toEqual(["mem.get_value"]);
  });

  it("checks the module's version against the entry's range", async () => {
    await expect(
      buildRegistry(manifestOf({ skills: [{ package: "skill-mem", version: "^1.0.0" }] }), {
        modules: { "skill-mem": { register, version: "3.1.0" } },
      }),
    ).rejects.toMatchObject({
      code: "VERSION_MISMATCH",
      message: expect.stringContaining("skill-mem@^1.0.0 but 3.1.0"),
    });
  });

  it("still resolves packages that are not listed", async () => {
    await expect(
      buildRegistry(manifestOf({ skills: [{ package: "@skillport/skill-nope" }] }), {
        modules: { other: { register } },
      }),
    ).rejects.toMatchObject({ code: "SKILL_NOT_FOUND" });
  });
});
