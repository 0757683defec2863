import type { SecretFinding } from "@skillport/core";

/** What stands in for a secret in results, errors, logs and audit lines. */
export const REDACTED = "[REDACTED]";

/**
 * Replaces every known secret by `[REDACTED]`, plainly or encoded, whole or in pieces. The host adds each
 * credential it reads; everything that leaves the host passes through it, at one place per kind of message (the
 * list below). Costs nothing while it knows no secret.
 *
 * What the host sends a client, and where each passes it (packages/cli/test/redaction-messages-e2e.test.ts sends a
 * credential through each, over stdio in both eras and over HTTP):
 * - a tool's result and error (the envelope in structuredContent, the text rendered from it, content blocks), the
 *   questions a capability asks the client (ctx.elicit, ctx.sample, ctx.listRoots: elicitation/create,
 *   sampling/createMessage, or the 2026-07-28 era's input_required) and a dangerous tool's confirmation question
 *   (its brief): pipeline/pipeline.ts `finished`, the one end of every call;
 * - progress notifications of every run (a skill's ctx.progress in process or isolated, an upstream server's
 *   progress relayed as the call's own; tool calls, reads, renders, completions): pipeline/bounded-run.ts
 *   `redacted`, the one place a run's progress is sent;
 * - logging notifications (ctx.log): pipeline/bounded-run.ts `skillLogger`;
 * - resource contents, the resources a template lists, prompt messages, completions, and their errors:
 *   pipeline/requests.ts `through`;
 * - tools/list (an upstream server's own descriptions): mcp/tools-core.ts `listOf`, once per list built;
 * - protocol errors that name what the client sent: an unknown tool (pipeline.ts `call`), a resource not found
 *   (mcp/server.ts);
 * - over stdio, whatever a skill writes to stdout (mcp/serve-stdio.ts), and every log and audit line (log.ts,
 *   audit.ts).
 * Not passed, as they hold no value read at run time: notifications/tools/list_changed (no params); initialize
 * (the manifest's name and version, instance ids), the resource, template and prompt lists and the Skills
 * extension's SKILL.md files (the skill packages' own text); HTTP response headers (fixed text, the configured
 * origin and public URL, random session ids, numbers); the SDK's own errors for a malformed request (its text).
 *
 * What it matches, for a secret of 8 characters or more (shorter ones only whole and plain; under 4 never):
 * - the secret in any of these forms: plain; its UTF-8 bytes in base64 or base64url at any of the three byte
 *   alignments (inside a longer base64 text too); hex in lower or upper case; percent-encoded
 *   (`encodeURIComponent`, `+` for a space, any byte as `%XX`); HTML character references (named, `&#NN;`,
 *   `&#xHH;`); JSON or JavaScript string escapes (`\"`, `\uXXXX`, `\xHH`); and base64 or hex inside such escaping;
 * - with line breaks inserted anywhere (`\n` or `\r\n`, raw or escaped as in JSON, and the indentation after them);
 * - a piece of it anywhere in a text: 12 consecutive characters of the secret (plain or escaped), 15 characters
 *   of its base64 (12 bytes, whichever the alignment) or 24 of its hex;
 * - a shorter piece at the very start or end of a text: 8 characters (10 of base64, 16 of hex), with at most 4
 *   characters that are not letters or digits (quotes, an ellipsis, base64 padding, an escape cut in half)
 *   between it and the edge: a secret cut off at a length limit, or the rest of one read from an offset.
 * It cannot catch: a smaller piece (a secret read a few characters at a time); the secret transformed any other
 * way (encrypted, compressed, reversed, spelled out, mixed-case hex, UTF-16, encoded twice in another order); a
 * secret it was never given. It may redact text that is not a secret: 12 characters shared with a secret (a
 * secret made of dictionary words), or, at the end of a text, 8. Redacting, a text's final line breaks are not part
 * of it: its end is where they begin.
 */
export interface Redactor {
  /** True once a secret is known. */
  readonly active: boolean;
  add(secrets: Iterable<string | undefined>): void;
  string(text: string): string;
  /**
   * A deep copy of a value with every secret replaced, at any depth (no recursion limit; cycles and shared values
   * are kept as such), keys included. An error stays an error of the same class, its message, stack, `cause`,
   * `errors` and fields redacted; a value with `toJSON` (a date, a URL) is replaced by what it returns; a byte array
   * holding a secret becomes `[REDACTED]`.
   */
  value<T>(value: T): T;
  /**
   * Whether the content holds a known secret, and in which form; never which secret. Bytes are searched as they
   * are, so a secret's UTF-8 bytes are found in binary content as well as in text.
   */
  find(content: string | Uint8Array): SecretFinding | undefined;
}

