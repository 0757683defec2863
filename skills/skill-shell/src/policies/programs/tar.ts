import type { OptionTable } from "../options.js";
import { canonicalName, deny, optionTable, parseArgs } from "../options.js";
import type { OptionList, ProgramPolicy, Token } from "../policy.js";
import { allPaths, flag, optionalText, pathsOf, pathValue, refuse, text } from "../policy.js";

const RUNS = "it runs a program of the caller's choosing";

const OPTIONS: OptionList = [
  refuse(RUNS, "--checkpoint-action"),
  refuse(`${RUNS} for every file extracted`, "--to-command"),
  refuse(`${RUNS} to compress or decompress`, "-I|--use-compress-program"),
  refuse(`${RUNS} at the end of each volume`, "-F|--info-script|--new-volume-script"),
  refuse(`${RUNS} to reach a remote archive`, "--rsh-command", "--rmt-command"),
  refuse("absolute and .. member names would write outside the roots", "-P|--absolute-names"),
  refuse("it reads file names from a file, which cannot be checked against the roots", "-T|--files-from"),
  pathValue("-f|--file", "-C|--directory", "-X|--exclude-from", "-g|--listed-incremental"),
  pathValue("--index-file", "--volno-file", "--owner-map", "--group-map"),
  text("-b|--blocking-factor", "-H|--format", "-K|--starting-file", "-L|--tape-length", "-V|--label"),
  text("-N|--newer|--after-date", "--newer-mtime", "--exclude", "--transform|--xform", "--owner", "--group"),
  text("--mode", "--mtime", "--record-size", "--suffix", "--strip-components", "--exclude-tag"),
  text("--exclude-tag-under", "--exclude-tag-all", "--sort", "--hole-detection", "--pax-option"),
  text("--quoting-style", "--quote-chars", "--no-quote-chars", "--warning", "--level", "--sparse-version"),
  text("--xattrs-include", "--xattrs-exclude", "--set-mtime-format"),
  optionalText("--checkpoint", "--occurrence", "--backup", "--one-top-level", "--totals", "--color"),
  flag("--force-local", "-c|--create", "-x|--extract|--get", "-t|--list", "-r|--append", "-u|--update"),
];

/** In the old style (`tar xvf archive`), these letters take the next arguments, in order. */
const OLD_STYLE_VALUES = new Set(["b", "C", "f", "F", "g", "H", "I", "K", "L", "N", "T", "V", "X"]);

/**
 * GNU tar: refuses every option that runs a program (--checkpoint-action, --to-command, -I/--use-compress-program,
 * -F/--info-script/--new-volume-script, --rsh-command, --rmt-command), absolute member names (-P), file lists
 * (-T) and remote archives (`-f host:file`, which run rsh/ssh). Abbreviations (`--checkpoint-act`), bundles
 * (`-xvf`), `--opt=value` and the old style (`tar xvf archive`) are all read.
 */
export const TAR: Readonly<Record<string, ProgramPolicy>> = {
  tar: {
    summary:
      "archives files inside the roots; --checkpoint-action, --to-command, -I, -F, --rsh-command, -P, -T and remote archives are refused",
    check(args, extension) {
      const table = optionTable(OPTIONS, extension.options);
      const { tokens: leading, next } = oldStyle(args, table);
      const tokens = [...leading, ...parseArgs(args, next, table, { program: "tar" })];
      checkRemote(tokens);
      return { args: [...args], paths: pathsOf(tokens, allPaths), tokens };
    },
  },
};

// --- internal ---

/**
 * Reads `tar xvf archive dir` as tar does: a first argument without a dash is a bundle of letters, and the letters
 * that take values consume the following arguments, in order (`tar cfC out.tar dir …`: f ← out.tar, C ← dir).
 */
function oldStyle(args: readonly string[], table: OptionTable): { tokens: Token[]; next: number } {
  const first = args[0];
  if (first === undefined || first.startsWith("-") || !/^[A-Za-z]+$/.test(first)) return { tokens: [], next: 0 };
  const tokens: Token[] = [];
  let next = 1;
  for (const letter of first) {
    const spec = table.short.get(letter);
    const spelling = `-${letter}`;
    if (spec?.deny !== undefined) throw deny(0, `tar option ${letter} (${spelling}) is refused: ${spec.deny}`);
    const token: Token = { type: "option", index: 0, spelling, name: canonicalName(spec) ?? spelling, spec };
    if (OLD_STYLE_VALUES.has(letter) && next < args.length) {
      token.value = args[next] as string;
      token.valueIndex = next;
      next++;
    }
    tokens.push(token);
  }
  return { tokens, next };
}

/** `-f host:file` (without --force-local) reaches the archive through rsh or ssh: a program run for the call. */
function checkRemote(tokens: Token[]): void {
  const forceLocal = tokens.some((t) => t.type === "option" && t.name === "--force-local");
  if (forceLocal) return;
  for (const t of tokens) {
    if (t.type !== "option" || t.name !== "--file" || t.value === undefined) continue;
    const colon = t.value.indexOf(":");
    if (colon > 0 && !t.value.slice(0, colon).includes("/")) {
      throw deny(
        t.valueIndex ?? t.index,
        `tar archive ${JSON.stringify(t.value)} names a remote host, which tar reaches by running rsh or ssh; use a local file (or add --force-local if the colon is part of its name)`,
      );
    }
  }
}
