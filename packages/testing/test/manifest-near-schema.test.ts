// Property: a manifest, however wrong, gets a structured answer. Manifests are generated near the host's own
// manifest.schema.json (nearSchema: fields at and past every bound, missing and unknown fields, wrong types, every
// kind of entry) and written to a real file; loading one either builds it or throws the host's MANIFEST_INVALID
// error listing each problem at its place, never another error, and checking the same JSON in memory answers alike.
// It lives here because nearSchema does (the host's tests cannot depend on this package).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { HostError, loadManifest, parseManifest } from "@skillport/host";
import manifestSchema from "@skillport/host/manifest.schema.json" with { type: "json" };
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nearSchema } from "../src/near-schema.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillport-near-manifest-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Manifests as most are written: named skills by path, now and then two under one name (a problem of its own). */
const plainManifest = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 12 }),
    skills: fc.array(
      fc.record(
        {
          path: fc.constantFrom("./a", "./b", "../c"),
          mcp: fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/),
          enabled: fc.boolean(),
        },
        { requiredKeys: ["path", "mcp"] },
      ),
      { maxLength: 4 },
    ),
  },
  { requiredKeys: ["skills"] },
);

/** The problems `check` reports: none when the manifest is built; anything but the host's error is rethrown. */
function outcomeOf(check: () => unknown): readonly string[] {
  try {
    check();
    return [];
  } catch (error) {
    if (error instanceof HostError) return error.problems;
    throw error;
  }
}

describe("manifests near the schema", () => {
  it("are built, or refused with every problem at its place, and read without throwing", async () => {
    let built = 0;
    let refused = 0;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(nearSchema(manifestSchema as Record<string, unknown>), plainManifest), async (json) => {
        const file = path.join(dir, `m${n++}.manifest.json`);
        await writeFile(file, JSON.stringify(json));
        const inMemory = outcomeOf(() => parseManifest(json, file));
        try {
          await loadManifest(file);
          built++;
          expect(inMemory).toEqual([]);
        } catch (error) {
          if (!(error instanceof HostError)) throw error;
          refused++;
          expect(error.code).toBe("MANIFEST_INVALID");
          expect(error.problems.length).toBeGreaterThan(0);
          // Each problem names its place first: `skills[1].mcp: …`, `http.port: …`, `(root): …`.
          for (const problem of error.problems) expect(problem).toMatch(/^[^\s:]+(\s[^:]*)?: \S/);
          expect(error.problems).toEqual(inMemory);
        }
        await rm(file);
      }),
      { numRuns: 300 },
    );
    expect(built).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(10);
  });
});
