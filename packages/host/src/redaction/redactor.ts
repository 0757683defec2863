// The redactor's public face: createRedactor, what it answers, and its cache of texts found clean.
import type { SecretFinding } from "@skillport/core";
import type { CopyRules } from "./copy.js";
import { copyRedacted } from "./copy.js";
import { confirmedFrom, lookFrom, scan } from "./scan.js";
import type { Matcher } from "./secret-forms.js";
import { compileMatcher, latin1, MIN_SECRET_LENGTH } from "./secret-forms.js";

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
 * - over stdio, whatever a skill writes to stdout (mcp/serve-stdio.ts), and every log and audit line
 *   (logging/logger.ts, pipeline/audit.ts).
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

/**
 * A redactor that knows no secret yet: add the credentials the host reads with `add`, then pass everything that
 * leaves the host through `string` or `value`.
 *
 * @example
 * const redactor = createRedactor();
 * redactor.add([process.env.GITHUB_TOKEN]);
 * redactor.string(`token ${process.env.GITHUB_TOKEN}`); // "token [REDACTED]"
 */
export function createRedactor(): Redactor {
  const secrets = new Set<string>();
  let text: Matcher | undefined;
  let bytes: Matcher | undefined;
  const textMatcher = () => {
    text ??= compileMatcher(secrets, "text");
    return text;
  };
  const bytesMatcher = () => {
    bytes ??= compileMatcher(secrets, "bytes");
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
  // Property names are looked up in the clean cache first, and kept there once found clean: names are the same few on
  // every call (an answer's, a record's), and a name's hash is kept with it, so the lookup costs less than the look.
  const key = (name: string) => {
    if (name.length > CLEAN_CACHE_LENGTH) return string(name);
    if (clean.has(name)) return name;
    const out = string(name);
    if (out === name) remember(name);
    return out;
  };
  const rules: CopyRules = {
    string,
    key,
    bytes: (content) => (scan(latin1(content), bytesMatcher(), true).length > 0 ? REDACTED : undefined),
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
    value: <T>(value: T) => (secrets.size === 0 ? value : (copyRedacted(value, rules) as T)),
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

/** The text without the line breaks it ends with. */
function withoutFinalBreaks(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end--;
  return end === text.length ? text : text.slice(0, end);
}
