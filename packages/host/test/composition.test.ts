import { describe, expect, it } from "vitest";
import { surfaceOf } from "../src/entries/surface.js";
import { HostError } from "../src/errors/host-error.js";
import { createHost } from "../src/host.js";
import { buildRegistry } from "../src/registry/build-registry.js";
import type { LockFile } from "../src/registry/lock.js";
import { hashOf, lockProblems, stringifyLock } from "../src/registry/lock.js";
import { BROKEN_IMPORT, ECHO, lockFor, manifestOf, NOTEBOOK, pipelineOf, silentLogger } from "./helpers.js";

const notes = (extra: Record<string, unknown> = {}) => ({ path: NOTEBOOK, config: { vault: "./vault" }, ...extra });

async function conflicts(json: unknown): Promise<HostError> {
  try {
    await buildRegistry(manifestOf(json));
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    return error as HostError;
  }
  throw new Error("the registry was built");
}

describe("composing instances", () => {
  it("renames tools, and the full name follows the new name", async () => {
    const registry = await buildRegistry(
      manifestOf({ skills: [notes({ tools: { rename: { search_notes: "find_notes" } } })] }),
    );
    expect([...registry.tools.keys()]).toEqual(["notes.find_notes", "notes.read_note", "notes.create_study_task"]);
    expect(registry.tools.get("notes.find_notes")?.toolName).toBe("search_notes");
  });

  it("overrides title, description and hints, but never the risk's hints", async () => {
    const registry = await buildRegistry(
      manifestOf({
        skills: [
          notes({
            tools: {
              override: {
                read_note: {
                  title: "Read handbook page",
                  description: "Read a page of the handbook.",
                  annotations: { openWorldHint: true },
                },
              },
            },
          }),
        ],
      }),
    );
    expect(registry.tools.get("notes.read_note")?.listing).toMatchObject({
      title: "Read handbook page",
      description: "Read a page of the handbook.",
      annotations: { title: "Read handbook page", readOnlyHint: true, openWorldHint: true },
    });
    await expect(async () =>
      buildRegistry(
        manifestOf({
          skills: [notes({ tools: { override: { read_note: { annotations: { readOnlyHint: false } } } } })],
        }),
      ),
    ).rejects.toThrow("skills[0].tools.override.read_note.annotations.readOnlyHint: is not a known field");
  });

  it("mounts tools without the prefix when prefix is false", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [notes({ prefix: false }), { path: ECHO, mcp: "e" }] }));
    expect(registry.tools.has("search_notes")).toBe(true);
    expect(registry.tools.has("e.echo")).toBe(true);
  });

  it.each([
    ["_", "notes_search_notes"],
    ["__", "notes__search_notes"],
    [".", "notes.search_notes"],
  ])('joins with the separator "%s"', async (separator, name) => {
    const registry = await buildRegistry(manifestOf({ separator, skills: [notes()] }));
    expect(registry.tools.has(name)).toBe(true);
  });

  it("reports every conflict on the final names at once, each with both sources", async () => {
    const error = await conflicts({
      skills: [
        notes({ prefix: false }),
        notes({ mcp: "work", prefix: false, tools: { include: ["read_note"] } }),
        { path: ECHO, mcp: "x", prefix: false, tools: { rename: { echo: "search_notes" }, include: ["echo"] } },
      ],
    });
    expect(error.code).toBe("TOOL_CONFLICT");
    expect(error.problems).toEqual([
      'tool "read_note" is defined by both skills[0] (fixture-skill-notebook as "notes", tool read_note) and skills[1] (fixture-skill-notebook as "work", tool read_note); give one of them another "mcp" id, or rename one in tools.rename',
      'tool "search_notes" is defined by both skills[0] (fixture-skill-notebook as "notes", tool search_notes) and skills[2] (fixture-skill-echo as "x", tool echo); give one of them another "mcp" id, or rename one in tools.rename',
    ]);
  });

  it.each([
    [
      "a rename of an unknown tool",
      notes({ tools: { rename: { serch_notes: "x" } } }),
      'skills[0].tools.rename: skill "notes" has no tool "serch_notes"',
    ],
    [
      "an override of an unknown tool",
      notes({ tools: { override: { nope: { title: "x" } } } }),
      'skills[0].tools.override: skill "notes" has no tool "nope"',
    ],
    [
      "a rename to an invalid name",
      notes({ tools: { rename: { read_note: "read.note" } } }),
      "skills[0].tools.rename.read_note: must match the pattern",
    ],
    [
      "a version the package does not satisfy",
      notes({ version: ">=0.2.0" }),
      "asks for fixture-skill-notebook@>=0.2.0 but 0.1.0 is installed",
    ],
  ])("refuses %s with a message naming it", async (_case, entry, message) => {
    await expect(async () => buildRegistry(manifestOf({ skills: [entry] }))).rejects.toThrow(message);
  });

  it("keeps serving when a skill fails to import: its tools are left out and the failure is named", async () => {
    const registry = await buildRegistry(manifestOf({ skills: [{ path: BROKEN_IMPORT }, notes()] }));
    expect(registry.failures).toEqual([
      {
        source: "skills[0] (fixture-skill-broken-import)",
        message: expect.stringContaining("this skill cannot be imported"),
      },
    ]);
    expect(registry.tools.size).toBe(3);
  });
});

