// The redactor's decoders: a text with its line breaks removed and its escapes (URL, HTML, JSON and JavaScript string
// escapes) decoded, each decoded character knowing the span of the input it came from, so a secret found in the
// decoded text is replaced where it is written.
import { ENTITY, entityCodePoint } from "./html-entities.js";

/** Characters that may need decoding: a line break or the start of an escape. */
export const NEEDS_DECODING = /[\n\r%&\\]/;

/** What a decoded character was decoded from, as bits: a URL escape, an HTML reference, a string escape. */
const URL_ESCAPE = 1;
export const HTML_ESCAPE = 2;
const STRING_ESCAPE = 4;

/** A text with line breaks removed and escapes decoded; each character knows the span it came from. */
export interface Decoded {
  text: string;
  from: Int32Array;
  to: Int32Array;
  kind: Uint8Array;
  /**
   * When the spans are positions in another decoding of the input (escapes decoded after line breaks were removed),
   * that decoding, which maps them to the input: read through {@link startIn} and {@link endIn}.
   */
  through?: Decoded;
}

/** Where in the input decoded character `i` starts; undefined past the text. */
export function startIn(decoded: Decoded, i: number): number | undefined {
  const at = decoded.from[i];
  return at === undefined || decoded.through === undefined ? at : decoded.through.from[at];
}

/** Where in the input decoded character `i` ends; undefined past the text. */
export function endIn(decoded: Decoded, i: number): number | undefined {
  const at = decoded.to[i];
  return at === undefined || decoded.through === undefined ? at : decoded.through.to[at - 1];
}

/** The URL and HTML escapes that characters start..end were decoded from, as bits. */
export function escapesIn(decoded: Decoded, start: number, end: number): number {
  let kinds = 0;
  for (let i = start; i < end; i++) kinds |= decoded.kind[i] ?? 0;
  return kinds & (URL_ESCAPE | HTML_ESCAPE);
}

/**
 * Joins lines (see {@link unwrap}), then decodes escapes (see {@link unescapeText}). Returns undefined when nothing
 * changed.
 */
export function decode(input: string, mode: "text" | "bytes"): Decoded | undefined {
  const unwrapped = /[\n\\]/.test(input) ? unwrap(input) : undefined;
  const joined = unwrapped?.text ?? input;
  const unescaped = AN_ESCAPE.test(joined) ? unescapeText(joined, mode) : undefined;
  if (unescaped === undefined || unwrapped === undefined) return unescaped ?? unwrapped;
  // The unescaped text's spans are positions in the unwrapped text: mapped to the input only for what is found.
  return { ...unescaped, through: unwrapped };
}

/**
 * What {@link unescapeText} may decode, looser than it (an entity of any name): a text without it is left as it is,
 * not copied character by character to find that out (a `%`, `&` or `\` alone is common in text and code).
 */
