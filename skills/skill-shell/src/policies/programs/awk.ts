import type { SkillError } from "@skillport/core";
import { deny } from "../options.js";
import type { ProgramPolicy, Token } from "../policy.js";
import { gnuPolicy, optionalPath, refuse, text } from "../policy.js";

const UNCHECKABLE = "a program file cannot be checked; pass the program text as the first operand (or with -e)";
const EXTENSION = "it loads code from another file";

/**
 * awk programs can run commands (`system()`, `print | "cmd"`, `"cmd" | getline`), read files (`getline < f`)
 * and write them (`print > f`); mawk, Debian's default awk, has no sandbox mode to switch that off. The policy
 * reads the program text as awk does (strings, regular expressions, comments) and refuses those constructs, and
 * gawk's `@include`/`@load`. Program files (`-f`) are refused: their text cannot be checked here.
 */
export const AWK: Readonly<Record<string, ProgramPolicy>> = Object.fromEntries(
  ["awk", "gawk", "mawk", "nawk"].map((program) => [program, awkPolicy(program)]),
);

function awkPolicy(program: string): ProgramPolicy {
  return gnuPolicy({
    program,
    summary: "runs awk programs without system(), pipes, getline or output redirection; -f is refused",
    options: [
      refuse(UNCHECKABLE, "-f|--file", "-E|--exec"),
      refuse(EXTENSION, "-i|--include", "-l|--load"),
      refuse("mawk's -W options include exec, which runs a program file", "-W"),
      text("-F|--field-separator", "-v|--assign", "-e|--source"),
      optionalPath("-d|--dump-variables", "-p|--profile", "-o|--pretty-print", "-D|--debug"),
    ],
    operands: (operands, tokens) => {
      const sources = tokens.filter(
        (t): t is Token & { type: "option" } => t.type === "option" && t.name === "--source",
      );
      for (const s of sources) checkAwkProgram(s.value ?? "", s.valueIndex ?? s.index, program);
      const rest = sources.length > 0 ? operands : operands.slice(1);
      const first = operands[0];
      if (sources.length === 0 && first !== undefined) checkAwkProgram(first.value, first.index, program);
      // The other operands are files, or `name=value` assignments (text).
      return rest
        .filter((o) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(o.value))
        .map((o) => ({ index: o.index, path: o.value }));
    },
  });
}

/**
 * Refuses an awk program that could run a command, read or write a file other than its input, or load code.
 * Exported for tests.
 */
export function checkAwkProgram(source: string, index: number, program = "awk"): void {
  const refuse = (what: string): SkillError =>
    deny(index, `${program} program refused: ${what}; this policy allows awk only to read its input and print`);
  let previous = ""; // the last significant token, to tell a regular expression from a division
  let inPrint = false;
  let printDepth = 0;
  let depth = 0;
  for (let i = 0; i < source.length; ) {
    const c = source.charAt(i);
    if (c === "\\" && source.charAt(i + 1) === "\n") {
      i += 2; // a continued line
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (c === "#") {
      while (i < source.length && source.charAt(i) !== "\n") i++;
      continue;
    }
    if (c === "\n" || c === ";" || c === "{" || c === "}") {
      if (depth <= printDepth) inPrint = false;
      previous = c;
      i++;
      continue;
    }
    if (c === '"') {
      i = skipQuoted(source, i, '"');
      previous = "string";
      continue;
    }
    if (c === "/" && !endsOperand(previous)) {
      i = skipQuoted(source, i, "/");
      previous = "regex";
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < source.length && /[A-Za-z0-9_]/.test(source.charAt(j))) j++;
      const word = source.slice(i, j);
      if (word === "system") throw refuse("system() runs a command");
      if (word === "getline") throw refuse("getline reads from files or commands");
      if (word === "ARGV" || word === "ARGC") throw refuse(`${word} changes which files awk reads`);
      if (word === "print" || word === "printf") {
        inPrint = true;
        printDepth = depth;
      }
      previous = "name";
      i = j;
      continue;
    }
    if ((c === "+" || c === "-") && source.charAt(i + 1) === c) {
      // x++ / 2 divides; ++x starts an operand. Either way the token after decides nothing else.
      if (!endsOperand(previous)) previous = c;
      i += 2;
      continue;
    }
    if (c === "@") throw refuse("@ directives (@include, @load) and indirect calls load or call code by name");
    if (c === "|") {
      if (source.charAt(i + 1) === "|") {
        previous = "||";
        i += 2;
        continue;
      }
      throw refuse("| pipes to or from a command");
    }
    if (c === ">" && inPrint && depth === printDepth) {
      throw refuse("> after print writes to a file (compare inside parentheses: print (a > b))");
    }
    if (c === "(" || c === "[") depth++;
    if (c === ")" || c === "]") depth--;
    previous = c === ")" || c === "]" ? c : /[0-9.]/.test(c) ? "number" : c === "$" ? "$" : c;
    i++;
  }
}

// --- internal ---

/** Whether a `/` after this token is a division (after an operand) rather than the start of a regular expression. */
function endsOperand(previous: string): boolean {
  return ["name", "number", "string", "regex", ")", "]", "$"].includes(previous);
}

/** The index after a quoted string or regular expression opened at `start`, escapes honoured. */
function skipQuoted(source: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < source.length) {
    const c = source.charAt(i);
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === quote) return i + 1;
    if (quote === "/" && c === "[") {
      // A bracket expression may hold an unescaped "/": skip to its closing bracket.
      i++;
      if (source.charAt(i) === "^") i++;
      if (source.charAt(i) === "]") i++;
      while (i < source.length && source.charAt(i) !== "]") i++;
    }
    if (c === "\n") return i; // unterminated: awk will reject it
    i++;
  }
  return i;
}
