// `skillport new` adds its entry to the manifest as text: everything outside the `skills` list stays byte for byte
// as written (formatting, key order, line endings), so the only diff is the new entry.

/** The line width of the repository's formatter (biome.json), which a one-line list must fit in. */
const LINE_WIDTH = 120;

/**
 * `text` (a JSON manifest, already known to parse) with `entry` appended to its top-level `skills` list, written as
 * Biome would: one object on one line. In a list already spread over lines the entry becomes a line of its own after
 * the last one, with its indentation; a list on one line stays on one line if it still fits, else is spread one
 * entry a line. (A whole manifest written on one line is the one case Biome would lay out anew: its object no longer
 * fits on that line either.) Undefined when the manifest has no `skills` list.
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
    return `${text.slice(0, last.end)},${eol}${indent}${objectText(entry, indent, unit, eol)}${text.slice(last.end)}`;
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

/** Where the top-level `skills` array opens and closes, and where each of its items starts and ends. */
function skillsList(text: string): { open: number; close: number; items: Span[] } | undefined {
  let found: { open: number; close: number; items: Span[] } | undefined;
  let i = skip(text, 0);
  if (text[i] !== "{") return undefined;
  i = skip(text, i + 1);
  while (i < text.length && text[i] !== "}") {
    const keyEnd = valueEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const start = skip(text, skip(text, keyEnd) + 1); // past the colon
    const end = valueEnd(text, start);
    // JSON.parse keeps the last of duplicate keys; so does this.
    if (key === "skills" && text[start] === "[") found = { open: start, close: end - 1, items: itemsOf(text, start) };
    i = skip(text, end);
    if (text[i] === ",") i = skip(text, i + 1);
  }
  return found;
}

/** The items of the array opening at `open`. */
function itemsOf(text: string, open: number): Span[] {
  const items: Span[] = [];
  let i = skip(text, open + 1);
  while (i < text.length && text[i] !== "]") {
    const end = valueEnd(text, i);
    items.push({ start: i, end });
    i = skip(text, end);
    if (text[i] === ",") i = skip(text, i + 1);
  }
  return items;
}

/** The index just past the JSON value starting at `i`. */
function valueEnd(text: string, i: number): number {
  const open = text[i];
  if (open === '"') {
    let j = i + 1;
    while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
    return j + 1;
  }
  if (open === "{" || open === "[") {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"') j = valueEnd(text, j) - 1;
      else if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return text.length;
  }
  let j = i;
  while (j < text.length && !/[\s,\]}]/.test(text[j] as string)) j++;
  return j;
}

function skip(text: string, i: number): number {
  let j = i;
  while (j < text.length && /\s/.test(text[j] as string)) j++;
  return j;
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
