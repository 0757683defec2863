import type { OptionList } from "../options.js";
import { deny } from "../options.js";
import type { ProgramPolicy } from "../policy.js";
import { flag, gnuPolicy, optionalText, pathValue, refuse, text } from "../policy.js";

// Programs whose options neither run code nor write outside what their operands name. Their operands are files
// (confined to the roots) or text; options whose values are text are declared, so a value such as "/" (a
// delimiter) is not mistaken for a path. Options that read a *list* of file names from a file are refused: the
// names inside cannot be checked.

const FILE_LIST = "it reads file names from a file, and names inside a file cannot be checked against the roots";

const read = (program: string, summary: string, options: OptionList = []) =>
  gnuPolicy({ program, summary, options: [refuse(FILE_LIST, "--files0-from"), ...options] });

/** Programs that open no file: every argument, option-like or not, is text. */
const textOnly = (summary: string): ProgramPolicy => ({
  summary,
  check: (args) => ({
    args: [...args],
    paths: [],
    tokens: args.map((value, index) => ({ type: "operand" as const, index, value })),
  }),
});

const checksum = (program: string) =>
  read(program, "hashes files inside the roots; --check is refused", [
    refuse(FILE_LIST, "-c|--check"),
    flag("--tag", "-b|--binary", "-t|--text", "-z|--zero"),
  ]);

const BACKUP = [text("-S|--suffix"), optionalText("--backup")];

export const COREUTILS: Readonly<Record<string, ProgramPolicy>> = {
  ls: read("ls", "lists folders inside the roots", [
    text("-I|--ignore", "--hide", "--format", "--sort", "--time-style", "--quoting-style", "--indicator-style"),
    text("-w|--width", "-T|--tabsize", "--block-size", "--time"),
    optionalText("--color", "--hyperlink", "--classify"),
  ]),
  cat: read("cat", "reads files inside the roots"),
  tac: read("tac", "reads files inside the roots", [text("-s|--separator")]),
  nl: read("nl", "numbers lines of files inside the roots", [
    text("-b|--body-numbering", "-d|--section-delimiter", "-f|--footer-numbering", "-h|--header-numbering"),
    text("-i|--line-increment", "-l|--join-blank-lines", "-n|--number-format", "-s|--number-separator"),
    text("-v|--starting-line-number", "-w|--number-width"),
  ]),
  head: read("head", "reads files inside the roots", [text("-n|--lines", "-c|--bytes")]),
  tail: read("tail", "reads files inside the roots", [
    text("-n|--lines", "-c|--bytes", "-s|--sleep-interval", "--pid", "--max-unchanged-stats"),
    optionalText("--follow"),
  ]),
  wc: read("wc", "counts in files inside the roots", [optionalText("--total")]),
  sort: read("sort", "sorts files inside the roots; --compress-program is refused", [
    refuse("it runs a program of the caller's choosing", "--compress-program"),
    pathValue("-o|--output", "-T|--temporary-directory", "--random-source"),
    text("-t|--field-separator", "-k|--key", "-S|--buffer-size", "--parallel", "--batch-size", "--sort"),
  ]),
  uniq: read("uniq", "filters files inside the roots", [
    text("-f|--skip-fields", "-s|--skip-chars", "-w|--check-chars"),
    optionalText("--all-repeated", "--group"),
  ]),
  cut: read("cut", "cuts fields of files inside the roots", [
    text("-b|--bytes", "-c|--characters", "-f|--fields", "-d|--delimiter", "--output-delimiter"),
  ]),
  paste: read("paste", "merges files inside the roots", [text("-d|--delimiters")]),
  join: read("join", "joins files inside the roots", [text("-t", "-e", "-o", "-1", "-2", "-j", "-a", "-v")]),
  comm: read("comm", "compares files inside the roots", [text("--output-delimiter")]),
  fold: read("fold", "wraps lines of files inside the roots", [text("-w|--width")]),
  od: read("od", "dumps files inside the roots", [
    text("-A|--address-radix", "-j|--skip-bytes", "-N|--read-bytes", "-S|--strings", "-t|--format"),
    optionalText("-w|--width"),
  ]),
  base64: read("base64", "encodes files inside the roots", [text("-w|--wrap")]),
  stat: read("stat", "describes files inside the roots", [text("-c|--format", "--printf")]),
  du: read("du", "sizes folders inside the roots", [
    pathValue("-X|--exclude-from"),
    text("--exclude", "-d|--max-depth", "-B|--block-size", "-t|--threshold", "--time-style"),
    optionalText("--time"),
  ]),
  diff: read("diff", "compares files inside the roots", [
    pathValue("--from-file", "--to-file", "-X|--exclude-from"),
    text("-x|--exclude", "-I|--ignore-matching-lines", "--label", "-F|--show-function-line", "-D|--ifdef"),
    text("-W|--width", "--tabsize", "--horizon-lines", "-S|--starting-file", "--palette"),
    text("--line-format", "--old-line-format", "--new-line-format", "--unchanged-line-format"),
    text("--old-group-format", "--new-group-format", "--changed-group-format", "--unchanged-group-format"),
    optionalText("-C|--context", "-U|--unified", "--color"),
  ]),
  cmp: read("cmp", "compares files inside the roots", [text("-i|--ignore-initial", "-n|--bytes")]),
  realpath: read("realpath", "resolves paths inside the roots", [pathValue("--relative-to", "--relative-base")]),
  readlink: read("readlink", "reads links inside the roots"),
  md5sum: checksum("md5sum"),
  sha1sum: checksum("sha1sum"),
  sha256sum: checksum("sha256sum"),
  sha512sum: checksum("sha512sum"),
  mkdir: read("mkdir", "makes folders inside the roots", [text("-m|--mode"), optionalText("--context")]),
  rmdir: read("rmdir", "removes empty folders inside the roots"),
  touch: read("touch", "touches files inside the roots", [pathValue("-r|--reference"), text("-d|--date", "-t")]),
  rm: read("rm", "removes files inside the roots", [optionalText("--interactive")]),
  cp: read("cp", "copies files inside the roots", [
    pathValue("-t|--target-directory"),
    ...BACKUP,
    optionalText("--reflink", "--sparse", "--preserve", "--no-preserve", "--update", "--context"),
  ]),
  mv: read("mv", "moves files inside the roots", [
    pathValue("-t|--target-directory"),
    ...BACKUP,
    optionalText("--update", "--context"),
  ]),
  ln: read("ln", "links files inside the roots", [pathValue("-t|--target-directory"), ...BACKUP]),
  tee: read("tee", "copies its (empty) input to files inside the roots", [optionalText("--output-error")]),
  echo: textOnly("prints its arguments, as text"),
  printf: textOnly("prints its arguments, as text"),
  seq: textOnly("prints numbers"),
  sleep: textOnly("waits"),
  true: textOnly("does nothing"),
  false: textOnly("does nothing"),
  pwd: textOnly("prints the cwd"),
  basename: textOnly("edits names as text, opening no file"),
  dirname: textOnly("edits names as text, opening no file"),
  tr: textOnly("translates its (empty) input; its operands are character sets"),
  date: gnuPolicy({
    program: "date",
    summary: "prints the date; setting the clock is refused",
    options: [
      refuse("it sets the system clock", "-s|--set"),
      pathValue("-f|--file", "-r|--reference"),
      text("-d|--date", "--rfc-3339"),
      optionalText("-I|--iso-8601", "--resolution"),
    ],
    operands: (operands) => {
      for (const o of operands) {
        if (!o.value.startsWith("+")) throw deny(o.index, "date operands other than +FORMAT set the system clock");
      }
      return [];
    },
  }),
};
