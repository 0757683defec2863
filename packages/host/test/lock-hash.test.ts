import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SkillSurface } from "../src/entries/surface.js";
import { hashOf, matchesHash, stringifyLock } from "../src/registry/lock.js";

const surface = {
  name: "demo",
  version: "1.0.0",
  tools: [
    {
      name: "find",
      title: "Find",
      description: "Find things.",
      risk: "read_only",
      inputSchema: { type: "object", properties: { q: { type: "string", maxLength: 10 } }, required: ["q"] },
    },
  ],
} as unknown as SkillSurface;

/** What a host reads back: the lock as written, parsed. */
const readBack = (value: unknown) =>
  (JSON.parse(stringifyLock({ lockfileVersion: 1, instances: [value as never] })) as { instances: unknown[] })
    .instances[0] as SkillSurface;

describe("matchesHash, the lock's check of each locked surface at start-up", () => {
  it("accepts a surface as the lock wrote it", () => {
    expect(matchesHash(readBack(surface), hashOf(surface))).toBe(true);
  });

  it("accepts the same surface with its keys in any order, as hashOf does", () => {
    const reversed = JSON.parse(JSON.stringify(surface, (_k, v) => (isRecord(v) ? reverse(v) : v))) as SkillSurface;
    expect(JSON.stringify(reversed)).not.toBe(JSON.stringify(readBack(surface)));
    expect(matchesHash(reversed, hashOf(surface))).toBe(true);
  });

  it("refuses a surface edited after locking, a missing hash and a hash that is not a string", () => {
    const edited = structuredClone(readBack(surface)) as unknown as { tools: { risk: string }[] };
    (edited.tools[0] as { risk: string }).risk = "dangerous";
    expect(matchesHash(edited as unknown as SkillSurface, hashOf(surface))).toBe(false);
    expect(matchesHash(readBack(surface), undefined)).toBe(false);
    expect(matchesHash(readBack(surface), 42)).toBe(false);
  });

  it("answers exactly what comparing with hashOf answers, for any JSON value and key order", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), fc.boolean(), (a, b, reorder) => {
        const value = (
          reorder ? JSON.parse(JSON.stringify(a, (_k, v) => (isRecord(v) ? reverse(v) : v))) : a
        ) as SkillSurface;
        for (const hash of [hashOf(a as unknown as SkillSurface), hashOf(b as unknown as SkillSurface)]) {
          expect(matchesHash(value, hash)).toBe(hashOf(value) === hash);
        }
      }),
    );
  });
});

// --- internal ---

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function reverse(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).reverse());
}
