// The forms a secret is looked for in (plain, base64 and base64url at each alignment, hex, URL and HTML escaped), and
// the matcher compiled from them: every slice of every form, hashed, behind a bit filter.
import type { SecretFinding } from "@skillport/core";
import { decode, escapesIn } from "./decode.js";

/** Secrets shorter than this are ignored: replacing "ab" everywhere would destroy every message. */
export const MIN_SECRET_LENGTH = 4;
/** Secrets shorter than this are matched only whole and plain: an encoded form that short is found by chance. */
const MIN_ENCODED_LENGTH = 8;
/** Pieces of a secret are found from an 8-character slice of one of its forms, hashed. */
export const SEED = 8;
/** A run of this many secret bytes is redacted anywhere; scanning looks up a slice every STEP characters. */
const RUN_BYTES = 12;
export const STEP = RUN_BYTES - SEED + 1;
/** A run of this many secret bytes is redacted at the start or end of a text. */
const EDGE_BYTES = 8;
/** Characters (not letters or digits) allowed between such a run and the edge: quotes, an ellipsis, padding. */
export const EDGE_SLACK = 4;
/**
 * The same lengths in base64 characters of the secret alone (6 bits each). The characters on either side of such a
 * run mix at most 4 of the secret's bits with their neighbours', so a run one shorter never yields that many bytes.
 */
const BASE64_RUN = Math.ceil((RUN_BYTES * 8 - 8) / 6);
const BASE64_EDGE = Math.ceil((EDGE_BYTES * 8 - 8) / 6);

export type Form = SecretFinding["form"];

/** One encoding of one secret, and how long a piece of it must be to count, in its own characters. */
export interface FormText {
  text: string;
  form: Form;
  run: number;
  edge: number;
  base64: boolean;
  /** Escapes the secret itself holds (URL and HTML bits), decoded in this form: a match spanning them is plain. */
  own: number;
}

/** What a text is scanned with: every secret's forms, compiled for one kind of content (text, or bytes as latin1). */
export interface Matcher {
  /** Every SEED-character slice of every form, by hash. */
  slices: Map<number, { form: FormText; at: number }[]>;
  /**
   * A bit per folded hash of each slice's first four characters: most positions of a text are turned away after
   * hashing half a slice, without the whole slice's hash or a map lookup.
   */
  filter: Uint32Array;
  /** Forms too short to be found by sampling every STEP characters, matched whole. */
  whole: RegExp | undefined;
  wholeForms: Map<string, FormText>;
  mode: "text" | "bytes";
  /** Shorter texts need no look. */
  minLength: number;
}

/** The matcher of every form of these secrets, for text or for bytes (read as latin1, forms as UTF-8 bytes). */
export function compileMatcher(secrets: Iterable<string>, mode: "text" | "bytes"): Matcher {
  const forms = new Map<string, FormText>();
  const addForm = (value: string, form: Form, run: number, edge: number, base64 = false, own = 0) => {
    if (value.length >= MIN_SECRET_LENGTH && !forms.has(value))
      forms.set(value, { text: value, form, run, edge, base64, own });
  };
  // Plain forms are matched against decoded text, so they are decoded the same way (a secret holding "%41" or a
  // line break); both spellings are kept.
  const plain = (value: string, form: Form, run: number, edge: number) => {
    const raw = mode === "text" ? value : latin1(Buffer.from(value));
    addForm(raw, form, run, edge);
    const decoded = decode(raw, mode);
    if (decoded !== undefined)
      addForm(decoded.text, form, run, edge, false, escapesIn(decoded, 0, decoded.text.length));
  };
  const whole = Number.POSITIVE_INFINITY;
  for (const secret of secrets) {
    if (secret.length < MIN_ENCODED_LENGTH) {
      plain(secret, "plain", whole, whole);
      continue;
    }
    plain(secret, "plain", RUN_BYTES, EDGE_BYTES);
    if (secret.includes(" ")) plain(secret.replaceAll(" ", "+"), "url", RUN_BYTES, EDGE_BYTES);
    const utf8 = Buffer.from(secret);
    for (const alignment of [0, 1, 2]) {
      const b64 = base64Inner(utf8, alignment);
      addForm(b64, "base64", BASE64_RUN, BASE64_EDGE, true);
      addForm(b64.replaceAll("+", "-").replaceAll("/", "_"), "base64url", BASE64_RUN, BASE64_EDGE, true);
    }
    const hex = utf8.toString("hex");
    addForm(hex, "hex", RUN_BYTES * 2, EDGE_BYTES * 2);
    addForm(hex.toUpperCase(), "hex", RUN_BYTES * 2, EDGE_BYTES * 2);
  }

  const slices = new Map<number, { form: FormText; at: number }[]>();
  const filter = new Uint32Array((FILTER_MASK + 1) / 32);
  const shortForms: string[] = [];
  const wholeForms = new Map<string, FormText>();
  for (const form of forms.values()) {
    if (form.text.length < SEED + STEP - 1) {
      shortForms.push(form.text);
      wholeForms.set(form.text, form);
    }
    for (let at = 0; at + SEED <= form.text.length; at++) {
      const bit = filterBitAt(form.text, at);
      filter[bit >>> 5] = (filter[bit >>> 5] ?? 0) | (1 << (bit & 31));
      const hash = hashAt(form.text, at);
      const list = slices.get(hash);
      if (list === undefined) slices.set(hash, [{ form, at }]);
      else list.push({ form, at });
    }
  }
  shortForms.sort((a, b) => b.length - a.length);
  const minLength = Math.min(SEED, ...shortForms.map((f) => f.length));
  return {
    slices,
    filter,
    whole: shortForms.length === 0 ? undefined : new RegExp(shortForms.map(escapeRegExp).join("|"), "g"),
    wholeForms,
    mode,
    minLength,
  };
}

/**
 * The base64 characters that depend only on the secret's bits when its first byte sits at `alignment` (0, 1 or 2)
 * within a 3-byte group: the part every base64 text holding the secret at that alignment shares.
 */
function base64Inner(bytes: Buffer, alignment: number): string {
  const encoded = Buffer.concat([Buffer.alloc(alignment), bytes]).toString("base64");
  const first = Math.ceil((alignment * 8) / 6);
  const last = Math.floor(((alignment + bytes.length) * 8) / 6);
  return encoded.slice(first, last);
}

/** The filter has a bit for each value of a slice's folded prefix hash. */
export const FILTER_MASK = 0xffff;

/** A hash of the SEED characters at `at`: what the matcher's slices are looked up by. */
export function hashAt(text: string, at: number): number {
  let hash = 0;
  for (let k = 0; k < SEED; k++) hash = (Math.imul(hash, 31) + text.charCodeAt(at + k)) | 0;
  return hash;
}

/**
 * The filter's bit for the slice at `at`: {@link hashAt} of its first four characters (a slice matches only where its
 * first ones do), folded to FILTER_MASK. Unrolled, as the loop was a quarter of a short text's scan; the scan's walk
 * (scan.ts `nextPassing`) writes the same arithmetic out in its loop.
 */
function filterBitAt(text: string, at: number): number {
  const two = Math.imul(text.charCodeAt(at), 31) + text.charCodeAt(at + 1);
  const three = Math.imul(two, 31) + text.charCodeAt(at + 2);
  const hash = (Math.imul(three, 31) + text.charCodeAt(at + 3)) | 0;
  return (hash ^ (hash >>> 16)) & FILTER_MASK;
}

/** Bytes as a string of one character per byte, so the same scan reads them. */
export function latin1(content: Uint8Array): string {
  return Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString("latin1");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
