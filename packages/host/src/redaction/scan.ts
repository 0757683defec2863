// The scanner: finds the runs of a text that are a known secret in one of its forms, whole or in pieces, by looking
// up hashed slices of the text (decoded first when it holds line breaks or escapes).
import type { SecretFinding } from "@skillport/core";
import type { Decoded } from "./decode.js";
import { decode, endIn, escapesIn, HTML_ESCAPE, NEEDS_DECODING, startIn } from "./decode.js";
import type { Form, FormText, Matcher } from "./secret-forms.js";
import { EDGE_SLACK, FILTER_MASK, hashAt, SEED, STEP } from "./secret-forms.js";

/** A secret run found in a text: where it is in the text as written, and the form it was in. */
export interface Found {
  start: number;
  end: number;
  finding: SecretFinding;
}

/**
 * Every secret run in `input` (positions in `input`), or the first only. Decodes the text first when it holds
 * line breaks or escapes, then looks up SEED-character slices: every STEP characters (a run of RUN_BYTES
 * characters holds at least one such slice) and at every position near the edges.
 */
export function scan(input: string, matcher: Matcher, first: boolean, startAt = lookFrom(input, matcher)): Found[] {
  if (startAt === -1) return [];
  const decoded = startAt === 0 && NEEDS_DECODING.test(input) ? decode(input, matcher.mode) : undefined;
  const found = scanView(input, decoded, matcher, first, startAt);
  // A secret may itself hold what reads as an escape (`%00`, `&amp;`, `\n`): look at the text as written too.
  if (decoded !== undefined && !(first && found.length > 0)) found.push(...scanView(input, undefined, matcher, first));
  return found;
}

/**
 * Where {@link scan} starts to look at a text: -1 when it need not (shorter than any secret, or nothing to decode and
 * no slice passing the filter, as for most texts), else 0 or, for a text with nothing to decode, the first slice
 * that passes.
 */
export function lookFrom(input: string, matcher: Matcher): number {
  if (input.length < matcher.minLength) return -1;
  if (NEEDS_DECODING.test(input) || matcher.whole !== undefined) return 0;
  // The walk without its set-up (the finding list, the end's check for an escape cut in half): most texts never get
  // past it.
  return nextPassing(input, matcher.filter, 0, tailOf(input.length));
}

/**
 * From `startAt` (what {@link lookFrom} answered, not -1): for a text with nothing to decode, the first position of
 * the walk whose whole slice hashes like one of the forms' slices, or -1 when there is none; else 0. A slice that
 * only shares its first four characters with a secret's (a word sharing a token's prefix, in an audit line: a tool
 * named like the token) is passed over here, as the scan would pass it, without the scan's set-up.
 */
export function confirmedFrom(input: string, matcher: Matcher, startAt: number): number {
  if (startAt === 0 && (matcher.whole !== undefined || NEEDS_DECODING.test(input))) return 0;
  const { filter, slices } = matcher;
  const tail = tailOf(input.length);
  for (let p = startAt; p !== -1; p = nextPassing(input, filter, nextPosition(p, tail), tail))
    if (slices.has(hashAt(input, p))) return p;
  return -1;
}

/**
 * {@link scan} over one view of the input: decoded (escapes and line breaks undone), or as written; from position
 * `startAt` of the scan's walk, when those before it are known not to pass the filter.
 */
