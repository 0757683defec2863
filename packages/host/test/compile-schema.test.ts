import { describe, expect, it } from "vitest";
import { compileSchema } from "../src/schema/compile-schema.js";

describe("compileSchema", () => {
  const check = compileSchema({
    type: "object",
    properties: { n: { type: "integer", maximum: 3, default: 1 }, d: { type: "string", format: "date" } },
    additionalProperties: false,
  });

  it("fills defaults into a copy, never into the input", () => {
    const input = {};
    expect(check(input)).toEqual({ valid: true, value: { n: 1 }, problems: [] });
    expect(input).toEqual({});
  });

  it("names the first problem by its JSON pointer, with the host's formats, as call validation does", () => {
    expect(check({ n: 4, d: "2027-02-30", x: 1 }).problems).toEqual([
      "/x is not a known field; allowed fields are n, d",
    ]);
    expect(check({ n: 4, d: "2027-02-30" }).problems).toEqual(["/n must be <= 3, got number 4"]);
    expect(check({ d: "2027-02-30" }).problems).toEqual([
      '/d must be a valid date (a real calendar date, YYYY-MM-DD), got "2027-02-30"',
    ]);
  });

  it("counts a string's length in code points, as the schema does", () => {
    const text = compileSchema({ type: "string", maxLength: 3 });
    expect(text("a😀b😀").problems).toEqual(["/ must have at most 3 characters, got 4"]);
    expect(text("\uD800x\uDC00y").problems).toEqual(["/ must have at most 3 characters, got 4"]);
    expect(text("x".repeat(8_000_000)).problems).toEqual(["/ must have at most 3 characters, got 8000000"]);
  });
});