const AN_ESCAPE =
  /\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|["\\/'])|%[0-9A-Fa-f]{2}|&(?:#\d{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z]{2,12});/;

/**
 * Removes line breaks, `\n` or `\r\n`, raw or escaped as in a JSON string, with the indentation after them
 * (spaces, tabs, escaped tabs): a secret wrapped or split across lines reads as one again.
 */
function unwrap(input: string): Decoded | undefined {
  // Each character goes through `put`, one function for every decoding, which V8 inlines; the closures made per text
  // before cost as much as the rest of the scan.
  const out = scratchFor(UNWRAPPED, input.length);
  const n = input.length;
  let size = 0;
  let changed = false;
  for (let i = 0; i < n; ) {
    const c = input.charCodeAt(i);
    if (c === 0x0a) {
      i = indentEnd(input, i + 1);
      changed = true;
      continue;
    }
    if (c === 0x0d || c === 0x5c) {
      const next = i + 1 < n ? input.charCodeAt(i + 1) : -1;
      if (c === 0x0d && next === 0x0a) {
        i = indentEnd(input, i + 2);
        changed = true;
        continue;
      }
      if (c === 0x5c && (next === 0x6e || (next === 0x72 && input.startsWith("\\n", i + 2)))) {
        i = indentEnd(input, i + (next === 0x6e ? 2 : 4));
        changed = true;
        continue;
      }
      if (c === 0x5c && next === 0x5c) {
        // An escaped backslash is kept whole: the "n" after it is a letter, not a line break.
        size = put(out, size, c, i, i + 1, 0);
        i++;
      }
    }
    size = put(out, size, input.charCodeAt(i), i, i + 1, 0);
    i++;
  }
  return changed ? decodedOf(out, size) : undefined;
}

/** Where the indentation after a line break (spaces, tabs, escaped tabs) starting at `at` ends. */
function indentEnd(input: string, at: number): number {
  const n = input.length;
  while (at < n) {
    const c = input.charCodeAt(at);
    if (c === 0x20 || c === 0x09) at++;
    else if (c === 0x5c && input.charCodeAt(at + 1) === 0x74) at += 2;
    else break;
  }
  return at;
}

/**
 * Decodes `%XX` runs (as UTF-8 in text mode, an invalid sequence as U+FFFD; as bytes in bytes mode), HTML
 * character references (decimal, hex, and the names for ASCII), and JSON or JavaScript string escapes.
 */
function unescapeText(input: string, mode: "text" | "bytes"): Decoded | undefined {
  const out = scratchFor(UNESCAPED, input.length);
  const n = input.length;
  let size = 0;
  let changed = false;
  for (let i = 0; i < n; ) {
    const c = input.charCodeAt(i);
    if (c !== 0x5c && c !== 0x25 && c !== 0x26) {
      size = put(out, size, c, i, i + 1, 0); // most characters
      i++;
      continue;
    }
    let end = i;
    if (c === 0x5c) {
      const next = i + 1 < n ? input.charCodeAt(i + 1) : -1;
      const u = next === 0x75 ? hexAt(input, i + 2, 4) : -1;
      const x = next === 0x78 ? hexAt(input, i + 2, 2) : -1;
      if (u !== -1) {
        size = putCodePoint(out, size, u, i, i + 6, STRING_ESCAPE, mode);
        end = i + 6;
      } else if (x !== -1) {
        size = putCodePoint(out, size, x, i, i + 4, STRING_ESCAPE, mode);
        end = i + 4;
      } else if (next === 0x22 || next === 0x5c || next === 0x2f || next === 0x27) {
        size = put(out, size, next, i, i + 2, STRING_ESCAPE);
        end = i + 2;
      }
    } else if (c === 0x25 && hexAt(input, i + 1, 2) !== -1) {
      const bytes: number[] = [];
      for (end = i; input.charCodeAt(end) === 0x25; end += 3) {
        const byte = hexAt(input, end + 1, 2);
        if (byte === -1) break;
        bytes.push(byte);
      }
      for (let b = 0; b < bytes.length; ) {
        const byte = bytes[b] ?? 0;
        const at = i + b * 3;
        const length = mode === "bytes" || byte < 0x80 ? 1 : utf8Length(byte);
        const cp = length === 1 ? undefined : utf8CodePoint(bytes.slice(b, b + length));
        if (cp !== undefined) size = putCodePoint(out, size, cp, at, at + length * 3, URL_ESCAPE, mode);
        else size = put(out, size, mode === "bytes" || byte < 0x80 ? byte : 0xfffd, at, at + 3, URL_ESCAPE);
        b += cp === undefined ? 1 : length;
      }
    } else if (c === 0x26) {
      const entity = ENTITY.exec(input.slice(i, i + 16));
      const cp = entity === null ? undefined : entityCodePoint(entity);
      if (entity !== null && cp !== undefined) {
        size = putCodePoint(out, size, cp, i, i + entity[0].length, HTML_ESCAPE, mode);
        end = i + entity[0].length;
      }
    }
    if (end === i) {
      size = put(out, size, c, i, i + 1, 0); // not an escape after all
      i++;
    } else {
      i = end;
      changed = true;
    }
  }
  return changed ? decodedOf(out, size) : undefined;
}

/** The value of `count` hex digits at `at`, or -1 when there are not that many. */
function hexAt(input: string, at: number, count: number): number {
  if (at + count > input.length) return -1;
  let value = 0;
  for (let k = at; k < at + count; k++) {
    const c = input.charCodeAt(k);
    const digit =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (digit === -1) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** Writes one decoded character with the span it came from; answers the new size. */
function put(out: Scratch, size: number, code: number, start: number, end: number, how: number): number {
  out.codes[size] = code;
  out.from[size] = start;
  out.to[size] = end;
  out.kind[size] = how;
  return size + 1;
}

/** Writes a code point: as UTF-8 bytes in bytes mode, as a surrogate pair above U+FFFF; answers the new size. */
function putCodePoint(
  out: Scratch,
  size: number,
  cp: number,
  start: number,
  end: number,
  how: number,
  mode: "text" | "bytes",
): number {
  if (mode === "bytes" && cp > 0x7f) {
    for (const byte of Buffer.from(String.fromCodePoint(cp))) size = put(out, size, byte, start, end, how);
    return size;
  }
  if (cp > 0xffff) {
    const pair = String.fromCodePoint(cp);
    size = put(out, size, pair.charCodeAt(0), start, end, how);
    return put(out, size, pair.charCodeAt(1), start, end, how);
  }
  return put(out, size, cp, start, end, how);
}

/** The first `size` decoded characters, as a text, with views of their spans and kinds. */
function decodedOf({ codes, from, to, kind }: Scratch, size: number): Decoded {
  const text = Buffer.from(codes.buffer, codes.byteOffset, size * 2).toString("utf16le");
  return { text, from: from.subarray(0, size), to: to.subarray(0, size), kind: kind.subarray(0, size) };
}

/**
 * Typed arrays reused by every decoding of this kind in the process, instead of four made (outside V8's heap) for
 * every text: that made a text with a line break cost several times one without. Decoding never lengthens a text,
 * so a text's decoding fits arrays as long as it. Safe because decoding is synchronous and each result is read
 * before the next decoding of its kind: a scan reads its decoded view, and the unwrapped one its spans go through,
 * before it returns. At most 64 Ki characters each: about 1.4 MB held for the life of the process once a
 * text that long was decoded.
 */
interface Scratch {
  codes: Uint16Array;
  from: Int32Array;
  to: Int32Array;
  kind: Uint8Array;
}

/** Room for `size` decoded characters. */
const scratchOf = (size: number): Scratch => ({
  codes: new Uint16Array(size),
  from: new Int32Array(size),
  to: new Int32Array(size),
  kind: new Uint8Array(size),
});
const UNWRAPPED = scratchOf(0);
const UNESCAPED = scratchOf(0);
/** Texts longer than this decode into arrays of their own, so a huge text does not keep its arrays alive. */
const SCRATCH_LIMIT = 64 * 1024;

function scratchFor(scratch: Scratch, capacity: number): Scratch {
  if (capacity > SCRATCH_LIMIT) return scratchOf(capacity);
  if (scratch.codes.length < capacity) {
    Object.assign(scratch, scratchOf(Math.min(SCRATCH_LIMIT, Math.max(capacity, 2 * scratch.codes.length, 256))));
  }
  return scratch;
}

function utf8Length(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

/** The code point of one UTF-8 sequence of 2 to 4 bytes, or undefined when it is cut short or invalid. */
function utf8CodePoint(sequence: number[]): number | undefined {
  const length = utf8Length(sequence[0] ?? 0);
  if (length === 1 || sequence.length < length) return undefined;
  let cp = (sequence[0] ?? 0) & (0x7f >> length);
  for (let k = 1; k < length; k++) {
    const byte = sequence[k] ?? 0;
    if ((byte & 0xc0) !== 0x80) return undefined;
    cp = (cp << 6) | (byte & 0x3f);
  }
  return cp <= 0x10ffff ? cp : undefined;
}
