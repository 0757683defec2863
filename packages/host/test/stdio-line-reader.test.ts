import { describe, expect, it } from "vitest";
import type { OversizeLine } from "../src/transports/stdio/line-reader.js";
import { createLineReader } from "../src/transports/stdio/line-reader.js";

/** Feeds `text` in pieces of `size` bytes and collects what the reader reports. */
function read(text: string, maxBytes: number, size: number) {
  const events: (string | OversizeLine)[] = [];
  const reader = createLineReader({
    maxBytes,
    onLine: (line) => events.push(line),
    onOversize: (line) => events.push(line),
  });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) reader.push(bytes.subarray(i, i + size));
  return events;
}

const SIZES = [1, 2, 3, 5, 7, 64, 100_000];

describe("createLineReader", () => {
  it.each(SIZES)("splits lines however the bytes arrive (pieces of %i), dropping a trailing \\r", (size) => {
    const text = '{"a":1}\n{"b":"é\\n"}\r\n\n{"c":[1,2]}\n{"incomplete"';
    expect(read(text, 1000, size)).toEqual(['{"a":1}', '{"b":"é\\n"}', "", '{"c":[1,2]}']);
  });

  it.each(SIZES)("reports a line over the limit with its size and id, then goes on (pieces of %i)", (size) => {
    const big = "x".repeat(300);
    const lines = [
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { text: big } }),
      JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { text: big, id: 99 }, id: "last" }),
      `{"jsonrpc":"2.0","params":{"t":"${big}","q":"\\"id\\": 7"},"i\\u0064" : -1.5e3 }`,
      JSON.stringify({ jsonrpc: "2.0", params: { nested: { id: 3 }, text: big } }),
      JSON.stringify({ id: null, text: big }),
      JSON.stringify({ id: { no: 1 }, text: big }),
      JSON.stringify([{ id: 1, text: big }]),
      `{"id":"${"z".repeat(400)}","text":"${big}"}`,
      // Two backslashes before the quote: an escaped backslash, then the string's end.
      `{"t":"${big}\\\\","id":8}`,
      '{"a":1}',
    ];
    const events = read(`${lines.join("\n")}\n`, 200, size);
    expect(events).toEqual([
      { bytes: Buffer.byteLength(lines[0] as string), id: 5 },
      { bytes: Buffer.byteLength(lines[1] as string), id: "last" },
      { bytes: Buffer.byteLength(lines[2] as string), id: -1500 },
      { bytes: Buffer.byteLength(lines[3] as string), id: undefined },
      { bytes: Buffer.byteLength(lines[4] as string), id: undefined },
      { bytes: Buffer.byteLength(lines[5] as string), id: undefined },
      { bytes: Buffer.byteLength(lines[6] as string), id: undefined },
      { bytes: Buffer.byteLength(lines[7] as string), id: undefined },
      { bytes: Buffer.byteLength(lines[8] as string), id: 8 },
      '{"a":1}',
    ]);
  });

  it("reports the last top-level id of a message that gives it twice, as a parser reads it", () => {
    const long = `"${"i".repeat(300)}"`;
    const lines = ['{"id":1,"id":2}', '{"id":"a","id":null}', '{"id":1,"id":{"n":2}}', `{"id":1,"id":${long}}`];
    const events = read(`${lines.join("\n")}\n`, 5, 3);
    expect(events.map((e) => (e as OversizeLine).id)).toEqual([2, undefined, undefined, undefined]);
  });

  it("accepts a line of exactly the limit", () => {
    expect(read(`${"a".repeat(10)}\n${"b".repeat(11)}\n`, 10, 4)).toEqual([
      "a".repeat(10),
      { bytes: 11, id: undefined },
    ]);
  });

  it("scans a long string full of escapes in one pass", () => {
    // Every byte pair is an escape; the closing quote is at the very end. A scanner that looked for the quote
    // again after each escape would take quadratic time here.
    const body = '\\"'.repeat(2_000_000);
    const events = read(`{"text":"${body}","id":42}\n`, 1000, 1 << 16);
    expect(events).toEqual([{ bytes: body.length + 19, id: 42 }]);
  });
});
