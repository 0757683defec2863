import type { OptionList } from "../options.js";
import { deny, optionTable, parseArgs } from "../options.js";
import type { Checked, PathArg, PolicyExtension, ProgramPolicy, Token } from "../policy.js";
import { optionalText, pathsOf, pathValue, refuse, text } from "../policy.js";

const RUNS = "it runs a program of the caller's choosing";

/** git's own options, before the subcommand. git matches them exactly (no abbreviations); others are refused. */
const GLOBAL: Readonly<Record<string, "flag" | "path" | "text" | { deny: string }>> = {
  "-c": { deny: "it sets configuration for this run, and configuration can run code (core.fsmonitor, aliases, …)" },
  "--config-env": { deny: "it sets configuration for this run, and configuration can run code" },
  "--exec-path": { deny: "it changes where git finds the programs it runs" },
  "--super-prefix": { deny: "it is for git's internal use" },
  "--help": { deny: "it opens the manual in a viewer; call without --help" },
  "-h": { deny: "it opens the manual in a viewer; call without -h" },
  "-C": "path",
  "--git-dir": "path",
  "--work-tree": "path",
  "--namespace": "text",
  "--attr-source": "text",
  "--list-cmds": "text",
  ...Object.fromEntries(
    [
      "--bare",
      "-p",
      "--paginate",
      "-P",
      "--no-pager",
      "--no-replace-objects",
      "--no-lazy-fetch",
      "--no-optional-locks",
      "--no-advice",
      "--literal-pathspecs",
      "--glob-pathspecs",
      "--noglob-pathspecs",
      "--icase-pathspecs",
      "--version",
      "-v",
      "--html-path",
      "--man-path",
      "--info-path",
    ].map((o) => [o, "flag" as const]),
  ),
};

/** Refused whatever the subcommand. */
const COMMON: OptionList = [
  refuse(RUNS, "--exec"),
  refuse(`${RUNS} on the other side of a fetch`, "--upload-pack"),
  refuse(`${RUNS} on the other side of a push`, "--receive-pack"),
  refuse("it writes a file of the caller's choosing", "--output"),
  refuse("it runs the external diff program that configuration names", "--ext-diff"),
  refuse("it runs the text conversion programs that configuration names", "--textconv"),
  refuse("a template folder can install hooks and configuration", "--template"),
  refuse("it sets configuration for this run, and configuration can run code", "--config-env"),
  refuse("it opens the manual in a viewer; call without --help", "--help"),
  text("--format", "--pretty"),
  pathValue("--pathspec-from-file"),
];

const MESSAGE = [text("-m|--message"), pathValue("-F|--file")];
const LOG_TEXT = [
  text("--grep", "--author", "--committer", "--since|--after", "--until|--before", "--date", "-G", "-S", "-L"),
  text("--diff-filter", "--word-diff-regex", "--encoding", "-n|--max-count", "--skip", "--src-prefix"),
  text("--dst-prefix", "--line-prefix", "-I|--ignore-matching-lines", "--anchored", "--find-object"),
  text("--grep-reflog", "--exclude"),
  optionalText("--decorate", "--abbrev", "--color", "--color-words", "--color-moved", "--word-diff", "--relative"),
  optionalText("-U|--unified", "-M|--find-renames", "-C|--find-copies", "-B|--break-rewrites"),
  optionalText("--glob", "--branches", "--tags", "--remotes"),
  pathValue("-O"),
];

/** Merge strategies git ships; any other name runs a `git-merge-<name>` program found on the PATH. */
const STRATEGIES = new Set(["ort", "recursive", "resolve", "octopus", "ours", "subtree"]);
const strategyOption = (short: boolean): OptionList => [
  text(short ? "-s|--strategy" : "--strategy"),
  text("-X|--strategy-option"),
];

interface Subcommand {
  options?: OptionList;
  /** How operands are read: files (confined), text, or a pattern first. @default "paths" */
  operands?: "paths" | "text" | "pattern";
  /** Refused words among the operands (`bisect run`). */
  words?: Readonly<Record<string, string>>;
  /** Further checks on what was read. */
  check?: (tokens: Token[]) => void;
}

