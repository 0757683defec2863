import type { OptionList, OptionSpec, Token } from "./options.js";
import { optionTable, parseArgs } from "./options.js";

/** An argument (or the value part of one) that names a file: it must resolve inside the roots. */
export interface PathArg {
  /** Where it is in args (the JSON pointer of a refusal is `/args/<index>`). */
  index: number;
  /** The path as the program will read it: relative to the cwd, or absolute. */
  path: string;
}

/** What a policy decided about a call's arguments, when it did not refuse them. */
export interface Checked {
  /** The arguments to run: the call's own, or a stricter form (sed gets `--sandbox`). */
  args: string[];
  /** Every argument that names a file. */
  paths: PathArg[];
  /** What the parser read, so manifest additions (`policies.<cmd>.deny`) can be applied to it. */
  tokens: Token[];
}

/** The manifest's additions to a policy: more options and words to refuse. */
export interface PolicyExtension {
  /** Options to refuse, as `--long` or `-x`, matched like the program's own (abbreviations, bundles, `=value`). */
  options: readonly OptionSpec[];
  /** Words refused wherever they appear as an operand (for git: as the subcommand too). */
  words: ReadonlySet<string>;
}

/** The argument policy of one program. */
export interface ProgramPolicy {
  /** What it allows and refuses, in one line, for `check` and the README. */
  summary: string;
  /** Throws PERMISSION_DENIED naming the first refused argument; otherwise says what to run and what to confine. */
  check(args: readonly string[], extension: PolicyExtension): Checked;
}

/** How a GNU-style program's operands are read, given what the options were. */
export type OperandRule = (operands: Array<Token & { type: "operand" }>, tokens: Token[]) => PathArg[];

/** Every operand names a file (cat, ls, wc, …). */
export const allPaths: OperandRule = (operands) => operands.map((o) => ({ index: o.index, path: o.value }));

/** What `gnuPolicy` needs to know about a program. */
export interface GnuPolicyOptions {
  program: string;
  /** What it allows and refuses, in one line. */
  summary: string;
  /** Its options: the refused ones, and those taking values (so a separate value is not read as an operand). */
  options?: OptionList;
  /** How its operands are read. @default allPaths */
  operands?: OperandRule;
  /** The arguments to run instead of the call's own (a stricter form). @default the call's own */
  rewrite?: (args: readonly string[]) => string[];
  /** Whether options may follow operands (GNU permutation); false for programs that stop at the first operand. @default true */
  permute?: boolean;
}

/**
 * The policy of a program that parses its arguments like GNU getopt: options read with `parseArgs`, values that are
 * paths confined, operands read by `operands`.
 *
 * @example
 * const cat = gnuPolicy({ program: "cat", summary: "reads files inside the roots" });
 */
export function gnuPolicy(options: GnuPolicyOptions): ProgramPolicy {
  const { program, summary, operands = allPaths, permute = true } = options;
  return {
    summary,
    check(args, extension) {
      const table = optionTable(options.options ?? [], extension.options);
      const tokens = parseArgs(args, 0, table, { program, permute });
      return { args: options.rewrite?.(args) ?? [...args], paths: pathsOf(tokens, operands), tokens };
    },
  };
}

/** Option values that are paths, then what the operand rule says. */
export function pathsOf(tokens: Token[], operands: OperandRule): PathArg[] {
  const paths: PathArg[] = [];
  for (const token of tokens) {
    if (token.type !== "option" || token.value === undefined || token.valueIndex === undefined) continue;
    if ((token.spec?.kind ?? "path") === "path") paths.push({ index: token.valueIndex, path: token.value });
  }
  const ops = tokens.filter((t): t is Token & { type: "operand" } => t.type === "operand");
  return [...paths, ...operands(ops, tokens)];
}

/**
 * Shorthands for option specs. Each argument is one option; its spellings are joined by `|`
 * (`text("-e|--regexp", "--include")` is two options: `-e` alias `--regexp`, and `--include`).
 */
const specs = (names: readonly string[], spec: Omit<OptionSpec, "names">): OptionSpec[] =>
  names.map((n) => ({ names: n.split("|"), ...spec }));
export const flag = (...names: string[]): OptionSpec[] => specs(names, {});
export const text = (...names: string[]): OptionSpec[] => specs(names, { value: "required", kind: "text" });
export const optionalText = (...names: string[]): OptionSpec[] => specs(names, { value: "optional", kind: "text" });
export const optionalPath = (...names: string[]): OptionSpec[] => specs(names, { value: "optional", kind: "path" });
export const pathValue = (...names: string[]): OptionSpec[] => specs(names, { value: "required", kind: "path" });
export const refuse = (why: string, ...names: string[]): OptionSpec[] => specs(names, { value: "optional", deny: why });

export type { OptionList, OptionSpec, Token };
