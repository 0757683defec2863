import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor } from "../src/redaction/redactor.js";

// Property: a registered secret never survives value() in any form it can leave in, at any offset inside any text:
// no run of RUN secret characters (or bytes, for base64 and hex) can be decoded back from what comes out; cut at
// the end, no run of EDGE. The decoders below are independent of the redactor's.
const RUN = 12;
const EDGE = 8;

type Encoding = "plain" | "base64" | "base64url" | "hex" | "HEX" | "uri" | "form" | "html";
const ENCODINGS: Encoding[] = ["plain", "base64", "base64url", "hex", "HEX", "uri", "form", "html"];

/** Secrets as credentials look: printable, spaces allowed, no line breaks; ASCII tokens and any letters. */
const secretArb = fc.oneof(
  fc.string({
    unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."),
    minLength: 16,
    maxLength: 64,
  }),
  fc.string({ unit: "grapheme-ascii", minLength: 16, maxLength: 48 }).filter((s) => /^[ -~]+$/.test(s)),
  fc.string({ unit: "grapheme", minLength: 16, maxLength: 40 }).filter((s) => !/[\p{C}\n\r\t]/u.test(s)),
);
/** Surrounding text: anything, escapes, line breaks and control characters included. */
const textArb = fc.string({ unit: "binary", maxLength: 40 });

function encode(secret: string, how: Encoding, lead: Uint8Array, trail: Uint8Array, html: number[]): string {
  const bytes = Buffer.concat([lead, Buffer.from(secret), trail]);
  switch (how) {
    case "plain":
      return secret;
    case "base64":
      return bytes.toString("base64");
    case "base64url":
      return bytes.toString("base64url");
    case "hex":
      return bytes.toString("hex");
    case "HEX":
      return bytes.toString("hex").toUpperCase();
    case "uri":
      return encodeURIComponent(secret);
    case "form":
      return new URLSearchParams({ q: secret }).toString().slice(2);
    case "html":
      return [...secret]
        .map((c, i) => {
          const cp = c.codePointAt(0) ?? 0;
          const style = html[i % html.length] ?? 0;
          const named = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" }[c];
          return style === 0 ? (named ?? c) : style === 1 ? `&#${cp};` : `&#x${cp.toString(16)};`;
        })
        .join("");
  }
}

/** What a reader recovers from the output for this encoding: strings for text encodings, bytes otherwise. */
function recover(out: string, how: Encoding): string | Buffer[] {
  const joined = out.replace(/\r?\n[ \t]*/g, "");
  if (how === "base64" || how === "base64url") {
    return (joined.match(/[A-Za-z0-9+/_-]+/g) ?? []).flatMap((word) =>
      [0, 1, 2, 3].map((o) => Buffer.from(word.slice(o), how)),
    );
  }
  if (how === "hex" || how === "HEX") {
    return (joined.match(/[0-9A-Fa-f]+/g) ?? []).flatMap((word) =>
      [0, 1].map((o) => Buffer.from(word.slice(o), "hex")),
    );
  }
  if (how === "uri" || how === "form") {
    const spaced = how === "form" ? joined.replaceAll("+", " ") : joined;
    return spaced.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return "\uFFFD";
      }
    });
  }
  if (how === "html") {
    return joined.replace(/&(#[xX][0-9A-Fa-f]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, body: string) => {
      if (body.startsWith("#x") || body.startsWith("#X"))
        return String.fromCodePoint(Number.parseInt(body.slice(2), 16));
      if (body.startsWith("#")) return String.fromCodePoint(Number.parseInt(body.slice(1), 10));
      return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[body] ?? "";
    });
  }
  return joined;
}

/** A run of `length` consecutive characters (or bytes) of the secret found in what was recovered. */
function survivor(recovered: string | Buffer[], secret: string, length: number): string | undefined {
  if (typeof recovered === "string") {
    const chars = [...secret];
    for (let i = 0; i + length <= chars.length; i++) {
      const piece = chars.slice(i, i + length).join("");
      if (recovered.includes(piece)) return piece;
    }
    return undefined;
  }
  const bytes = Buffer.from(secret);
  for (let i = 0; i + length <= bytes.length; i++) {
    const piece = bytes.subarray(i, i + length);
    if (recovered.some((b) => b.includes(piece))) return piece.toString("hex");
  }
  return undefined;
}

const caseArb = fc.record({
  secret: secretArb,
  how: fc.constantFrom(...ENCODINGS),
  before: textArb,
  after: textArb,
  lead: fc.uint8Array({ maxLength: 5 }),
  trail: fc.uint8Array({ maxLength: 5 }),
  html: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 4 }),
  at: fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10_000), // where to break or cut, as a fraction
  breakWith: fc.constantFrom("\n", "\r\n", "\n    ", "\r\n\t"),
  // What ends a text after the secret cut off: nothing, or the line breaks a log line or a file ends with.
  finalBreaks: fc.constantFrom("", "", "\n", "\n\n"),
});

