// JSON text laid out exactly as the repository's formatter (Biome, biome.json) writes a .json file, so that a file
// the host generates — manifest.schema.json, a skill lock — is left alone by `biome check` and by the next run.

/** Biome's line width for this repository (biome.json `formatter.lineWidth`). */
const LINE_WIDTH = 120;

/**
 * `value` as JSON text laid out as Biome formats a .json file (2-space indent, line width 120), with a final
 * newline. Keys stay in the order given: sort them first when the order should not depend on how the value was built.
 *
 * - every non-empty object is one key a line (Biome keeps an object expanded when its first key starts a line);
 * - an array is on one line when it holds no non-empty object and fits in the line width (with the comma that may
 *   follow it), else one item a line — except an array of numbers only, which Biome fills: as many numbers a line
 *   as fit.
 *
 * @example formatJson({ b: [1, 2], a: { c: "d" } }) // '{\n  "b": [1, 2],\n  "a": {\n    "c": "d"\n  }\n}\n'
 */
export function formatJson(value: unknown): string {
  return `${layout(value, 0, 0, 0)}\n`;
}

// --- internal ---

/**
 * `value` starting `used` characters into a line indented by `indent`, with `trailing` characters (a comma, or
 * nothing for the last item of a list) following it on that line.
 */
function layout(value: unknown, indent: number, used: number, trailing: number): string {
  const pad = " ".repeat(indent + 2);
  const close = " ".repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const line = oneLine(value);
    if (line !== undefined && used + line.length + trailing <= LINE_WIDTH) return line;
    if (value.every((item) => typeof item === "number")) return `[\n${fill(value as number[], pad)}\n${close}]`;
    const items = value.map(
      (item, i) => `${pad}${layout(item, indent + 2, pad.length, i === value.length - 1 ? 0 : 1)}`,
    );
    return `[\n${items.join(",\n")}\n${close}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return "{}";
    const lines = entries.map(([key, item], i) => {
      const head = `${pad}${JSON.stringify(key)}: `;
      return `${head}${layout(item, indent + 2, head.length, i === entries.length - 1 ? 0 : 1)}`;
    });
    return `{\n${lines.join(",\n")}\n${close}}`;
  }
  return scalar(value);
}

/** A string, number, boolean or null as JSON; a number's exponent without "+", as Biome writes it (1e21). */
function scalar(value: unknown): string {
  return typeof value === "number" ? JSON.stringify(value).replace("e+", "e") : (JSON.stringify(value) ?? "null");
}

/** Numbers filled into lines as Biome fills an array of numbers: each line as full as the width allows. */
function fill(numbers: readonly number[], pad: string): string {
  const items = numbers.map((n, i) => `${scalar(n)}${i === numbers.length - 1 ? "" : ","}`);
  const lines: string[] = [];
  let line = `${pad}${items[0]}`;
  for (const item of items.slice(1)) {
    if (line.length + 1 + item.length <= LINE_WIDTH) line += ` ${item}`;
    else {
      lines.push(line);
      line = `${pad}${item}`;
    }
  }
  lines.push(line);
  return lines.join("\n");
}

/** An array of values, arrays and empty objects on one line, as `["a", 1, {}]`; undefined when it holds an object. */
function oneLine(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    const items = value.map(oneLine);
    return items.includes(undefined) ? undefined : `[${items.join(", ")}]`;
  }
  if (isObject(value)) return Object.values(value).every((item) => item === undefined) ? "{}" : undefined;
  return scalar(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
