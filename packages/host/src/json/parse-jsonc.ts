import type { Node, ParseError } from "jsonc-parser";
import { parseTree, printParseErrorCode } from "jsonc-parser";

/** Where JSON text stops being readable, as a person finds it in an editor. */
export interface JsoncSyntaxError {
  /** 1-based. */
  line: number;
  /** 1-based, in characters of the line. */
  column: number;
  /** What is wrong there, e.g. `expected "," or "}"`. */
  message: string;
  /** The line before (when there is one), the line itself and a caret under the column, each numbered. */
  excerpt: string[];
}

/**
 * Reads JSON with comments (`//`, `/* *\/`) and trailing commas, as `tsconfig.json`, `turbo.json` and `biome.json`
 * are read (jsonc-parser, the parser VS Code reads them with). The value is what `JSON.parse` makes of the same JSON
 * without its comments: plain objects and arrays, the last of duplicate keys kept, a `"__proto__"` key an own
 * property like any other. A byte order mark at the start is skipped. Answers the first syntax error otherwise.
 *
 * @example
 * parseJsonc('{ "a": 1, // one\n}') // { value: { a: 1 } }
 */
export function parseJsonc(text: string): { value: unknown } | { error: JsoncSyntaxError } {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const errors: ParseError[] = [];
  const tree = parseTree(source, errors, { allowTrailingComma: true, disallowComments: false });
  const [first] = errors;
  if (first !== undefined) return { error: syntaxError(source, first) };
  if (tree === undefined)
    return { error: syntaxError(source, { error: 4 as ParseError["error"], offset: source.length, length: 0 }) };
  return { value: jsonValueOf(tree) };
}

// --- internal ---

/** A node as JSON.parse would have made it: own properties only (never a prototype set by a "__proto__" key). */
function jsonValueOf(node: Node): unknown {
  switch (node.type) {
    case "object": {
      const object: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? [];
        if (key === undefined || value === undefined) continue;
        Object.defineProperty(object, String(key.value), {
          value: jsonValueOf(value),
          writable: true,
          enumerable: true,
          configurable: true,
        });
      }
      return object;
    }
    case "array":
      return (node.children ?? []).map(jsonValueOf);
    default:
      return node.value;
  }
}

/** What each of jsonc-parser's error codes means to a person editing the file. */
const MESSAGES: Readonly<Record<string, string>> = {
  InvalidSymbol: "this is not JSON here (a key or a string needs double quotes)",
  InvalidNumberFormat: "this number is not written as JSON writes numbers",
  PropertyNameExpected: "expected a key in double quotes",
  ValueExpected: "expected a value (a string, number, object, array, true, false or null)",
  ColonExpected: 'expected ":" after the key',
  CommaExpected: 'expected "," between two entries',
  CloseBraceExpected: 'expected "}" to close the object',
  CloseBracketExpected: 'expected "]" to close the list',
  EndOfFileExpected: "expected the end of the file after the manifest's object",
  InvalidCommentToken: "this comment is not closed",
  UnexpectedEndOfComment: "this comment is not closed (*/ is missing)",
  UnexpectedEndOfString: "this string is not closed (a double quote is missing before the end of the line)",
  UnexpectedEndOfNumber: "this number is not finished",
  InvalidUnicode: "this \\u escape is not four hexadecimal digits",
  InvalidEscapeCharacter: 'this escape is not one JSON allows (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)',
  InvalidCharacter: "this character must be escaped inside a string",
};

/** The longest part of a line shown around the column: the formatter's line width. */
const SHOWN = 120;

function syntaxError(text: string, error: ParseError): JsoncSyntaxError {
  const offset = Math.min(error.offset, text.length);
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const line = text.slice(0, lineStart).split("\n").length;
  const column = offset - lineStart + 1;
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const width = String(line).length;
  const numbered = (n: number, body: string) => `${String(n).padStart(width)} | ${body}`;
  const current = lines[line - 1] ?? "";
  // A long line (a minified manifest) is shown around the column only.
  const from = Math.max(0, Math.min(column - 1 - SHOWN / 2, current.length - SHOWN));
  const shown = `${from > 0 ? "…" : ""}${current.slice(from, from + SHOWN)}${from + SHOWN < current.length ? "…" : ""}`;
  const before = current.slice(from, column - 1).replace(/[^\t]/g, " ");
  const excerpt = [
    ...(line > 1 ? [numbered(line - 1, clip(lines[line - 2] ?? ""))] : []),
    numbered(line, shown),
    `${" ".repeat(width)} | ${from > 0 ? " " : ""}${before}^`,
  ];
  const code = printParseErrorCode(error.error);
  return { line, column, message: MESSAGES[code] ?? code, excerpt };
}

function clip(line: string): string {
  return line.length > SHOWN ? `${line.slice(0, SHOWN)}…` : line;
}