describe("a registered secret never survives value()", () => {
  it("in any form, at any offset inside any text", () => {
    fc.assert(
      fc.property(caseArb, ({ secret, how, before, after, lead, trail, html }) => {
        const redactor = createRedactor();
        redactor.add([secret]);
        const out = redactor.value({ text: `${before}${encode(secret, how, lead, trail, html)}${after}` }).text;
        expect(survivor(recover(out, how), secret, RUN)).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });

  it("split across a line at any point of its encoding", () => {
    fc.assert(
      fc.property(caseArb, ({ secret, how, before, after, lead, trail, html, at, breakWith }) => {
        const redactor = createRedactor();
        redactor.add([secret]);
        const encoded = encode(secret, how, lead, trail, html);
        const cut = Math.floor(at * encoded.length);
        const text = `${before}${encoded.slice(0, cut)}${breakWith}${encoded.slice(cut)}${after}`;
        const out = redactor.value([text])[0] as string;
        expect(survivor(recover(out, how), secret, RUN)).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });

  it("cut at any point at the end of a text, the line breaks it ends with or not", () => {
    fc.assert(
      fc.property(caseArb, ({ secret, how, before, lead, html, at, finalBreaks }) => {
        const redactor = createRedactor();
        redactor.add([secret]);
        const encoded = encode(secret, how, lead, new Uint8Array(), html);
        const cut = encoded.slice(0, Math.floor(at * encoded.length));
        const text = `${before}${cut}`;
        // The edge rule is about the secret's first characters cut off at the end. A run of the secret that the text
        // holds without them (the text before, with a cut too short to count) is there by chance, not a cut secret:
        // fast-check's strings hold words such as "define" that a generated secret may also hold (seed 1612885314).
        fc.pre(survivor(recover(cut.length < EDGE ? text : before, how), secret, EDGE) === undefined);
        const written = redactor.string(`${text}${finalBreaks}`);
        expect(written.endsWith(finalBreaks)).toBe(true);
        // An escape cut in half at the very end (`%2`, `&#3`) is not a character a reader can recover.
        const out = written
          .slice(0, written.length - finalBreaks.length)
          .replace(/(?:%[0-9A-Fa-f]?|&#?[xX]?[0-9A-Za-z]*)$/, "");
        expect(survivor(recover(out, how), secret, EDGE)).toBeUndefined();
      }),
      { numRuns: 800 },
    );
  });
});

describe("value() copies any graph of objects as it is", () => {
  // Nodes (objects and arrays) pointing at each other at random: shared, cyclic, more than the copy's first list of
  // sixteen holds. Each source object must have exactly one copy, wherever it is reached from.
  const graphArb = fc.integer({ min: 1, max: 60 }).chain((size) =>
    fc.record({
      arrays: fc.array(fc.boolean(), { minLength: size, maxLength: size }),
      edges: fc.array(fc.array(fc.nat(size - 1), { maxLength: 4 }), { minLength: size, maxLength: size }),
      texts: fc.array(fc.constantFrom("plain", "secret", "cut"), { minLength: size, maxLength: size }),
    }),
  );
  const secret = "sk-live-0123456789abcdefghij";

  it("keeps every shared object and cycle, and redacts every string", () => {
    fc.assert(
      fc.property(graphArb, ({ arrays, edges, texts }) => {
        const text = { plain: "nothing here", secret: `token ${secret}`, cut: `cut ${secret.slice(0, 10)}` };
        const nodes = arrays.map((isArray) => (isArray ? [] : {})) as (unknown[] | Record<string, unknown>)[];
        nodes.forEach((node, i) => {
          const children = [...(edges[i] ?? []).map((j) => nodes[j]), text[texts[i] ?? "plain"]];
          children.forEach((child, k) => {
            if (Array.isArray(node)) node.push(child);
            else node[`k${k}`] = child;
          });
        });
        const redactor = createRedactor();
        redactor.add([secret]);
        const copy = redactor.value(nodes[0]);
        // Walk source and copy together: one copy per source object, no copy shared by two sources, no source kept.
        const copyOf = new Map<object, object>();
        const sourceOf = new Map<object, object>();
        const walk = (source: unknown, made: unknown): void => {
          if (typeof source === "string") {
            expect(made).toBe(source.replace(secret, "[REDACTED]").replace(secret.slice(0, 10), "[REDACTED]"));
            return;
          }
          const from = source as object;
          const to = made as object;
          expect(to).not.toBe(from);
          if (copyOf.has(from)) {
            expect(to).toBe(copyOf.get(from));
            return;
          }
          expect(sourceOf.has(to)).toBe(false);
          copyOf.set(from, to);
          sourceOf.set(to, from);
          expect(Array.isArray(to)).toBe(Array.isArray(from));
          expect(Object.keys(to)).toEqual(Object.keys(from));
          for (const key of Object.keys(from)) {
            walk((from as Record<string, unknown>)[key], (to as Record<string, unknown>)[key]);
          }
        };
        walk(nodes[0], copy);
      }),
      { numRuns: 300 },
    );
  });
});
