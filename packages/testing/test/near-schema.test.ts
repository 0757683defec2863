import { compileSchema } from "@skillport/host/surface";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { nearSchema } from "../src/near-schema.js";

describe("nearSchema", () => {
  const schema = z.toJSONSchema(
    z
      .object({
        q: z.string().min(2).max(5),
        n: z.number().int().min(1).max(3).default(1),
        day: z.iso.date().optional(),
        tags: z
          .array(z.enum(["a", "b"]))
          .max(2)
          .optional(),
      })
      .strict(),
    { io: "input" },
  ) as Record<string, unknown>;
  const samples = fc.sample(nearSchema(schema), { numRuns: 1000, seed: 7 });
  const check = compileSchema(schema);

  it("yields plain JSON values, valid and invalid alike", () => {
    for (const s of samples) expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    const valid = samples.filter((s) => check(s).valid).length;
    expect(valid).toBeGreaterThan(100);
    expect(valid).toBeLessThan(900);
  });

  it("probes each bound and each kind of mistake", () => {
    const objects = samples.filter((s): s is Record<string, unknown> => typeof s === "object" && s !== null);
    const lengths = new Set(objects.map((o) => (typeof o.q === "string" ? o.q.length : -1)));
    for (const n of [1, 2, 5, 6]) expect(lengths.has(n)).toBe(true);
    const numbers = new Set(objects.map((o) => o.n));
    for (const n of [0, 1, 3, 4, 1.5]) expect(numbers.has(n)).toBe(true);
    expect(objects.some((o) => !("q" in o))).toBe(true);
    expect(objects.some((o) => Object.keys(o).some((k) => !["q", "n", "day", "tags"].includes(k)))).toBe(true);
    expect(objects.some((o) => typeof o.day === "string" && !check({ q: "abc", day: o.day }).valid)).toBe(true);
    expect(objects.some((o) => typeof o.day === "string" && check({ q: "abc", day: o.day }).valid)).toBe(true);
  });

  it("hands out values as JSON.parse would, holes, -0 and a __proto__ key included", () => {
    const values = fc.sample(nearSchema({}), { numRuns: 300, seed: 11 });
    for (const v of values) expect(v).toEqual(JSON.parse(JSON.stringify(v)));
    const odd = JSON.parse('{"__proto__":1}') as Record<string, unknown>;
    odd.x = [-0, undefined, Number.NaN];
    odd.gone = undefined;
    const [first] = fc.sample(nearSchema({ const: odd }), { numRuns: 1, seed: 1 });
    expect(first).toStrictEqual(JSON.parse('{"__proto__":1,"x":[0,null,null]}'));
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
  });

  it("probes a bound of millions of characters quickly", () => {
    const long = { type: "string", maxLength: 8_000_000 } as Record<string, unknown>;
    const started = performance.now();
    const lengths = new Set(fc.sample(nearSchema(long), { numRuns: 60, seed: 3 }).map((s) => String(s).length));
    // Drawn a character at a time, each such string took most of a minute.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(lengths.has(8_000_001)).toBe(true);
    expect(lengths.has(8_000_000)).toBe(true);
  });
});
