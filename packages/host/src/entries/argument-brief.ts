import type { JsonSchema } from "@skillport/core";
import { showInvisible } from "./show-invisible.js";

/** What an argument brief is written from: the call's heading and the tool's input schema. */
export interface ArgumentBriefOptions {
  /** What the call is, before its arguments. @example "Call tidy on files" */
  heading: string;
  /**
   * The tool's input schema. Its `properties` (their `format`) and its `required` list decide which arguments come
   * first; any argument the schema does not name is shown all the same.
   */
  schema: JsonSchema;
}

/**
 * The brief of a tool whose code says nothing of what its arguments will do (an upstream server's): the heading,
 * then one line for every argument, `key: value`. No argument can push another out of sight:
 *
 * - **Every key is shown**, however many there are; under a total budget the values shrink, never the list.
 * - **Where the call acts comes first**: keys whose schema `format` names a place (`path`, `uri`, `hostname`,
 *   `email`, …), then keys named like one (a word of the name is `path`, `file`, `dir`, `target`, `dest`, `url`,
 *   `command`, …), then the schema's `required` keys, then the rest, each group in the order the call gave them.
 * - **A long value is shortened in the middle** and says so with its length (`"aaaa…aaaa" (5,000 chars)`); nested
 *   objects and arrays are written compactly, every string in them shortened the same way, and a long list or object
 *   keeps its first and last members, naming how many are left out between (`…(96 more items)…`).
 * - **Nothing reads other than it is**: quotes and backslashes in strings are escaped, and every control,
 *   bidirectional or invisible character is shown as a visible escape (`\u{202E}`), by the host's one escaper.
 *
 * @example
 * const brief = createArgumentBrief({ heading: "Call tidy on files", schema: tool.inputSchema });
 * brief({ note: "x".repeat(5000), path: "/home/user/.ssh" });
 * // ["Call tidy on files with 2 arguments:",
 * //  '  path: "/home/user/.ssh"',
 * //  '  note: "xxxx…xxxx" (5,000 chars)']
 */
export function createArgumentBrief({
  heading,
  schema,
}: ArgumentBriefOptions): (args: Record<string, unknown>) => string[] {
  const order = keyOrder(schema);
  return (args) => {
    const keys = order(args);
    if (keys.length === 0) return [`${heading} with no arguments`];
    const rooms = shares(
      keys.map((key) => sizeUpTo(args[key], VALUE_MOST)),
      VALUES_ROOM,
    );
    return [
      `${heading} with ${counted(keys.length, "argument")}:`,
      ...keys.map(
        (key, i) => `  ${keyText(key)}: ${valueText(args[key], propertyOf(schema, key), rooms[i] as number, 0)}`,
      ),
    ];
  };
}

// --- internal ---

/** Characters for all the values of one brief together, before each value's floor. */
const VALUES_ROOM = 1_600;
/** Characters for one value, at most. */
const VALUE_MOST = 240;
/** Characters for one value (or one member of a nested one), at least, however many share the brief. */
const VALUE_LEAST = 24;
/** Characters for a key, at most. */
const KEY_MOST = 64;
/** How deep nested objects and arrays are written out; deeper ones are named with their size. */
const DEPTH = 4;

/** Formats that name where a call acts: a file, a resource, a host, a mailbox. */
const WHERE_FORMATS = new Set([
  "path",
  "file-path",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uri-template",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "email",
  "idn-email",
]);

/** Words of a key's name that say it is where a call acts, or what it runs. */
const WHERE_WORDS = new Set([
  "path",
  "paths",
  "filepath",
  "file",
  "files",
  "filename",
  "dir",
  "dirs",
  "directory",
  "folder",
  "cwd",
  "root",
  "target",
  "targets",
  "dest",
  "destination",
  "src",
  "source",
  "url",
  "uri",
  "href",
  "endpoint",
  "host",
  "command",
  "cmd",
  "script",
  "exec",
  "program",
]);

const NUMBER = new Intl.NumberFormat("en-US");

