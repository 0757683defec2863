import type { OperandRule, ProgramPolicy } from "../policy.js";
import { flag, gnuPolicy, optionalText, pathValue, refuse, text } from "../policy.js";

const FOLLOWS = "it follows symbolic links, which may lead out of the roots";

/** The first operand is the pattern unless one was given with `-e`/`-f` (or no pattern is read at all). */
const patternThenPaths =
  (noPattern: readonly string[] = []): OperandRule =>
  (operands, tokens) => {
    const given = tokens.some((t) => t.type === "option" && ["--regexp", "--file", ...noPattern].includes(t.name));
    return (given ? operands : operands.slice(1)).map((o) => ({ index: o.index, path: o.value }));
  };

const grep = (program: string): ProgramPolicy =>
  gnuPolicy({
    program,
    summary: "searches files inside the roots; -R (following links) is refused",
    options: [
      refuse(FOLLOWS, "-R|--dereference-recursive"),
      pathValue("-f|--file", "--exclude-from"),
      text("-e|--regexp", "--include", "--exclude", "--exclude-dir", "-m|--max-count"),
      text("-A|--after-context", "-B|--before-context", "--label", "-d|--directories", "-D|--devices"),
      text("--binary-files", "--group-separator"),
      optionalText("-C|--context", "--color|--colour"),
    ],
    operands: patternThenPaths(),
  });

export const SEARCH: Readonly<Record<string, ProgramPolicy>> = {
  grep: grep("grep"),
  egrep: grep("egrep"),
  fgrep: grep("fgrep"),
  rg: gnuPolicy({
    program: "rg",
    summary: "searches files inside the roots; --pre, --hostname-bin and -L (following links) are refused",
    options: [
      refuse("it runs a program of the caller's choosing on every file searched", "--pre"),
      refuse("it runs a program of the caller's choosing", "--hostname-bin"),
      refuse(FOLLOWS, "-L|--follow"),
      pathValue("-f|--file", "--ignore-file"),
      text("-e|--regexp", "-g|--glob", "--iglob", "-t|--type", "-T|--type-not", "--type-add", "--type-clear"),
      text("-r|--replace", "-m|--max-count", "-A|--after-context", "-B|--before-context", "-C|--context"),
      text("-M|--max-columns", "-d|--max-depth", "--max-filesize", "-j|--threads", "--sort", "--sortr"),
      text("--colors", "--color", "--context-separator", "--field-context-separator", "--field-match-separator"),
      text("--path-separator", "-E|--encoding", "--engine", "--regex-size-limit", "--dfa-size-limit"),
      text("--pre-glob", "--hyperlink-format", "--generate"),
      flag("--files", "--type-list"),
    ],
    operands: patternThenPaths(["--files", "--type-list"]),
  }),
};
