import type { Node } from "jsonc-parser";
import { parseTree, visit } from "jsonc-parser";

// `skillport new` adds its entry to the manifest as text: everything outside the `skills` list stays byte for byte
// as written (formatting, key order, line endings, comments), so the only diff is the new entry.
/** The line width of the repository's formatter (biome.json), which a one-line list must fit in. */
const LINE_WIDTH = 120;

/**
 * `text` (a manifest, already known to parse: JSON with comments and trailing commas) with `entry` appended to its
 * top-level `skills` list, written as Biome would: one object on one line. In a list already spread over lines the
 * entry becomes a line of its own after the last one (after a comment that ends that line, which stays with its
 * entry), with its indentation, and a trailing comma when the list had one; a list on one line stays on one line if
 * it still fits (or holds a comment), else is spread one entry a line. (A whole manifest written on one line is the
 * one case Biome would lay out anew: its object no longer fits on that line either.) Undefined when the manifest has
 * no `skills` list.
 */
export function insertSkillEntry(text: string, entry: Record<string, unknown>): string | undefined {
  const list = skillsList(text);
  if (list === undefined) return undefined;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const unit = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  const last = list.items.at(-1);
  const inner = text.slice(list.open + 1, list.close);
  if (inner.includes("\n") && last !== undefined) {
    const indent = indentationAt(text, last.start) ?? `${indentationAt(text, list.open) ?? ""}${unit}`;
    const tail = lineTail(text, last.end);
    const item = `${eol}${indent}${objectText(entry, indent, unit, eol)}${tail.comma ? "," : ""}`;
    const comma = tail.comma ? "" : ",";
    return `${text.slice(0, last.end)}${comma}${text.slice(last.end, tail.end)}${item}${text.slice(tail.end)}`;
  }
  if (list.comments) {
    // A comment inside a list on one line: the entry goes in after the last item, the rest as it was.
    const at = last?.end ?? list.open + 1;
    return `${text.slice(0, at)}${last === undefined ? "" : ", "}${oneLine(entry)}${text.slice(at)}`;
  }
  const lineStart = text.lastIndexOf("\n", list.open) + 1;
  const written = list.items.map((i) => text.slice(i.start, i.end));
  const after = /^\s*,/.test(text.slice(list.close + 1)) ? 1 : 0;
  const flat = `[${[...written, oneLine(entry)].join(", ")}]`;
  if (list.open - lineStart + flat.length + after <= LINE_WIDTH) {
    return `${text.slice(0, list.open)}${flat}${text.slice(list.close + 1)}`;
  }
  const indent = `${leadingSpace(text, lineStart)}${unit}`;
  const items = [...written, objectText(entry, indent, unit, eol)].map((item) => `${indent}${item}`);
  const spread = `[${eol}${items.join(`,${eol}`)}${eol}${leadingSpace(text, lineStart)}]`;
  return `${text.slice(0, list.open)}${spread}${text.slice(list.close + 1)}`;
}

// --- internal ---

interface Span {
  start: number;
  end: number;
}

/**
 * Where the top-level `skills` array opens and closes, where each of its items starts and ends, and whether a
 * comment is inside it. The last of duplicate keys counts, as the host reads it.
 */
function skillsList(text: string): { open: number; close: number; items: Span[]; comments: boolean } | undefined {
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (root?.type !== "object") return undefined;
  const property = (root.children ?? []).filter((p: Node) => p.children?.[0]?.value === "skills").at(-1);
  const list = property?.children?.[1];
  if (list?.type !== "array") return undefined;
  const open = list.offset;
  const close = list.offset + list.length - 1;
  let comments = false;
  visit(text, {
    onComment: (offset) => {
      if (offset > open && offset < close) comments = true;
    },
  });
  const items = (list.children ?? []).map((item: Node) => ({ start: item.offset, end: item.offset + item.length }));
  return { open, close, items, comments };
}

/**
 * What follows an item on its own line: a comma, then a comment that ends the line (`// …`, or a block comment
 * closed on it). `end` is where that line's text ends; `comma` whether the comma is there.
 */
function lineTail(text: string, from: number): { end: number; comma: boolean } {
  let i = from;
  const blanks = () => {
    while (text[i] === " " || text[i] === "\t") i++;
  };
  blanks();
  const comma = text[i] === ",";
  if (comma) i++;
  blanks();
  if (text.startsWith("//", i)) {
    while (i < text.length && text[i] !== "\n" && text[i] !== "\r") i++;
    return { end: i, comma };
  }
  if (text.startsWith("/*", i)) {
    const closed = text.indexOf("*/", i + 2);
    const lineEnd = text.slice(i).search(/\r?\n/);
    if (closed !== -1 && (lineEnd === -1 || closed < i + lineEnd)) return { end: closed + 2, comma };
  }
  // Nothing to keep with the item: the entry goes right after it (and after its comma).
  return { end: comma ? from + text.slice(from).indexOf(",") + 1 : from, comma };
}

/** The whitespace before `at` on its line, when only whitespace precedes it there. */
function indentationAt(text: string, at: number): string | undefined {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const before = text.slice(lineStart, at);
  return /^[ \t]*$/.test(before) ? before : undefined;
}

function leadingSpace(text: string, lineStart: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "";
}

/** An object of plain values as Biome writes it at `indent` as the last item of a list: on one line if it fits. */
function objectText(value: Record<string, unknown>, indent: string, unit: string, eol: string): string {
  const line = oneLine(value);
  if (indent.length + line.length <= LINE_WIDTH) return line;
  const members = Object.entries(value).map(([k, v]) => `${indent}${unit}${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  return `{${eol}${members.join(`,${eol}`)}${eol}${indent}}`;
}

/** `{ "path": "./skills/skill-x", "enabled": false }`: a short object as Biome writes it. */
function oneLine(value: Record<string, unknown>): string {
  const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  return `{ ${members.join(", ")} }`;
}