/**
 * The subcommands git ships that this policy allows. An alias is never run: git resolves its own commands before
 * aliases, and any other name is refused here. Left out on purpose: those that run programs or open viewers
 * (difftool, mergetool, help, instaweb, web--browse, filter-branch, submodule foreach), serve or send (daemon,
 * send-email, imap-send, upload-pack, receive-pack, shell, http-*), schedule (maintenance), or hold credentials
 * (credential*).
 */
const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  add: { options: [text("--chmod")] },
  am: { options: [text("--patch-format", "-C", "-p", "--directory", "--exclude", "--include", "--resolvemsg")] },
  annotate: { options: [pathValue("--contents", "--ignore-revs-file"), text("-L", "--ignore-rev")] },
  apply: {
    options: [
      refuse("it lets the patch write outside the work tree", "--unsafe-paths"),
      text("--directory", "--exclude", "--include", "-p", "-C", "--whitespace"),
      pathValue("--build-fake-ancestor"),
    ],
  },
  archive: {
    options: [
      refuse("it writes a file of the caller's choosing", "-o|--output"),
      text("--prefix", "--format", "--add-virtual-file", "--mtime"),
      pathValue("--add-file", "--remote"),
    ],
    operands: "text",
  },
  bisect: { words: { run: RUNS, visualize: "it opens a viewer", view: "it opens a viewer" }, operands: "text" },
  blame: {
    options: [pathValue("--contents", "--ignore-revs-file", "-S"), text("-L", "--ignore-rev")],
  },
  branch: {
    options: [text("-u|--set-upstream-to", "--sort", "--points-at"), optionalText("--contains", "--no-contains")],
    operands: "text",
  },
  bundle: {},
  "cat-file": {
    options: [refuse("it runs the filter programs that configuration names", "--filters"), text("--path")],
    operands: "text",
  },
  "check-attr": { options: [text("--source")] },
  "check-ignore": {},
  "check-mailmap": { operands: "text" },
  "check-ref-format": { operands: "text" },
  checkout: { options: [text("-b", "-B", "--orphan", "--conflict")] },
  cherry: { operands: "text" },
  "cherry-pick": { options: [text("-m|--mainline"), ...strategyOption(false)], operands: "text" },
  clean: { options: [text("-e|--exclude")] },
  clone: {
    options: [
      refuse(`${RUNS} on the other side of the clone`, "-u"),
      refuse("it sets configuration in the new repository, and configuration can run code", "-c|--config"),
      pathValue("--separate-git-dir", "--reference", "--reference-if-able"),
      text("-o|--origin", "-b|--branch", "--depth", "--shallow-since", "--shallow-exclude", "-j|--jobs"),
      text("--filter", "--bundle-uri", "--server-option", "--ref-format"),
      optionalText("--recurse-submodules"),
    ],
  },
  commit: {
    options: [
      ...MESSAGE,
      text("-C|--reuse-message", "-c|--reedit-message", "--fixup", "--squash", "--author", "--date"),
      text("--cleanup", "--trailer"),
      pathValue("-t|--template"),
      optionalText("-S|--gpg-sign", "-u|--untracked-files"),
    ],
  },
  "commit-tree": { options: [...MESSAGE, text("-p")], operands: "text" },
  config: { options: [pathValue("-f|--file"), text("--blob", "--type", "--default")], operands: "text" },
  "count-objects": {},
  describe: {
    options: [text("--match", "--exclude", "--candidates"), optionalText("--dirty", "--broken", "--abbrev")],
    operands: "text",
  },
  diff: { options: LOG_TEXT },
  "diff-files": { options: LOG_TEXT },
  "diff-index": { options: LOG_TEXT },
  "diff-tree": { options: LOG_TEXT },
  fetch: {
    options: [
      text("--depth", "--deepen", "--shallow-since", "--shallow-exclude", "--refmap", "-j|--jobs"),
      text("--negotiation-tip", "--filter", "-o|--server-option"),
      optionalText("--recurse-submodules"),
    ],
  },
  "for-each-ref": {
    options: [text("--sort", "--count", "--points-at"), optionalText("--contains", "--no-contains")],
    operands: "text",
  },
  "format-patch": {
    options: [
      pathValue("-o|--output-directory", "--signature-file", "--description-file"),
      text("--subject-prefix", "--suffix", "--in-reply-to", "--to", "--cc", "--signature", "--base"),
      text("--interdiff", "--range-diff", "-v|--reroll-count", "--add-header", "--creation-factor"),
      optionalText("--from"),
    ],
  },
  fsck: {},
  gc: { options: [optionalText("--prune")] },
  grep: {
    options: [
      refuse(RUNS, "-O|--open-files-in-pager"),
      pathValue("-f"),
      text("-e", "--threads", "-m|--max-count", "-A|--after-context", "-B|--before-context", "-C|--context"),
      text("--max-depth"),
    ],
    operands: "pattern",
  },
  "hash-object": { options: [text("--path", "-t")] },
  init: {
    options: [
      pathValue("--separate-git-dir"),
      text("-b|--initial-branch", "--object-format", "--ref-format"),
      optionalText("--shared"),
    ],
  },
  "interpret-trailers": { options: [text("--trailer", "--where", "--if-exists", "--if-missing")] },
  log: { options: LOG_TEXT },
  "ls-files": {
    options: [
      pathValue("-X|--exclude-from"),
      text("-x|--exclude", "--exclude-per-directory"),
      optionalText("--abbrev"),
    ],
  },
  "ls-remote": {
    options: [refuse(`${RUNS} on the other side`, "-u"), text("--sort", "-o|--server-option")],
  },
  "ls-tree": { options: [optionalText("--abbrev")] },
  merge: { options: [...MESSAGE, ...strategyOption(true), text("--into-name", "--cleanup")], operands: "text" },
  "merge-base": { operands: "text" },
  "merge-file": { options: [text("-L")] },
  "merge-tree": { operands: "text" },
  mktag: {},
  mktree: {},
  mv: {},
  "name-rev": { options: [text("--refs", "--exclude")], operands: "text" },
  notes: { options: [...MESSAGE, text("--ref", "-C|--reuse-message", "-c|--reedit-message")], operands: "text" },
  "pack-refs": {},
  prune: { options: [text("--expire")], operands: "text" },
  pull: {
    options: [
      ...strategyOption(true),
      text("--depth", "--deepen", "--shallow-since", "--shallow-exclude", "--refmap", "-j|--jobs"),
      text("-o|--server-option"),
      optionalText("--recurse-submodules", "--rebase"),
    ],
  },
  push: {
    options: [text("-o|--push-option", "--repo"), optionalText("--force-with-lease", "--signed")],
  },
  "range-diff": { options: [text("--creation-factor")], operands: "text" },
  "read-tree": { options: [text("--prefix"), pathValue("--index-output")], operands: "text" },
  rebase: {
    options: [refuse(RUNS, "-x"), text("--onto"), ...strategyOption(true)],
    operands: "text",
  },
  reflog: { options: [text("--expire", "--expire-unreachable")], operands: "text" },
  remote: { options: [text("-t", "-m")] },
  repack: {},
  reset: {},
  restore: { options: [text("-s|--source")] },
  revert: { options: [text("-m|--mainline"), ...strategyOption(false)], operands: "text" },
  "rev-list": { options: LOG_TEXT },
  "rev-parse": { options: [text("--prefix", "--default", "--git-path"), optionalText("--short")] },
  rm: {},
  shortlog: {
    options: [
      text("--group", "--since|--after", "--until|--before", "--author", "--committer", "--grep"),
      optionalText("-w"),
    ],
  },
  show: { options: LOG_TEXT },
  "show-branch": { operands: "text" },
  "show-ref": { operands: "text" },
  "sparse-checkout": { operands: "text" },
  stash: { options: [text("-m|--message")] },
  status: { options: [optionalText("-u|--untracked-files", "--ignore-submodules", "--ignored", "--column")] },
  stripspace: {},
  switch: { options: [text("-c|--create", "-C|--force-create", "--orphan", "--conflict")] },
  "symbolic-ref": { options: [text("-m")], operands: "text" },
  tag: {
    options: [
      ...MESSAGE,
      text("-u|--local-user", "--cleanup", "--sort", "--points-at"),
      optionalText("--contains", "--no-contains", "--merged", "--no-merged", "--column"),
    ],
    operands: "text",
  },
  "update-index": { options: [text("--cacheinfo", "--chmod")] },
  "update-ref": { options: [text("-m")], operands: "text" },
  var: { operands: "text" },
  "verify-commit": { operands: "text" },
  "verify-tag": { operands: "text" },
  version: {},
  whatchanged: { options: LOG_TEXT },
  worktree: { options: [text("-b", "-B", "--reason", "--expire")] },
  "write-tree": { options: [text("--prefix")] },
};

