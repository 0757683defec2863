import { SkillError } from "@skillport/core";

/** One option a program knows: how it is spelled, whether it takes a value, what the value is, or why it is refused. */
export interface OptionSpec {
  /** Every spelling: `-f`, `--file`. */
  names: readonly string[];
  /**
   * `none`: a flag. `required`: `--opt=v`, `--opt v`, `-ov`, `-o v`. `optional`: only `--opt=v` or `-ov`.
   * @default "none"
   */
  value?: "none" | "required" | "optional";
  /**
   * What the value is: a path (it must resolve inside the roots) or free text (a pattern, a message, a number).
   * @default "path"
   */
  kind?: "path" | "text";
  /** When set, the option is refused, and this says why. */
  deny?: string;
}

/** Option specs as tables list them: single specs, or groups made by the shorthands (`text(…)`). */
export type OptionList = ReadonlyArray<OptionSpec | readonly OptionSpec[]>;

/** The options of one program (or one git subcommand), looked up by spelling. */
export interface OptionTable {
  long: ReadonlyMap<string, OptionSpec>;
  short: ReadonlyMap<string, OptionSpec>;
}

/** What the parser read from the arguments. */
export type Token =
  | {
      type: "option";
      /** Where the option is in args. */
      index: number;
      /** As written, without `=value`: `--checkpoint-act`, `-x`. */
      spelling: string;
      /** The option it stands for: its first long name when known (`-f` → `--file`), else the spelling. */
      name: string;
      spec: OptionSpec | undefined;
      value?: string;
      /** Where the value is: the option's own index when attached (`--o=v`, `-ov`), the next one when separate. */
      valueIndex?: number;
    }
  | { type: "operand"; index: number; value: string };

export interface ParseOptions {
  /**
   * Whether options may follow operands (GNU argument permutation). When false, the first operand ends the options.
   * @default true
   */
  permute?: boolean;
  /**
   * What to do with an option the table does not know: read it as a flag, or refuse it.
   * @default "flag"
   */
  unknown?: "flag" | "deny";
  /** The program, for messages. */
  program: string;
}

/** Builds a table from specs (`--long` and `-x` spellings). A later spec for a spelling replaces an earlier one. */
export function optionTable(...lists: readonly OptionList[]): OptionTable {
  const long = new Map<string, OptionSpec>();
  const short = new Map<string, OptionSpec>();
  for (const spec of lists.flat(2)) {
    for (const name of spec.names) {
      if (name.startsWith("--")) long.set(name, spec);
      else if (/^-.$/.test(name)) short.set(name.slice(1), spec);
      // A single-dash word (find's -newer) is no getopt option: programs that have such words match them whole.
    }
  }
  return { long, short };
}

/** Refuses the argument at `index`, saying why and what to do. */
export function deny(index: number, message: string): SkillError {
  return new SkillError({ code: "PERMISSION_DENIED", field: `/args/${index}`, message });
}

/**
 * Reads arguments the way GNU getopt_long and git's parse-options do: `--opt=value` and `--opt value`, unique
 * abbreviations of long options (`--checkpoint-act`), bundled short options (`-xvf archive`, `-ovalue`), `--` ending
 * the options, and options after operands unless `permute` is false. Arguments from `from` on are read.
 *
 * A long option that is a prefix of a refused one is refused too, whether or not the program would read it as that
 * option: `--to-c` could be tar's `--to-command`. An ambiguous abbreviation is refused with a request to spell it out.
 */
export function parseArgs(args: readonly string[], from: number, table: OptionTable, options: ParseOptions): Token[] {
  const tokens: Token[] = [];
  const permute = options.permute ?? true;
  let optionsEnded = false;
  for (let i = from; i < args.length; i++) {
    const arg = args[i] as string;
    if (optionsEnded || arg === "-" || !arg.startsWith("-")) {
      tokens.push({ type: "operand", index: i, value: arg });
      if (!permute) optionsEnded = true;
      continue;
    }
    if (arg === "--") {
      optionsEnded = true;
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const spelling = eq === -1 ? arg : arg.slice(0, eq);
      const found = resolveLong(spelling, table, i, options.program);
      if (found === undefined && options.unknown === "deny") {
        throw deny(
          i,
          `${options.program} option ${spelling} is not one this policy knows; only known options are accepted`,
        );
      }
      const spec = found?.spec;
      const name = found?.name ?? spelling;
      if (spec?.deny !== undefined) throw refused(i, options.program, spelling, name, spec.deny);
      const token: Token = { type: "option", index: i, spelling, name, spec };
      if (eq !== -1) {
        token.value = arg.slice(eq + 1);
        token.valueIndex = i;
      } else if (spec?.value === "required" && i + 1 < args.length) {
        i++;
        token.value = args[i] as string;
        token.valueIndex = i;
      }
      tokens.push(token);
      continue;
    }
    // A bundle of short options: -xvf, -ovalue.
    for (let c = 1; c < arg.length; c++) {
      const letter = arg.charAt(c);
      const spec = table.short.get(letter);
      const spelling = `-${letter}`;
      if (spec === undefined && options.unknown === "deny") {
        throw deny(
          i,
          `${options.program} option ${spelling} is not one this policy knows; only known options are accepted`,
        );
      }
      if (spec?.deny !== undefined) throw refused(i, options.program, spelling, spelling, spec.deny);
      const token: Token = { type: "option", index: i, spelling, name: canonicalName(spec) ?? spelling, spec };
      tokens.push(token);
      if (spec?.value === "required" || spec?.value === "optional") {
        const rest = arg.slice(c + 1);
        if (rest !== "") {
          token.value = rest;
          token.valueIndex = i;
        } else if (spec.value === "required" && i + 1 < args.length) {
          i++;
          token.value = args[i] as string;
          token.valueIndex = i;
        }
        break;
      }
    }
  }
  return tokens;
}

/**
 * Finds the long option a spelling stands for: itself, or the one option it abbreviates. Refuses a prefix of a
 * refused option and an ambiguous abbreviation; undefined when nothing matches.
 */
function resolveLong(
  spelling: string,
  table: OptionTable,
  index: number,
  program: string,
): { name: string; spec: OptionSpec } | undefined {
  const exact = table.long.get(spelling);
  if (exact !== undefined) return { name: canonicalName(exact) ?? spelling, spec: exact };
  if (spelling.length < 3) return undefined;
  const candidates = [...table.long.entries()].filter(([name]) => name.startsWith(spelling));
  const refusedOne = candidates.find(([, spec]) => spec.deny !== undefined);
  if (refusedOne !== undefined) {
    throw refused(index, program, spelling, refusedOne[0], refusedOne[1].deny as string);
  }
  if (candidates.length === 0) return undefined;
  const distinct = new Set(candidates.map(([, spec]) => spec));
  if (distinct.size > 1) {
    throw deny(
      index,
      `${program} option ${spelling} is ambiguous (it could be ${candidates.map(([n]) => n).join(", ")}); spell the option in full`,
    );
  }
  const [name, spec] = candidates[0] as [string, OptionSpec];
  return { name: canonicalName(spec) ?? name, spec };
}

/** The name an option is known by: its first long spelling, else its first one. */
export function canonicalName(spec: OptionSpec | undefined): string | undefined {
  return spec?.names.find((n) => n.startsWith("--")) ?? spec?.names[0];
}

// --- internal ---

function refused(index: number, program: string, spelling: string, name: string, why: string): SkillError {
  const as = spelling === name ? spelling : `${spelling} (an abbreviation of ${name})`;
  return deny(index, `${program} option ${as} is refused: ${why}`);
}
