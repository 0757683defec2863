import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { closestNames } from "../src/errors/closest-names.js";
import type { HostError } from "../src/errors/host-error.js";
import { resolveSkill } from "../src/registry/resolve-skill.js";
import { compileSchema } from "../src/schema/compile-schema.js";
import { manifestOf, scratch } from "./helpers.js";

// One "did you mean" for every name a person can mistype: a manifest's field, a package, a tool's argument (and a
// tool's name, in skillport call).

const SEARCH_INPUT = {
  type: "object",
  properties: { keyword: { type: "string", minLength: 2 }, limit: { type: "integer" } },
  required: ["keyword"],
};

function thrown(run: () => unknown): HostError {
  try {
    run();
  } catch (error) {
    return error as HostError;
  }
  throw new Error("nothing was thrown");
}

describe("closestNames", () => {
  it("finds the name a typo was meant to be, and nothing when nothing is close", () => {
    expect(closestNames("seperator", ["name", "separator", "skills"])).toEqual(["separator"]);
    expect(closestNames("@skillport/skill-notse", ["@skillport/skill-notes", "@skillport/skill-files"], "/")).toEqual([
      "@skillport/skill-notes",
    ]);
    expect(closestNames("serch_notes", ["notes.search_notes", "notes.read_note"], ".")).toEqual(["notes.search_notes"]);
    expect(closestNames("colour", ["name", "separator", "skills"])).toEqual([]);
  });
});

describe("did you mean", () => {
  it("names the field an unknown manifest field was meant to be", () => {
    const error = thrown(() => manifestOf({ seperator: "_", skills: [{ package: "a", mpc: "x" }] }));
    expect(error.problems).toContain(
      'seperator: is not a known field: did you mean "separator"? (allowed fields: $schema, name, version, separator, discovery, skills, servers, audit, confirmation, http, stdio, tasks, state, credentials)',
    );
    expect(error.problems.find((p) => p.startsWith("skills[0].mpc"))).toContain('did you mean "mcp"?');
    // Nothing close: the fields allowed, as before.
    expect(thrown(() => manifestOf({ skills: [], colour: "x" })).problems[0]).toMatch(
      /^colour: is not a known field; allowed fields are \$schema, name/,
    );
  });

  it("names the installed package a missing one was meant to be, and never advises installing the typo", async () => {
    const dir = await scratch("skillport-did-you-mean-");
    await mkdir(path.join(dir, "node_modules/@acme/skill-notes"), { recursive: true });
    await writeFile(path.join(dir, "node_modules/@acme/skill-notes/package.json"), '{ "name": "@acme/skill-notes" }');
    const manifest = path.join(dir, "skills.manifest.json");
    const typo = await resolveSkill({ package: "@acme/skill-notse" }, manifest, "skills[0]").catch((e: unknown) => e);
    expect((typo as HostError).message).toContain(
      'cannot find package "@acme/skill-notse", which ' +
        `${manifest} asks for (it is not installed there or in a folder above); did you mean "@acme/skill-notes", which is installed? Fix the name`,
    );
    expect((typo as HostError).message).not.toContain("pnpm add @acme/skill-notse");
    const other = await resolveSkill({ package: "@acme/skill-weather" }, manifest, "skills[0]").catch(
      (e: unknown) => e,
    );
    expect((other as HostError).message).toContain("install it beside the manifest (pnpm add @acme/skill-weather)");
  });

  it("names the property a tool's misspelt argument was meant to be", () => {
    const check = compileSchema(SEARCH_INPUT);
    expect(check({ keywrd: "agent" }).problems).toEqual([
      '/keyword is required but missing (found "keywrd": did you mean "keyword"?)',
    ]);
    const strict = compileSchema({ ...SEARCH_INPUT, additionalProperties: false });
    expect(strict({ keyword: "agent", limt: 3 }).problems).toEqual([
      '/limt is not a known field: did you mean "limit"? (allowed fields: keyword, limit)',
    ]);
    expect(check({ other: 1 }).problems).toEqual(["/keyword is required but missing"]);
  });
});