/** Forms of `git config` that only read. */
const CONFIG_READS = new Set(["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"]);
const CONFIG_VERBS = new Set(["get", "list"]);

/** What run_command needs to know about a git call beyond its policy: the options that choose the repository. */
export interface GitCall {
  /** `-C`, `--git-dir`, `--work-tree` and `--bare` as given, to find the same repository when checking its config. */
  repository: string[];
}

/**
 * git: the global options that set configuration or change where git finds its programs are refused; only git's
 * own subcommands run (never an alias); per subcommand, the options that run programs (`--upload-pack`, `-u` of
 * clone, `--exec`, `-x` of rebase, `-O` of grep, `--ext-diff`, `--textconv`, unknown merge strategies), write files
 * of the caller's choosing (`--output`), set configuration (`clone -c`) or install templates are refused, and
 * `ext::` URLs too. `git config` may only read. Paths (operands and path-valued options) must resolve inside the
 * roots. The hardened environment and the repository config check (git-hardening.ts) do the rest.
 */
export const GIT: Readonly<Record<string, ProgramPolicy>> = {
  git: {
    summary:
      "git's own subcommands (no aliases); options that run programs, set configuration or write elsewhere are refused",
    check: (args, extension) => checkGit(args, extension),
  },
};

/** Reads a git call; exported for run_command, which also needs the repository options. */
export function checkGit(args: readonly string[], extension: PolicyExtension): Checked & { git: GitCall } {
  const tokens: Token[] = [];
  const paths: PathArg[] = [];
  const repository: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("-")) break;
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq !== -1 ? arg.slice(0, eq) : arg;
    const kind = GLOBAL[name] ?? (arg.startsWith("-c") && arg.length > 2 ? GLOBAL["-c"] : undefined);
    if (kind === undefined) {
      throw deny(i, `git option ${name} is not one this policy accepts before the subcommand`);
    }
    if (typeof kind === "object") throw deny(i, `git option ${name} is refused: ${kind.deny}`);
    if (extension.options.some((spec) => spec.names.includes(name))) {
      throw deny(i, `git option ${name} is refused by this server's policy for git`);
    }
    const token: Token = { type: "option", index: i, spelling: name, name, spec: undefined };
    tokens.push(token);
    if (kind === "flag") {
      if (name === "--bare") repository.push(arg);
      continue;
    }
    if (eq !== -1) {
      token.value = arg.slice(eq + 1);
      token.valueIndex = i;
    } else if (i + 1 < args.length) {
      i++;
      token.value = args[i] as string;
      token.valueIndex = i;
    }
    if (kind === "path" && token.value !== undefined) {
      paths.push({ index: token.valueIndex as number, path: token.value });
      repository.push(name, token.value);
    }
  }
  const name = args[i];
  if (name === undefined) return { args: [...args], paths, tokens, git: { repository } };
  const subcommand = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (subcommand === undefined) {
    throw deny(
      i,
      `git ${JSON.stringify(name)} is not a git subcommand this policy allows (aliases are never run); allowed: ${Object.keys(SUBCOMMANDS).join(", ")}`,
    );
  }
  if (extension.words.has(name)) throw deny(i, `git ${name} is refused by this server's policy for git`);
  tokens.push({ type: "operand", index: i, value: name });
  const table = optionTable(COMMON, subcommand.options ?? [], extension.options);
  const rest = parseArgs(args, i + 1, table, { program: `git ${name}` });
  tokens.push(...rest);
  for (const t of rest) {
    if (t.type === "operand") {
      const why = subcommand.words?.[t.value];
      if (why !== undefined) throw deny(t.index, `git ${name} ${t.value} is refused: ${why}`);
    }
    if (t.value !== undefined && /^ext::/i.test(t.value)) {
      const at = t.type === "operand" ? t.index : (t.valueIndex ?? t.index);
      throw deny(at, `git URL ${JSON.stringify(t.value)} uses the ext:: transport, which ${RUNS}`);
    }
    if (t.type === "option" && t.name === "--strategy" && t.value !== undefined && !STRATEGIES.has(t.value)) {
      throw deny(
        t.valueIndex ?? t.index,
        `git merge strategy ${JSON.stringify(t.value)} is not one git ships (${[...STRATEGIES].join(", ")}); another name runs a git-merge-${t.value} program`,
      );
    }
  }
  if (name === "config") checkConfigReadOnly(rest);
  subcommand.check?.(rest);
  const operands = subcommand.operands ?? "paths";
  paths.push(
    ...pathsOf(rest, (ops) => {
      if (operands === "text") return [];
      const patternGiven = rest.some((t) => t.type === "option" && ["-e", "-f"].includes(t.name));
      const files = operands === "pattern" && !patternGiven ? ops.slice(1) : ops;
      return files.map((o) => ({ index: o.index, path: o.value }));
    }),
  );
  return { args: [...args], paths, tokens, git: { repository } };
}

