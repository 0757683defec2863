import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import manifestSchema from "../manifest.schema.json" with { type: "json" };
import { HostError } from "../src/errors/host-error.js";
import { loadManifest, readManifest } from "../src/manifest/load-manifest.js";
import { createAjv } from "../src/schema/ajv.js";
import { manifestOf, scratch } from "./helpers.js";

function problemsOf(json: unknown): HostError {
  try {
    manifestOf(json);
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    return error as HostError;
  }
  throw new Error("the manifest was accepted");
}

describe("manifest.schema.json", () => {
  it("is a valid JSON Schema draft 2020-12 (the loader trusts it and skips this check at start-up)", () => {
    const ajv = createAjv();
    expect(ajv.validateSchema(manifestSchema), JSON.stringify(ajv.errors)).toBe(true);
  });
});

describe("loadManifest", () => {
  it("fills defaults and resolves from the manifest's folder", () => {
    const manifest = manifestOf({ skills: [{ package: "fixture-skill-notebook" }] });
    expect(manifest).toMatchObject({ name: "skillport", version: "0.0.0", separator: "." });
    expect(path.basename(manifest.dir)).toBe("fixtures");
  });

  it.each([
    [
      "an unknown top-level field",
      { skills: [], bogus: 1 },
      "bogus: is not a known field; allowed fields are $schema, name",
    ],
    ["an unknown field in an entry", { skills: [{ package: "a", mpc: "x" }] }, "skills[0].mpc: is not a known field"],
    ["a wrong type", { skills: [{ package: "a", enabled: "yes" }] }, 'skills[0].enabled: must be a boolean, got "yes"'],
    ["skills not an array", { skills: {} }, "skills: must be an array, got an object"],
    ["a missing skills list", {}, "skills: is required but missing"],
    ["a bad separator", { separator: "/", skills: [] }, 'separator: must be one of ".", "_", "__", got "/"'],
    ["a bad mcp id", { skills: [{ package: "a", mcp: "no spaces" }] }, "skills[0].mcp: must match the pattern"],
    ["a bad package name", { skills: [{ package: "Not A Package" }] }, "skills[0].package: must match the pattern"],
    [
      "package and path together",
      { skills: [{ package: "a", path: "./b" }] },
      'skills[0]: give exactly one of "package"',
    ],
    ["neither package nor path", { skills: [{ mcp: "x" }] }, 'skills[0]: give exactly one of "package"'],
    [
      "include and exclude together",
      { skills: [{ package: "a", tools: { include: ["x"], exclude: ["y"] } }] },
      'skills[0].tools: use "include" or "exclude", not both',
    ],
  ])("names the field for %s", (_case, json, expected) => {
    const error = problemsOf(json);
    expect(error.code).toBe("MANIFEST_INVALID");
    expect(error.message).toContain(expected);
  });

  it("reports every problem at once", () => {
    const error = problemsOf({
      skills: [
        { package: "a", enabled: 1 },
        { path: "b", bogus: true },
      ],
      separator: "+",
    });
    expect(error.problems).toHaveLength(3);
  });

  it("says where the file should be when it is missing", async () => {
    const dir = await scratch("skillport-manifest-");
    await expect(loadManifest(path.join(dir, "skills.manifest.json"))).rejects.toMatchObject({
      code: "MANIFEST_NOT_FOUND",
      message: expect.stringContaining("--manifest"),
    });
  });

  it("names the file when it is not JSON", async () => {
    const dir = await scratch("skillport-manifest-");
    const file = path.join(dir, "skills.manifest.json");
    await writeFile(file, '{ "skills": [ }');
    await expect(loadManifest(file)).rejects.toMatchObject({
      code: "MANIFEST_INVALID",
      message: expect.stringContaining(file),
    });
  });
});

describe("readManifest", () => {
  it("keeps going past the schema's problems: an entry with problems is set aside, a field at fault takes its default", async () => {
    const dir = await scratch("skillport-read-manifest-");
    const file = path.join(dir, "broken.manifest.json");
    await writeFile(
      file,
      JSON.stringify({
        separator: "/",
        colour: "blue",
        skills: [
          { package: "fixture-skill-notebook", mcp: "Bad Name" },
          { package: "fixture-skill-notebook", mcp: "fine" },
          { package: "a", path: "b" },
        ],
      }),
    );
    const reading = await readManifest(file);
    expect(reading.problems.map((p) => p.split(":")[0])).toEqual(["colour", "separator", "skills[0].mcp", "skills[2]"]);
    expect(reading.manifest).toMatchObject({
      separator: ".",
      skills: [{ enabled: false }, { package: "fixture-skill-notebook", mcp: "fine" }, { enabled: false }],
    });
    await expect(loadManifest(file)).rejects.toThrow(/broken\.manifest\.json is invalid/);
  });

  it("builds nothing from a manifest that is not an object", async () => {
    const dir = await scratch("skillport-read-manifest-");
    const file = path.join(dir, "list.json");
    await writeFile(file, "[]");
    expect(await readManifest(file)).toMatchObject({ manifest: undefined, problems: [expect.any(String)] });
  });
});