export function createRedactor(): Redactor {
  const secrets = new Set<string>();
  let text: Matcher | undefined;
  let bytes: Matcher | undefined;
  const textMatcher = () => {
    text ??= compile(secrets, "text");
    return text;
  };
  const bytesMatcher = () => {
    bytes ??= compile(secrets, "bytes");
    return bytes;
  };

  // Short strings that needed a full look and were clean (a name sharing a secret's first characters, a text with
  // an escape: most come back on every call), and property names found clean, until a secret is added.
  const clean = new Set<string>();
  const string = (input: string) => {
    if (secrets.size === 0) return input;
    // Final line breaks (a log line's, a file's) end the text and split nothing: the text is scanned without them,
    // or a break would have the whole text decoded first, several times the work.
    const body = withoutFinalBreaks(input);
    const out = redactBody(body);
    return out === body ? input : `${out}${input.slice(body.length)}`;
  };
  const redactBody = (input: string) => {
    const matcher = textMatcher();
    // Most texts are turned away before the cache, whose lookup costs more for a string made for this call.
    const startAt = lookFrom(input, matcher);
    if (startAt === -1 || (input.length <= CLEAN_CACHE_LENGTH && clean.has(input))) return input;
    const from = confirmedFrom(input, matcher, startAt);
    const out = from === -1 ? input : redactText(input, matcher, from);
    if (out === input && input.length <= CLEAN_CACHE_LENGTH) remember(input);
    return out;
  };
  const remember = (text: string) => {
    if (clean.size >= CLEAN_CACHE_SIZE) clean.clear();
    clean.add(text);
  };
  const redactBytes = (input: Uint8Array) => (scan(latin1(input), bytesMatcher(), true).length > 0 ? REDACTED : input);
  // Property names are looked up in the clean cache first, and kept there once found clean: names are the same few on
  // every call (an answer's, a record's), and a name's hash is kept with it, so the lookup costs less than the look.
  const key = (name: string) => {
    if (name.length > CLEAN_CACHE_LENGTH) return string(name);
    if (clean.has(name)) return name;
    const out = string(name);
    if (out === name) remember(name);
    return out;
  };
  const copy = (value: unknown) => {
    const plain = plainCopy(value, string, key, [], [], PLAIN_DEPTH);
    return plain === NOT_PLAIN ? copyRedacted(value, string, key, redactBytes) : plain;
  };

  return {
    get active() {
      return secrets.size > 0;
    },
    add(values) {
      const before = secrets.size;
      for (const value of values) if (value !== undefined && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
      if (secrets.size !== before) {
        text = undefined;
        bytes = undefined;
        clean.clear();
      }
    },
    string,
    value: <T>(value: T) => (secrets.size === 0 ? value : (copy(value) as T)),
    find(content) {
      if (secrets.size === 0) return undefined;
      const [source, matcher] =
        typeof content === "string" ? [content, textMatcher()] : [latin1(content), bytesMatcher()];
      return scan(source, matcher, true)[0]?.finding;
    },
  };
}

// --- internal ---

/** Clean strings up to this length are remembered, up to this many. */
const CLEAN_CACHE_LENGTH = 64;
const CLEAN_CACHE_SIZE = 1024;
/** Secrets shorter than this are ignored: replacing "ab" everywhere would destroy every message. */
const MIN_SECRET_LENGTH = 4;
/** Secrets shorter than this are matched only whole and plain: an encoded form that short is found by chance. */
const MIN_ENCODED_LENGTH = 8;
/** Pieces of a secret are found from an 8-character slice of one of its forms, hashed. */
const SEED = 8;
/** A run of this many secret bytes is redacted anywhere; scanning looks up a slice every STEP characters. */
const RUN_BYTES = 12;
const STEP = RUN_BYTES - SEED + 1;
/** A run of this many secret bytes is redacted at the start or end of a text. */
const EDGE_BYTES = 8;
/** Characters (not letters or digits) allowed between such a run and the edge: quotes, an ellipsis, padding. */
const EDGE_SLACK = 4;
/**
 * The same lengths in base64 characters of the secret alone (6 bits each). The characters on either side of such a
 * run mix at most 4 of the secret's bits with their neighbours', so a run one shorter never yields that many bytes.
 */
const BASE64_RUN = Math.ceil((RUN_BYTES * 8 - 8) / 6);
const BASE64_EDGE = Math.ceil((EDGE_BYTES * 8 - 8) / 6);

type Form = SecretFinding["form"];

/** One encoding of one secret, and how long a piece of it must be to count, in its own characters. */
interface FormText {
  text: string;
  form: Form;
  run: number;
  edge: number;
  base64: boolean;
  /** Escapes the secret itself holds (URL and HTML bits), decoded in this form: a match spanning them is plain. */
  own: number;
}

interface Matcher {
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

interface Found {
  start: number;
  end: number;
  finding: SecretFinding;
}

function compile(secrets: Iterable<string>, mode: "text" | "bytes"): Matcher {
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
      const bit = filterBit(prefixHashAt(form.text, at));
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

/** The input with every secret run replaced, scanned from `startAt` (see {@link lookFrom}). */
function redactText(input: string, matcher: Matcher, startAt: number): string {
  const found = scan(input, matcher, false, startAt);
  if (found.length === 0) return input;
  found.sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  let open = -1;
  let close = -1;
  for (const { start, end } of found) {
    if (open !== -1 && start <= close) {
      close = Math.max(close, end);
      continue;
    }
    if (open !== -1) {
      out += input.slice(at, open) + REDACTED;
      at = close;
    }
    open = start;
    close = end;
  }
  return `${out}${input.slice(at, open)}${REDACTED}${input.slice(close)}`;
}

/**
 * Every secret run in `input` (positions in `input`), or the first only. Decodes the text first when it holds
 * line breaks or escapes, then looks up SEED-character slices: every STEP characters (a run of RUN_BYTES
 * characters holds at least one such slice) and at every position near the edges.
 */
function scan(input: string, matcher: Matcher, first: boolean, startAt = lookFrom(input, matcher)): Found[] {
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
function lookFrom(input: string, matcher: Matcher): number {
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
function confirmedFrom(input: string, matcher: Matcher, startAt: number): number {
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
 * pass the filter, or -1. {@link prefixHashAt}, {@link filterBit} and the walk's step are written out in one loop:
 * every text that leaves the host goes through it, most of them early in a server's life, before V8 has optimised
 * anything, when each function call on the way cost more than the arithmetic (4 calls a position).
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
const NEEDS_DECODING = /[\n\r%&\\]/;

const FILTER_MASK = 0xffff;

function hashAt(text: string, at: number): number {
  let hash = 0;
  for (let k = 0; k < SEED; k++) hash = (Math.imul(hash, 31) + text.charCodeAt(at + k)) | 0;
  return hash;
}

/**
 * {@link hashAt} of a slice's first four characters, what the filter looks at (a slice matches only where its first
 * ones do); unrolled, as the loop was a quarter of a short text's scan.
 */
function prefixHashAt(text: string, at: number): number {
  const two = Math.imul(text.charCodeAt(at), 31) + text.charCodeAt(at + 1);
  const three = Math.imul(two, 31) + text.charCodeAt(at + 2);
  return (Math.imul(three, 31) + text.charCodeAt(at + 3)) | 0;
}

function filterBit(hash: number): number {
  return (hash ^ (hash >>> 16)) & FILTER_MASK;
}

// --- decoding ---

const URL_ESCAPE = 1;
const HTML_ESCAPE = 2;
const STRING_ESCAPE = 4;

/** A text with line breaks removed and escapes decoded; each character knows the span it came from. */
interface Decoded {
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
function startIn(decoded: Decoded, i: number): number | undefined {
  const at = decoded.from[i];
  return at === undefined || decoded.through === undefined ? at : decoded.through.from[at];
}

/** Where in the input decoded character `i` ends; undefined past the text. */
function endIn(decoded: Decoded, i: number): number | undefined {
  const at = decoded.to[i];
  return at === undefined || decoded.through === undefined ? at : decoded.through.to[at - 1];
}

/** The URL and HTML escapes that characters start..end were decoded from, as bits. */
function escapesIn(decoded: Decoded, start: number, end: number): number {
  let kinds = 0;
  for (let i = start; i < end; i++) kinds |= decoded.kind[i] ?? 0;
  return kinds & (URL_ESCAPE | HTML_ESCAPE);
}

/**
 * Joins lines (see {@link unwrap}), then decodes escapes (see {@link unescapeText}). Returns undefined when nothing
 * changed.
 */
function decode(input: string, mode: "text" | "bytes"): Decoded | undefined {
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

const ENTITY = /^&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z]{2,12}));/;

function entityCodePoint(match: RegExpExecArray): number | undefined {
  const [, decimal, hex, name] = match;
  const cp =
    decimal !== undefined
      ? Number.parseInt(decimal, 10)
      : hex !== undefined
        ? Number.parseInt(hex, 16)
        : NAMED_ENTITIES[name ?? ""];
  return cp !== undefined && cp <= 0x10ffff ? cp : undefined;
}

/** The HTML named character references for printable ASCII, which is what escapers write for a token. */
const NAMED_ENTITIES: Readonly<Record<string, number>> = {
  amp: 0x26,
  AMP: 0x26,
  lt: 0x3c,
  LT: 0x3c,
  gt: 0x3e,
  GT: 0x3e,
  quot: 0x22,
  QUOT: 0x22,
  apos: 0x27,
  excl: 0x21,
  num: 0x23,
  dollar: 0x24,
  percnt: 0x25,
  lpar: 0x28,
  rpar: 0x29,
  ast: 0x2a,
  midast: 0x2a,
  plus: 0x2b,
  comma: 0x2c,
  period: 0x2e,
  sol: 0x2f,
  colon: 0x3a,
  semi: 0x3b,
  equals: 0x3d,
  quest: 0x3f,
  commat: 0x40,
  lsqb: 0x5b,
  lbrack: 0x5b,
  bsol: 0x5c,
  rsqb: 0x5d,
  rbrack: 0x5d,
  Hat: 0x5e,
  lowbar: 0x5f,
  UnderBar: 0x5f,
  grave: 0x60,
  lcub: 0x7b,
  lbrace: 0x7b,
  verbar: 0x7c,
  vert: 0x7c,
  VerticalLine: 0x7c,
  rcub: 0x7d,
  rbrace: 0x7d,
  tilde: 0x7e,
  nbsp: 0xa0,
};

// --- values ---

/** What {@link plainCopy} answers for a value it leaves to {@link copyRedacted}. */
const NOT_PLAIN = Symbol("not plain");
/** The most objects, and the deepest nesting, {@link plainCopy} copies before leaving a value to copyRedacted. */
const PLAIN_OBJECTS = 16;
const PLAIN_DEPTH = 16;

/**
 * The copy of a small plain value, as {@link copyRedacted} makes it: strings redacted, other primitives kept, arrays
 * and objects whose prototype is Array's, Object's or none copied (keys redacted; a value met twice, or inside
 * itself, copied once). Most values redacted are such (an answer's envelope, its content blocks), and this copy makes
 * no stacks or closures. NOT_PLAIN for anything else (an error, bytes, a value with `toJSON`, a class instance, a
 * `__proto__` key, more than PLAIN_OBJECTS objects or PLAIN_DEPTH levels): the caller then copies the whole value
 * with copyRedacted, and this partial copy is dropped.
 */
function plainCopy(
  value: unknown,
  string: (text: string) => string,
  key: (name: string) => string,
  sources: object[],
  copies: unknown[],
  depth: number,
): unknown {
  if (typeof value === "string") return string(value);
  if (typeof value !== "object" || value === null) return value;
  const seen = sources.indexOf(value);
  if (seen !== -1) return copies[seen];
  if (depth === 0 || sources.length === PLAIN_OBJECTS) return NOT_PLAIN;
  const prototype = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype) return NOT_PLAIN;
    const copy: unknown[] = [];
    sources.push(value);
    copies.push(copy);
    for (let i = 0; i < value.length; i++) {
      const item = plainCopy(value[i], string, key, sources, copies, depth - 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy.push(item);
    }
    return copy;
  }
  if (
    (prototype !== Object.prototype && prototype !== null) ||
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  )
    return NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  sources.push(value);
  copies.push(copy);
  for (const name of Object.keys(value)) {
    if (name === "__proto__") return NOT_PLAIN;
    const item = plainCopy((value as Record<string, unknown>)[name], string, key, sources, copies, depth - 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    copy[key(name)] = item;
  }
  return copy;
}

/**
 * The deep copy behind {@link Redactor.value}, without recursion: a stack of slots (container, key, value) to
 * fill, taken in document order so keys keep their order. Each object is copied once (cycles and shared values
 * stay so).
 */
function copyRedacted(
  root: unknown,
  string: (text: string) => string,
  key: (name: string) => string,
  bytes: (content: Uint8Array) => unknown,
): unknown {
  const copies = new Copies();
  const targets: (Record<string, unknown> | unknown[])[] = [];
  const keys: (string | number)[] = [];
  const values: unknown[] = [];
  const push = (target: Record<string, unknown> | unknown[], key: string | number, value: unknown) => {
    targets.push(target);
    keys.push(key);
    values.push(value);
  };
  const pushEntries = (target: Record<string, unknown>, source: object) => {
    const own = Object.keys(source);
    for (let i = own.length - 1; i >= 0; i--) {
      const name = own[i] as string;
      push(target, key(name), (source as Record<string, unknown>)[name]);
    }
  };

  const copyOne = (value: unknown): unknown => {
    if (typeof value === "string") return string(value);
    if (typeof value !== "object" || value === null) return value;
    const known = copies.get(value);
    if (known !== undefined) return known === NOTHING ? undefined : known;
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      copies.set(value, copy);
      for (let i = value.length - 1; i >= 0; i--) push(copy, i, value[i]);
      return copy;
    }
    if (ArrayBuffer.isView(value)) {
      const redacted = bytes(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)) === REDACTED;
      return redacted ? REDACTED : value;
    }
    if (value instanceof Error) {
      // An error of the same class, every own property (message, stack, cause, errors, fields) redacted.
      const copy = Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>;
      copies.set(value, copy);
      const own = Object.getOwnPropertyNames(value);
      for (let i = own.length - 1; i >= 0; i--) {
        const property = own[i] as string;
        const enumerable = Object.getOwnPropertyDescriptor(value, property)?.enumerable ?? true;
        const name = key(property);
        Object.defineProperty(copy, name, { value: undefined, enumerable, writable: true, configurable: true });
        push(copy, name, (value as unknown as Record<string, unknown>)[property]);
      }
      return copy;
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      let json: unknown = value;
      try {
        json = toJSON.call(value);
      } catch {
        // Copied as a plain object below.
      }
      if (json !== value) {
        const copy = copyOne(json);
        copies.set(value, copy === undefined ? NOTHING : copy);
        return copy;
      }
    }
    const copy: Record<string, unknown> = {};
    copies.set(value, copy);
    pushEntries(copy, value);
    return copy;
  };

  const result: Record<string, unknown> = {};
  push(result, "value", root);
  while (values.length > 0) {
    const target = targets.pop() as Record<string | number, unknown>;
    const key = keys.pop() as string | number;
    const copy = copyOne(values.pop());
    if (key === "__proto__") Object.defineProperty(target, key, { value: copy, enumerable: true, writable: true });
    else target[key] = copy;
  }
  return result.value;
}

const NOTHING = Symbol("nothing");

/**
 * Each object copied so far and its copy. The first few are kept in lists and found by looking along them: a map
 * gives every object it holds an identity hash, which cost a fresh object more than the rest of its copy, and most
 * values redacted (an answer, an audit record) hold a handful of objects.
 */
class Copies {
  private readonly sources: object[] = [];
  private readonly copies: unknown[] = [];
  private map: Map<object, unknown> | undefined;

  get(source: object): unknown {
    if (this.map !== undefined) return this.map.get(source);
    const at = this.sources.indexOf(source);
    return at === -1 ? undefined : this.copies[at];
  }

  set(source: object, copy: unknown): void {
    if (this.map === undefined && this.sources.length < LISTED_COPIES) {
      this.sources.push(source);
      this.copies.push(copy);
      return;
    }
    this.map ??= new Map(this.sources.map((s, i) => [s, this.copies[i]]));
    this.map.set(source, copy);
  }
}

/** Objects whose copies are found along a list before a map takes over. */
const LISTED_COPIES = 16;

/** The text without the line breaks it ends with. */
function withoutFinalBreaks(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end--;
  return end === text.length ? text : text.slice(0, end);
}

function latin1(content: Uint8Array): string {
  return Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString("latin1");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