function scanView(input: string, decoded: Decoded | undefined, matcher: Matcher, first: boolean, startAt = 0): Found[] {
  const found: Found[] = [];
  const t = decoded?.text ?? input;
  const n = t.length;
  if (matcher.whole !== undefined) {
    matcher.whole.lastIndex = 0;
    for (let m = matcher.whole.exec(t); m !== null; m = matcher.whole.exec(t)) {
      found.push(foundAt(input, t, decoded, m.index, m.index + m[0].length, matcher.wholeForms.get(m[0])));
      if (first) return found;
    }
  }
  if (n < SEED) return found;

  const textEnd = endBeforePartialEscape(input, decoded, n);
  const { filter, slices } = matcher;

  // Returns the end of the longest run accepted from the slice at p, or -1. Made on the first filter hit only.
  const makeProbe =
    () =>
    (p: number, hash: number): number => {
      const candidates = slices.get(hash);
      if (candidates === undefined) return -1;
      let reach = -1;
      let best: { start: number; end: number; form: FormText } | undefined;
      for (const { form, at } of candidates) {
        const f = form.text;
        let k = 0;
        while (k < SEED && t.charCodeAt(p + k) === f.charCodeAt(at + k)) k++;
        if (k < SEED) continue;
        let start = p;
        let from = at;
        while (start > 0 && from > 0 && t.charCodeAt(start - 1) === f.charCodeAt(from - 1)) {
          start--;
          from--;
        }
        let end = p + SEED;
        let to = at + SEED;
        while (end < n && to < f.length && t.charCodeAt(end) === f.charCodeAt(to)) {
          end++;
          to++;
        }
        const length = end - start;
        // A prefix of the form cut off at the end of the text: in the middle of an escape (before textEnd), or at the
        // very end when what looks like an escape cut in half is the secret's own text (a backslash, say); or a
        // suffix of the form at the start.
        const cutBefore = (limit: number) => {
          const cutAt = Math.min(end, limit);
          return cutAt - start >= form.edge && atEnd(t, cutAt, limit, form.base64, matcher.mode);
        };
        const cut = from === 0 && (cutBefore(textEnd) || (textEnd < n && cutBefore(n)));
        const accepted =
          (from === 0 && to === f.length) ||
          length >= form.run ||
          cut ||
          (to === f.length && length >= form.edge && atStart(t, start, matcher.mode));
        if (!accepted) continue;
        if (cut && textEnd < n) end = n;
        reach = Math.max(reach, end);
        // Looking for the first finding: the longest run at this slice names its form best (base64 or base64url).
        if (!first) found.push(foundAt(input, t, decoded, start, end, form));
        else if (best === undefined || end - start > best.end - best.start) best = { start, end, form };
      }
      if (best !== undefined) found.push(foundAt(input, t, decoded, best.start, best.end, best.form));
      return reach;
    };

  // Every position near the edges, every STEP-th in between (see nextPosition), and past a run found.
  const tail = tailOf(textEnd);
  let probe: ReturnType<typeof makeProbe> | undefined;
  for (let p = nextPassing(t, filter, startAt, tail); p !== -1; ) {
    probe ??= makeProbe();
    const reach = probe(p, hashAt(t, p));
    if (reach !== -1 && first) return found;
    p = nextPassing(t, filter, Math.max(nextPosition(p, tail), reach - SEED + 1), tail);
  }
  return found;
}

/**
 * The first position of the scan's walk from p on (see {@link nextPosition}) whose slice's first four characters
 * pass the filter, or -1. The filter's bit (secret-forms.ts `filterBitAt`, which the matcher is compiled with) and the
 * walk's step are written out in one loop: every text that leaves the host goes through it, most of them early in a
 * server's life, before V8 has optimised anything, when each function call on the way cost more than the arithmetic
 * (4 calls a position).
 */
function nextPassing(t: string, filter: Uint32Array, from: number, tail: number): number {
  const last = t.length - SEED;
  for (let p = from; p <= last; ) {
    const two = Math.imul(t.charCodeAt(p), 31) + t.charCodeAt(p + 1);
    const three = Math.imul(two, 31) + t.charCodeAt(p + 2);
    const hash = (Math.imul(three, 31) + t.charCodeAt(p + 3)) | 0;
    const bit = (hash ^ (hash >>> 16)) & FILTER_MASK;
    if (((filter[bit >>> 5] ?? 0) & (1 << (bit & 31))) !== 0) return p;
    p = p < EDGE_SLACK || p >= tail ? p + 1 : Math.min(p + STEP, tail);
  }
  return -1;
}

/** Where the scan starts to look at every position again, for a text whose runs may reach `textEnd`. */
const tailOf = (textEnd: number) => Math.max(0, textEnd - SEED - EDGE_SLACK - 1);

