import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapePointer, resolveRef } from "../src/json-pointer.js";
import type { JsonSchema } from "../src/schema.js";

/** A `$ref` to the value at `keys`, as a schema writes one: a JSON Pointer, percent-encoded as a URI fragment. */
const refTo = (keys: string[]) => `#${keys.map((key) => `/${encodeURIComponent(escapePointer(key))}`).join("")}`;

describe("resolveRef", () => {
  it("finds the schema at a local reference, with escaped and percent-encoded names", () => {
    const target = { type: "string" };
    const root = { $defs: { "a/b~c d": target } } as JsonSchema;
    expect(resolveRef(root, "#/$defs/a~1b~0c%20d")).toBe(target);
    expect(resolveRef(root, "#")).toBe(root);
  });

  it("answers undefined for a reference to nowhere, without throwing", () => {
    const root = { $defs: { a: { type: "string" } } } as JsonSchema;
    for (const ref of ["#/$defs/b", "#/$defs/a/type", "other.json#/a", "#/$defs/%E0%A4%A", "#/$defs/%", "#/%ZZ"]) {
      expect(resolveRef(root, ref), ref).toBeUndefined();
    }
  });

  it("reads only the schema's own names, never its prototype's", () => {
    const root = { $defs: {} } as JsonSchema;
    for (const ref of ["#/__proto__", "#/$defs/__proto__", "#/constructor/prototype", "#/$defs/toString"]) {
      expect(resolveRef(root, ref), ref).toBeUndefined();
    }
  });

  it("finds whatever a pointer written from the keys names, for any keys", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", maxLength: 6 }), { maxLength: 4 }), (keys) => {
        const target = { type: "integer" };
        let root: Record<string, unknown> = target;
        for (const key of [...keys].reverse()) root = Object.fromEntries([[key, root]]);
        // A lone surrogate cannot be percent-encoded (encodeURIComponent throws): no schema can name it in a $ref.
        let ref: string;
        try {
          ref = refTo(keys);
        } catch {
          return;
        }
        expect(resolveRef(root as JsonSchema, ref)).toBe(target);
      }),
      { numRuns: 500 },
    );
  });
});
