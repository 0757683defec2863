// Names read from the manifest are looked up as own properties: `toString`, `constructor` and `__proto__` are keys
// every JavaScript object answers to, and must never pass for a declared credential, a tool or a package.
import { defineSkill, defineTool } from "@skillport/core";
import { describe, expect, it } from "vitest";
import { HostError } from "../src/errors/host-error.js";
import type { LoadedManifest } from "../src/manifest/manifest.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import { resolveHttpConfig } from "../src/transports/http/config.js";
import { manifestOf, NEEDS_TOKEN } from "./helpers.js";

/** The manifest as JSON text, so `__proto__` is an own key as it is in a file. */
const fromText = (text: string) => manifestOf(JSON.parse(text));

async function registryFailure(manifest: LoadedManifest): Promise<HostError> {
  try {
    await buildRegistry(manifest);
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    return error as HostError;
  }
  throw new Error("the registry was built");
}

describe("the manifest schema refuses names every object already has", () => {
  it.each([
    [
      "credentials",
      '{ "credentials": { "__proto__": { "env": "X" } } }',
      'skills[0].credentials.__proto__: "__proto__"',
    ],
    ["credentials", '{ "credentials": { "toString": { "env": "X" } } }', 'skills[0].credentials.toString: "toString"'],
    ["tools.rename", '{ "tools": { "rename": { "constructor": "x" } } }', "skills[0].tools.rename.constructor"],
    ["tools.override", '{ "tools": { "override": { "valueOf": {} } } }', "skills[0].tools.override.valueOf"],
    ["scopes", '{ "scopes": { "hasOwnProperty": ["a"] } }', "skills[0].scopes.hasOwnProperty"],
  ])("in %s", (_map, entry, where) => {
    const text = `{ "skills": [{ "path": ${JSON.stringify(NEEDS_TOKEN)}, ${entry.slice(1, -1)} }] }`;
    expect(() => fromText(text)).toThrow(where);
    expect(() => fromText(text)).toThrow("is not allowed as a name");
  });

  it("still accepts ordinary names, and '*' for scopes", () => {
    expect(() =>
      manifestOf({
        skills: [{ path: NEEDS_TOKEN, credentials: { token: { env: "X" } }, scopes: { "*": ["a"], use_token: ["b"] } }],
      }),
    ).not.toThrow();
  });
});

describe("lookups by name use own properties only", () => {
  // A manifest object that skipped the schema (built in code), to check the registry on its own.
  const unchecked = (entry: Record<string, unknown>): LoadedManifest => ({
    ...manifestOf({ skills: [] }),
    skills: [{ path: NEEDS_TOKEN, ...entry }],
  });

  it.each([
    ["toString", { toString: { env: "X" } }],
    ["__proto__", JSON.parse('{ "__proto__": { "env": "X" } }')],
    ["constructor", { constructor: { env: "X" } }],
  ])("refuses a credential named %s that the skill does not declare", async (name, credentials) => {
    const error = await registryFailure(unchecked({ credentials }));
    expect(error.message).toContain(`credentials.${name}: skill "needy" declares no credential "${name}"`);
  });

  it("finds a tool named like an Object method in rename, override and scopes maps that do not name it", async () => {
    const odd = defineSkill({
      name: "odd",
      tools: ["constructor", "toString", "valueOf"].map((name) =>
        defineTool({
          name,
          title: name,
          description: `The ${name} tool.`,
          input: { type: "object", properties: {}, additionalProperties: false },
          risk: "read_only",
          run: () => ({}),
        }),
      ),
    });
    const registry = await buildRegistry(
      manifestOf({
        skills: [{ package: "odd-skill", tools: { rename: {}, override: {} }, scopes: { "*": ["odd:use"] } }],
      }),
      { modules: { "odd-skill": { register: odd, version: "1.0.0" } } },
    );
    expect([...registry.tools.keys()]).toEqual(["odd.constructor", "odd.toString", "odd.valueOf"]);
    expect(registry.tools.get("odd.constructor")?.scopes).toEqual(["odd:use"]);
    expect(registry.tools.get("odd.toString")?.listing.description).toBe("The toString tool.");
  });

  it("does not take Object's constructor for a preloaded module named 'constructor'", async () => {
    const error = await registryFailure(manifestOf({ skills: [{ package: "constructor" }] }));
    expect(error.message).toContain('cannot find package "constructor"');
  });

  it("reads a token from an environment variable named like an Object method as missing, not as a function", async () => {
    const manifest = manifestOf({
      skills: [],
      http: { auth: { tokens: [{ name: "t", token: { env: "toString" } }] } },
    });
    await expect(resolveHttpConfig(manifest, { env: {} })).rejects.toThrow(
      "the environment variable toString is not set",
    );
  });
});