/** The scan's next position after p: every one near the edges (before EDGE_SLACK, from the tail), else STEP on. */
const nextPosition = (p: number, tail: number) => (p < EDGE_SLACK || p >= tail ? p + 1 : Math.min(p + STEP, tail));

/** A run found at start..end of the decoded text `t`, as positions in `input`, with the form it was in. */
function foundAt(
  input: string,
  t: string,
  decoded: Decoded | undefined,
  start: number,
  end: number,
  form: FormText | undefined,
): Found {
  let shown: Form = form?.form ?? "plain";
  if (form?.base64) {
    // The characters beside the run mix the secret's bits with its neighbours', and padding may follow.
    if (start > 0 && BASE64_CHAR.test(t.charAt(start - 1))) start--;
    if (end < t.length && BASE64_CHAR.test(t.charAt(end))) end++;
    while (t.charAt(end) === "=") end++;
    shown = base64Flavour(t, start, end);
  } else if (shown === "plain" && decoded !== undefined) {
    const escaped = escapesIn(decoded, start, end) & ~(form?.own ?? 0);
    if (escaped !== 0) shown = escaped & HTML_ESCAPE ? "html" : "url";
  }
  return {
    start: decoded === undefined ? start : (startIn(decoded, start) ?? 0),
    end: decoded === undefined ? end : (endIn(decoded, end - 1) ?? input.length),
    finding: { form: shown },
  };
}

/** Where the text ends before an escape cut in half at its end (`%4`, `&#10`), as a position in the decoded text. */
function endBeforePartialEscape(input: string, decoded: Decoded | undefined, n: number): number {
  let escapeNearEnd = false;
  for (let i = Math.max(0, input.length - 16); i < input.length && !escapeNearEnd; i++) {
    const c = input.charCodeAt(i);
    escapeNearEnd = c === 0x25 || c === 0x26 || c === 0x5c;
  }
  const partial = escapeNearEnd ? PARTIAL_ESCAPE.exec(input.slice(-16)) : null;
  if (partial === null) return n;
  const cutFrom = input.length - partial[0].length;
  if (decoded === undefined) return cutFrom;
  let end = n;
  while (end > 0 && (startIn(decoded, end - 1) ?? 0) >= cutFrom) end--;
  return end;
}

/**
 * After a run that ends at `end`: at most EDGE_SLACK characters that are not letters or digits (after one mixed
 * character for base64), then the end of the text or an escape cut in half (`%4`, `&#10`, `\u00`) at `textEnd`.
 */
function atEnd(t: string, end: number, textEnd: number, base64: boolean, mode: "text" | "bytes"): boolean {
  let rest = t.slice(end, textEnd);
  if (base64 && BASE64_CHAR.test(rest.charAt(0))) rest = rest.slice(1);
  return rest.length <= EDGE_SLACK && !(mode === "text" ? ALPHANUMERIC : ASCII_ALPHANUMERIC).test(rest);
}

/** Before a run that starts at `start`: at most EDGE_SLACK characters that are not letters or digits. */
function atStart(t: string, start: number, mode: "text" | "bytes"): boolean {
  return start <= EDGE_SLACK && !(mode === "text" ? ALPHANUMERIC : ASCII_ALPHANUMERIC).test(t.slice(0, start));
}

/** base64url when the base64 word around the match uses its alphabet ("-", "_"), base64 otherwise. */
function base64Flavour(t: string, start: number, end: number): Form {
  while (start > 0 && BASE64_CHAR.test(t.charAt(start - 1))) start--;
  while (end < t.length && BASE64_CHAR.test(t.charAt(end))) end++;
  const word = t.slice(start, end);
  return /[-_]/.test(word) && !/[+/]/.test(word) ? "base64url" : "base64";
}

const ALPHANUMERIC = /[\p{L}\p{N}]/u;
const ASCII_ALPHANUMERIC = /[A-Za-z0-9]/;
const PARTIAL_ESCAPE = /(?:%[0-9A-Fa-f]?|&#?[xX]?[0-9A-Za-z]{0,10}|\\(?:u[0-9A-Fa-f]{0,3}|x[0-9A-Fa-f]?)?)$/;
const BASE64_CHAR = /[A-Za-z0-9+/_-]/;