function counted(n: number, unit: string): string {
  return `${n < 1000 ? String(n) : NUMBER.format(n)} ${unit}${n === 1 ? "" : "s"}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function propertyOf(schema: unknown, key: string): unknown {
  const properties = isRecord(schema) ? schema.properties : undefined;
  return isRecord(properties) && Object.hasOwn(properties, key) ? properties[key] : undefined;
}

function itemsOf(schema: unknown): unknown {
  return isRecord(schema) ? schema.items : undefined;
}

/** Whether a property's schema (or, for a list, its items' schema, or one of its alternatives) has a place's format. */
function hasWhereFormat(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  if (typeof schema.format === "string" && WHERE_FORMATS.has(schema.format)) return true;
  const items = schema.items;
  if (isRecord(items) && typeof items.format === "string" && WHERE_FORMATS.has(items.format)) return true;
  for (const alternatives of [schema.anyOf, schema.oneOf]) {
    if (!Array.isArray(alternatives)) continue;
    for (const alternative of alternatives) {
      if (isRecord(alternative) && typeof alternative.format === "string" && WHERE_FORMATS.has(alternative.format)) {
        return true;
      }
    }
  }
  return false;
}

/** Whether a word of the key's name (camelCase, snake_case, kebab-case or dotted) is one of WHERE_WORDS. */
function namedWhere(key: string): boolean {
  for (const word of key.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/)) {
    if (WHERE_WORDS.has(word.toLowerCase())) return true;
  }
  return false;
}

/** The keys of an object in the order a brief shows them: by rank (see createArgumentBrief), stable within one. */
function keyOrder(schema: unknown): (value: Record<string, unknown>) => string[] {
  const required = new Set(
    isRecord(schema) && Array.isArray(schema.required)
      ? schema.required.filter((k): k is string => typeof k === "string")
      : [],
  );
  const rankOf = (key: string) =>
    hasWhereFormat(propertyOf(schema, key)) ? 0 : namedWhere(key) ? 1 : required.has(key) ? 2 : 3;
  // The schema's own keys are ranked once; a key it does not name is ranked when it comes.
  const known = new Map<string, number>();
  const properties = isRecord(schema) ? schema.properties : undefined;
  if (isRecord(properties)) for (const key of Object.keys(properties)) known.set(key, rankOf(key));
  return (value) => {
    const keys = Object.keys(value);
    const ranks = new Map(keys.map((key) => [key, known.get(key) ?? rankOf(key)]));
    return keys.sort((a, b) => (ranks.get(a) as number) - (ranks.get(b) as number));
  };
}

/**
 * Each value's room: shortest needs served first, no value more than VALUE_MOST nor less than VALUE_LEAST, and what
 * a short value leaves unused goes to the longer ones.
 */
function shares(needs: number[], total: number): number[] {
  const rooms = new Array<number>(needs.length);
  const byNeed = needs.map((_, i) => i).sort((a, b) => (needs[a] as number) - (needs[b] as number));
  let left = total;
  let waiting = needs.length;
  for (const i of byNeed) {
    const fair = Math.max(VALUE_LEAST, Math.floor(left / waiting));
    const room = Math.max(VALUE_LEAST, Math.min(needs[i] as number, fair, VALUE_MOST));
    rooms[i] = room;
    left = Math.max(0, left - room);
    waiting--;
  }
  return rooms;
}

/** About how many characters a value's full rendering takes, counted no further than `limit`. */
function sizeUpTo(value: unknown, limit: number): number {
  if (limit <= 0) return 0;
  if (typeof value === "string") return value.length > limit ? limit : Math.min(limit, escaped(value).length + 2);
  if (typeof value !== "object" || value === null) return Math.min(limit, String(value).length);
  let size = 2;
  if (Array.isArray(value)) {
    for (const member of value) {
      size += sizeUpTo(member, limit - size) + 2;
      if (size >= limit) return limit;
    }
    return size;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    size += keyText(key).length + 4 + sizeUpTo((value as Record<string, unknown>)[key], limit - size);
    if (size >= limit) return limit;
  }
  return size;
}

/** A key as written before its value: bare when it is a plain name, else quoted and escaped like a string. */
function keyText(key: string): string {
  return key.length <= KEY_MOST && /^[A-Za-z_$][\w$.-]*$/.test(key) ? key : quoted(key, KEY_MOST);
}

/** A value in about `room` characters (a shortened one adds its size after). */
function valueText(value: unknown, schema: unknown, room: number, depth: number): string {
  if (typeof value === "string") return quoted(value, Math.max(1, room - 2));
  if (Array.isArray(value)) {
    if (depth >= DEPTH && value.length > 0) return `[…(${counted(value.length, "item")})]`;
    const items = itemsOf(schema);
    return membersText(value.length, room, "[", "]", "item", (i, each) => valueText(value[i], items, each, depth + 1));
  }
  if (isRecord(value)) {
    const keys = keyOrder(schema)(value);
    if (depth >= DEPTH && keys.length > 0) return `{…(${counted(keys.length, "key")})}`;
    return membersText(keys.length, room, "{", "}", "key", (i, each) => {
      const key = keys[i] as string;
      const name = keyText(key);
      return `${name}: ${valueText(value[key], propertyOf(schema, key), Math.max(VALUE_LEAST, each - name.length - 2), depth + 1)}`;
    });
  }
  // Numbers, booleans and null as JSON writes them (arguments are JSON; anything else is written as it converts).
  return typeof value === "number" || typeof value === "boolean" || value === null
    ? String(value)
    : shortened(String(value), Math.max(1, room));
}

/**
 * The members of an object or array, compactly: all of them when they fit in `room`; else the first and the last that
 * fit in half the room each, with how many are left out between, and the whole count after.
 */
function membersText(
  n: number,
  room: number,
  open: string,
  close: string,
  unit: string,
  member: (i: number, each: number) => string,
): string {
  if (n === 0) return `${open}${close}`;
  const each = Math.max(VALUE_LEAST, Math.floor(room / n));
  const all: string[] = [];
  let used = 0;
  for (let i = 0; i < n; i++) {
    const part = member(i, each);
    used += part.length + (i === 0 ? 0 : 2);
    if (used > room) break;
    all.push(part);
  }
  if (all.length === n) return `${open}${all.join(", ")}${close}`;
  const half = room / 2;
  const head: string[] = [];
  used = 0;
  for (const part of all) {
    if (head.length > 0 && used + part.length + 2 > half) break;
    head.push(part);
    used += part.length + 2;
  }
  if (head.length === 0) head.push(member(0, each));
  const tail: string[] = [];
  used = 0;
  for (let i = n - 1; i >= head.length; i--) {
    const part = member(i, each);
    if (tail.length > 0 && used + part.length + 2 > half) break;
    tail.unshift(part);
    used += part.length + 2;
  }
  const left = n - head.length - tail.length;
  // Every member is shown (each shortened to its share): nothing was left out to count.
  if (left === 0) return `${open}${[...head, ...tail].join(", ")}${close}`;
  return `${open}${[...head, `…(${counted(left, `more ${unit}`)})…`, ...tail].join(", ")}${close} (${counted(n, unit)})`;
}

/** A string in quotes, escaped, in at most about `room` characters between them; shortened, it says its length. */
function quoted(text: string, room: number): string {
  if (text.length <= room) {
    const whole = escaped(text);
    if (whole.length <= room) return `"${whole}"`;
  }
  return `"${middleOut(text, room)}" (${counted(codePoints(text), "char")})`;
}

/** Text without quotes, escaped, shortened in the middle when longer than `room`. */
function shortened(text: string, room: number): string {
  const whole = text.length <= room ? showInvisible(text) : undefined;
  if (whole !== undefined && whole.length <= room) return whole;
  return `${middleOut(text, room, false)} (${counted(codePoints(text), "char")})`;
}

/** Quotes and backslashes escaped (so a value cannot seem to end early), then every invisible character. */
function escaped(text: string): string {
  return showInvisible(text.replace(/["\\]/g, "\\$&"));
}

function escapedOne(character: string, quotes: boolean): string {
  return quotes && (character === '"' || character === "\\") ? `\\${character}` : showInvisible(character);
}

/**
 * The text's first and last characters, escaped, about `room` in all, with "…" between: whole characters only (a
 * surrogate pair is never split, an escape never cut), and only as many as are read, however long the text.
 */
function middleOut(text: string, room: number, quotes = true): string {
  const half = Math.max(1, Math.floor((room - 1) / 2));
  const show = quotes ? escaped : showInvisible;
  // The common case, nothing to escape near the ends: each end escaped as one slice.
  let from = half - (isHighSurrogate(text.charCodeAt(half - 1)) ? 1 : 0);
  let head = show(text.slice(0, from));
  if (head.length > half) [head, from] = headOf(text, half, quotes);
  const to = text.length - half + (isLowSurrogate(text.charCodeAt(text.length - half)) ? 1 : 0);
  const tail = to > from ? show(text.slice(to)) : "";
  return `${head}…${to > from && tail.length <= half ? tail : tailOf(text, from, half, quotes)}`;
}

/** The first characters of the text whose escapes fit in `room`, and where they end. */
function headOf(text: string, room: number, quotes: boolean): [string, number] {
  let head = "";
  let at = 0;
  while (at < text.length) {
    const character = String.fromCodePoint(text.codePointAt(at) as number);
    const shown = escapedOne(character, quotes);
    if (head.length + shown.length > room) break;
    head += shown;
    at += character.length;
  }
  return [head, at];
}

/** The last characters of the text after `from` whose escapes fit in `room`. */
function tailOf(text: string, from: number, room: number, quotes: boolean): string {
  const tail: string[] = [];
  let size = 0;
  let at = text.length;
  while (at > from) {
    const pair = at - 2 >= from && isLowSurrogate(text.charCodeAt(at - 1)) && isHighSurrogate(text.charCodeAt(at - 2));
    const character = text.slice(pair ? at - 2 : at - 1, at);
    const shown = escapedOne(character, quotes);
    if (size + shown.length > room) break;
    tail.push(shown);
    size += shown.length;
    at -= character.length;
  }
  return tail.reverse().join("");
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** How many characters (code points) the text holds. */
function codePoints(text: string): number {
  // Most texts hold no surrogate at all: one native scan says so.
  if (!/[\uD800-\uDFFF]/.test(text)) return text.length;
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if (isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1))) {
      n--;
      i++;
    }
  }
  return n;
}