describe("the lock", () => {
  it("builds a registry from a current lock without importing, then loads on the first call", async () => {
    const manifest = manifestOf({ skills: [notes(), { path: ECHO }] });
    const lock = lockFor(manifest, await buildRegistry(manifest));
    const registry = await buildRegistry(manifest, { lock });
    expect(registry.fromLock).toBe(true);
    expect(registry.instances.every((i) => !i.loaded)).toBe(true);
    expect(registry.listings).toEqual((await buildRegistry(manifest)).listings);
    const { pipeline } = pipelineOf(registry);
    const outcome = await pipeline.call("echo.echo", { text: "lazy" });
    expect(outcome.envelope).toMatchObject({ ok: true, data: { echoed: "lazy" } });
    expect(registry.instances[1]?.loaded).toBe(true);
    expect(registry.instances[0]?.loaded).toBe(false);
  });

  it("answers UNAVAILABLE with the cause for the tools of a locked skill that fails to import; others work", async () => {
    const manifest = manifestOf({ skills: [{ path: BROKEN_IMPORT, mcp: "broken" }, { path: ECHO }] });
    const echoLock = lockFor(
      manifestOf({ skills: [{ path: ECHO }] }),
      await buildRegistry(manifestOf({ skills: [{ path: ECHO }] })),
    );
    const echoLocked = echoLock.instances[0];
    if (echoLocked === undefined) throw new Error("no lock");
    const brokenSurface = { ...echoLocked.skill, name: "broken", tools: echoLocked.skill.tools.slice(0, 1) };
    const lock: LockFile = {
      lockfileVersion: 1,
      instances: [
        {
          entry: 0,
          source: BROKEN_IMPORT,
          package: "fixture-skill-broken-import",
          version: "0.0.1",
          hash: hashOf(brokenSurface),
          skill: brokenSurface,
        },
        { ...echoLocked, entry: 1 },
      ],
    };
    const registry = await buildRegistry(manifest, { lock });
    const { pipeline } = pipelineOf(registry);
    const broken = await pipeline.call("broken.echo", { text: "x" });
    expect(broken.envelope).toMatchObject({ ok: false, error: { code: "UNAVAILABLE" } });
    expect(broken.envelope.message).toContain("this skill cannot be imported");
    expect((await pipeline.call("echo.echo", { text: "fine" })).envelope.ok).toBe(true);
  });

  it("says exactly why a lock is stale", () => {
    const surface = surfaceOf({
      name: "s",
      version: undefined,
      description: undefined,
      configSchema: undefined,
      credentials: {},
      tools: [],
    });
    const lock: LockFile = {
      lockfileVersion: 1,
      instances: [
        { entry: 0, source: "a", package: "a", version: "1.0.0", hash: hashOf(surface), skill: surface },
        { entry: 2, source: "c", package: "c", version: "1.0.0", hash: hashOf(surface), skill: surface },
      ],
    };
    expect(
      lockProblems(lock, [
        { entry: 0, source: "a", package: "a", version: "1.1.0" },
        { entry: 1, source: "b", package: "b", version: "1.0.0" },
      ]),
    ).toEqual([
      "skills[0] (a) was locked at 1.0.0 and 1.1.0 is installed",
      "skills[1] (b) is not in the lock",
      "skills[2] (c) is locked but no longer enabled in the manifest",
    ]);
  });

  it("stringifies with sorted keys, whatever order they were built in", () => {
    const a = stringifyLock({ lockfileVersion: 1, instances: [] });
    expect(a).toBe('{\n  "instances": [],\n  "lockfileVersion": 1\n}\n');
  });

  it("createHost with lock 'frozen' refuses a missing lock", async () => {
    await expect(
      createHost({ manifest: manifestOf({ skills: [notes()] }), logger: silentLogger(), lock: "frozen" }),
    ).rejects.toMatchObject({
      code: "LOCK_STALE",
      message: expect.stringContaining("there is no skills.lock.json beside skills.manifest.json"),
    });
  });
});
