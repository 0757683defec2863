// Property: however a client's bytes arrive, the stdio line reader reports each line as it was sent, and for a line
// over the limit reports its size and the id a JSON parser reads from it: the top-level "id" when it is a string or
// a finite number, wherever it stands, whatever nested "id" keys, escapes, quotes, backslashes, multi-byte
// characters and whitespace surround it. The expected id comes from JSON.parse, not from the scanner's rules.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { OversizeLine } from "../src/transports/stdio/line-reader.js";
import { createLineReader } from "../src/transports/stdio/line-reader.js";

/** Strings a scanner can trip on: quotes, backslashes, escapes, "id" itself, braces, any character. */
const trickyString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 8 }),
  fc
    .array(fc.constantFrom('"', "\\", '\\"', "id", '"id"', ":", ",", "{", "}", "[", "]", "é", "\u{1F600}", "\n", "x"), {
      maxLength: 6,
    })
    .map((parts) => parts.join("")),
);
/** Ids as sent: valid (short strings, finite numbers) and not (null, objects, arrays, booleans). */
const idArb = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  trickyString,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant(null),
  fc.boolean(),
  fc.constant({ id: 1 }),
  fc.constant(["id", 2]),
);
const { value: valueArb } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    trickyString,
    fc.integer(),
    fc.constant(null),
    fc.boolean(),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.oneof(trickyString, fc.constant("id")), tie("value"), { maxKeys: 3 }),
  ),
}));
/**
 * A message: members before and after the top-level id (or no id at all), each possibly holding ids of its own, and
 * now and then a second top-level id after them (a parser keeps the last).
 */
const messageArb = fc.record({
  before: fc.dictionary(trickyString, valueArb, { maxKeys: 3 }),
  id: fc.option(idArb, { nil: undefined, freq: 5 }),
  after: fc.dictionary(trickyString, valueArb, { maxKeys: 3 }),
  secondId: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, idArb),
  /** Whitespace between tokens (JSON allows spaces, tabs and carriage returns there; a newline would end the line). */
  spacing: fc.array(fc.constantFrom("", "", "", " ", "\t", "  ", "\r"), { minLength: 1, maxLength: 8 }),
});

/** A message's members in order: the id between those before and after it, and the second id last. */
function membersOf(m: { before: object; id: unknown; after: object; secondId: unknown }): [string, unknown][] {
  const members: [string, unknown][] = [];
  for (const [k, v] of Object.entries(m.before)) if (k !== "id") members.push([k, v]);
  if (m.id !== undefined) members.push(["id", m.id]);
  for (const [k, v] of Object.entries(m.after)) if (k !== "id") members.push([k, v]);
  if (m.secondId !== undefined) members.push(["id", m.secondId]);
  return members;
}

/** The members as a JSON object's text, with whitespace from `spacing` between tokens, never at either end. */
function textOf(members: [string, unknown][], spacing: string[]): string {
  let n = 0;
  const space = () => spacing[n++ % spacing.length] as string;
  const object = (entries: [string, unknown][]) =>
    `{${space()}${entries.map(([k, m]) => `${JSON.stringify(k)}${space()}:${space()}${write(m)}`).join(`${space()},${space()}`)}${space()}}`;
  const write = (v: unknown): string => {
    if (Array.isArray(v)) return `[${space()}${v.map(write).join(`${space()},${space()}`)}${space()}]`;
    if (v !== null && typeof v === "object") return object(Object.entries(v));
    return JSON.stringify(v);
  };
  return object(members);
}

/** What a reader must report for a line: the line itself within the limit, else its size and its parsed id. */
function expected(line: string, maxBytes: number): string | OversizeLine {
  const bytes = Buffer.byteLength(line);
  if (bytes <= maxBytes) return line;
  const { id } = JSON.parse(line) as { id?: unknown };
  const valid = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  return { bytes, id: valid ? id : undefined };
}

describe("the stdio line reader on generated messages, cut anywhere", () => {
  it("reports every line as sent, and a long line's size and JSON.parse's id", () => {
    fc.assert(
      fc.property(
        fc.array(messageArb, { minLength: 1, maxLength: 5 }),
        fc.nat({ max: 120 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (messages, maxBytes, cuts) => {
          const lines = messages.map((m) => textOf(membersOf(m), m.spacing));
          const bytes = Buffer.from(`${lines.join("\n")}\n`);
          const events: (string | OversizeLine)[] = [];
          const reader = createLineReader({
            maxBytes,
            onLine: (line) => events.push(line),
            onOversize: (line) => events.push(line),
          });
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          let from = 0;
          for (const cut of [...at, bytes.length]) {
            reader.push(bytes.subarray(from, cut));
            from = cut;
          }
          expect(events).toEqual(lines.map((line) => expected(line, maxBytes)));
        },
      ),
      { numRuns: 400 },
    );
  });
});