/**
 * The options before git's subcommand that choose the repository (`-C`, `--git-dir`, `--work-tree`, `--bare`), read
 * without judging anything else: for a git the manifest runs with `"arguments": "paths"` or `"any"`, whose
 * repository config is still checked.
 */
export function repositoryOptions(args: readonly string[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("-")) break;
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq !== -1 ? arg.slice(0, eq) : arg;
    if (name === "--bare") found.push(arg);
    if (!["-C", "--git-dir", "--work-tree", "-c", "--namespace", "--config-env", "--attr-source"].includes(name))
      continue;
    const value = eq !== -1 ? arg.slice(eq + 1) : args[++i];
    if (value !== undefined && ["-C", "--git-dir", "--work-tree"].includes(name)) found.push(name, value);
  }
  return found;
}

// --- internal ---

function checkConfigReadOnly(tokens: Token[]): void {
  const options = tokens.filter((t): t is Token & { type: "option" } => t.type === "option");
  const reads = options.some((t) => CONFIG_READS.has(t.spelling));
  const firstOperand = tokens.find((t): t is Token & { type: "operand" } => t.type === "operand");
  const verb = firstOperand !== undefined && CONFIG_VERBS.has(firstOperand.value);
  const unknown = options.find(
    (t) =>
      !CONFIG_READS.has(t.spelling) &&
      ![
        "--show-origin",
        "--show-scope",
        "--name-only",
        "-z",
        "--null",
        "--local",
        "--worktree",
        "--global",
        "--system",
        "--file",
        "--blob",
        "--type",
        "--bool",
        "--int",
        "--bool-or-int",
        "--path",
        "--expiry-date",
        "--default",
        "--includes",
        "--no-includes",
        "--fixed-value",
        "--all",
      ].includes(t.name),
  );
  if (unknown !== undefined) {
    throw deny(
      unknown.index,
      `git config ${unknown.spelling} is refused: git config may only read here (--get, --list)`,
    );
  }
  if (!reads && !verb) {
    throw deny(
      firstOperand?.index ?? 0,
      "git config may only read here: use --get <key>, --get-regexp, --list, or git config get/list",
    );
  }
}
