/** What {@link createLineReader} reports about a line longer than its limit. */
export interface OversizeLine {
  /** The line's length in bytes, without its newline. */
  bytes: number;
  /**
   * The top-level `"id"` of the message, when it is a string or a number, wherever in the line it stood (the last
   * one, as a JSON parser reads a key given twice).
   */
  id: string | number | undefined;
}

/** Options for {@link createLineReader}. */
export interface LineReaderOptions {
  /** The longest line accepted, in bytes, without its newline. */
  maxBytes: number;
  /** A complete line within the limit, UTF-8 decoded, a trailing `\r` removed. */
  onLine(line: string): void;
  /** A line over the limit, once its end has arrived. Its bytes were dropped as they came, never held. */
  onOversize(line: OversizeLine): void;
}

/** Splits a byte stream into newline-delimited lines. */
export interface LineReader {
  push(chunk: Uint8Array): void;
}

/**
 * Splits a stream into lines (the stdio transport's framing: one JSON-RPC message per line) with a bound per line,
 * not per buffer: a line within `maxBytes` is reported whole; a longer one is dropped while it streams in, keeping
 * memory at `maxBytes`, and reported with its size and its JSON-RPC id (scanned on the way, so the client can be
 * answered for the right request). Lines are reported in the order they end; a newline cannot occur inside a JSON
 * text except as a separator, so framing never cuts a message.
 *
 * @example
 * const reader = createLineReader({ maxBytes: 1 << 20, onLine: handle, onOversize: ({ id }) => refuse(id) });
 * process.stdin.on("data", (chunk) => reader.push(chunk));
 */
export function createLineReader(options: LineReaderOptions): LineReader {
  const { maxBytes, onLine, onOversize } = options;
  let chunks: Uint8Array[] = [];
  let size = 0;
  let oversize: IdScanner | undefined;

  const startOversize = () => {
    oversize = new IdScanner();
    for (const chunk of chunks) oversize.feed(chunk);
    chunks = [];
  };
  const finishLine = () => {
    if (oversize !== undefined) {
      const scanned = oversize;
      oversize = undefined;
      const bytes = size;
      size = 0;
      onOversize({ bytes, id: scanned.id() });
      return;
    }
    const line = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
    chunks = [];
    size = 0;
    const text = Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString("utf8");
    onLine(text.endsWith("\r") ? text.slice(0, -1) : text);
  };

  return {
    push(chunk) {
      let start = 0;
      while (start <= chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? chunk.length : newline;
        if (end > start) {
          const piece = chunk.subarray(start, end);
          size += piece.length;
          if (oversize === undefined && size > maxBytes) startOversize();
          if (oversize !== undefined) oversize.feed(piece);
          else chunks.push(piece);
        }
        if (newline === -1) return;
        finishLine();
        start = newline + 1;
      }
    },
  };
}

// --- internal ---

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** A key or id longer than this is not one we look for; a JSON-RPC id is short. */
const MAX_TOKEN = 256;

/**
 * Finds the top-level `"id"` member of a JSON object streamed in pieces, without keeping the text: it tracks only
 * nesting, whether it is inside a string, and the few bytes of a top-level key or of the id's value. Bytes of
 * multi-byte UTF-8 characters are all ≥ 0x80, so no structural byte is ever mistaken inside one.
 */
class IdScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The text is an object (a batch's array has no top-level keys). */
  private object = false;
  /** At depth 1, the next string is a key. */
  private expectKey = false;
  /** Bytes of the top-level key being read (quotes included), or of the id's value; undefined when not capturing. */
  private token: number[] | undefined;
  private tokenIsKey = false;
  private lastKey: string | undefined;
  private found: string | number | undefined;

  feed(bytes: Uint8Array): void {
    let i = 0;
    const length = bytes.length;
    while (i < length) {
      if (this.inString) {
        if (this.token === undefined) {
          // Skip string content in bulk: find the next quote natively, and count only the backslashes right
          // before it (an odd run escapes it). Linear however many escapes the string holds.
          const end = this.closingQuote(bytes, i);
          if (end === -1) return;
          this.inString = false;
          i = end + 1;
          continue;
        }
        const byte = bytes[i] as number;
        this.capture(byte);
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          this.inString = false;
          if (this.tokenIsKey) this.endKey();
        }
        i++;
        continue;
      }
      const byte = bytes[i] as number;
      if (this.depth === 1 && this.token !== undefined && !this.tokenIsKey) {
        // Reading the id's value: it ends at the next top-level comma or closing brace.
        if (byte === COMMA || byte === CLOSE_BRACE) this.endValue();
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
          // Not a valid id; and a parser keeps a key's last value, so an earlier "id" no longer counts.
          this.token = undefined;
          this.found = undefined;
        } else {
          this.capture(byte);
          if (byte === QUOTE) this.inString = true;
          i++;
          continue;
        }
      }
      switch (byte) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1 && this.expectKey) {
            this.expectKey = false;
            this.token = [byte];
            this.tokenIsKey = true;
          }
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET:
          this.depth++;
          if (this.depth === 1) {
            this.object = byte === OPEN_BRACE;
            this.expectKey = this.object;
          }
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          this.depth--;
          break;
        case COMMA:
          if (this.depth === 1) this.expectKey = this.object;
          break;
        case COLON:
          if (this.depth === 1 && this.lastKey === "id") {
            this.token = [];
            this.tokenIsKey = false;
          }
          this.lastKey = undefined;
          break;
      }
      i++;
    }
  }

  /**
   * The index of the quote that ends the current string, at or after `from`, or -1 when the string goes on past
   * this piece (then `escaped` carries whether the piece ended inside an escape).
   */
  private closingQuote(bytes: Uint8Array, from: number): number {
    const escapedBefore = (at: number): boolean => {
      let j = at - 1;
      while (j >= from && bytes[j] === BACKSLASH) j--;
      const run = at - 1 - j;
      return (j < from && this.escaped ? run + 1 : run) % 2 === 1;
    };
    for (let quote = bytes.indexOf(QUOTE, from); quote !== -1; quote = bytes.indexOf(QUOTE, quote + 1)) {
      if (!escapedBefore(quote)) {
        this.escaped = false;
        return quote;
      }
    }
    this.escaped = escapedBefore(bytes.length);
    return -1;
  }

  /** The id found, when the object's `id` was a string or a number. */
  id(): string | number | undefined {
    return this.found;
  }

  private capture(byte: number): void {
    if (this.token === undefined) return;
    if (this.token.length >= MAX_TOKEN) {
      // Too long to be a key we look for, or an id we report: an "id" given this long leaves the message without one.
      if (!this.tokenIsKey) this.found = undefined;
      this.token = undefined;
      return;
    }
    this.token.push(byte);
  }

  private endKey(): void {
    const key = this.token === undefined ? undefined : parseToken(this.token);
    this.lastKey = typeof key === "string" ? key : undefined;
    this.token = undefined;
  }

  private endValue(): void {
    const value = this.token === undefined ? undefined : parseToken(this.token);
    this.token = undefined;
    // The last "id" member is the message's, as JSON.parse reads it: one that is not a valid id clears an earlier one.
    this.found = typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) ? value : undefined;
  }
}

function parseToken(bytes: number[]): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    return undefined;
  }
}
