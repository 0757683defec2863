import path from "node:path";
import { SkillError } from "@skillport/core";

/**
 * Configuration git reads from the command line outranks every file, so these switch off what a repository's own
 * config could otherwise turn on: no fsmonitor program, no hooks (the hooks path is not a folder), no credential
 * helper, no ext:: transport, and no bare repository found by walking up from the cwd (a folder holding `HEAD`,
 * `objects/`, `refs/` and a `config` is a repository anyone who can write files can build; only protected
 * configuration such as the command line can refuse it).
 */
const COMMAND_LINE_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["credential.helper", ""],
  ["protocol.ext.allow", "never"],
  ["safe.bareRepository", "explicit"],
];

/**
 * The environment git runs with: the instance's own, plus a hardened configuration. System and global config are
 * ignored (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_SYSTEM` and `GIT_CONFIG_GLOBAL` set to /dev/null, whatever HOME is),
 * the pager is `cat`, the editors are `true` (nothing waits for a person), prompts are off, only the file, git,
 * http(s) and ssh transports are allowed, and COMMAND_LINE_CONFIG is added after any `GIT_CONFIG_COUNT` entries the
 * manifest sets.
 */
export function gitEnvironment(env: Readonly<Record<string, string>>): Record<string, string> {
  const hardened: Record<string, string> = {
    GIT_ALLOW_PROTOCOL: "file:git:http:https:ssh",
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_SYSTEM: "/dev/null",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_EDITOR: "true",
    GIT_SEQUENCE_EDITOR: "true",
    GIT_TERMINAL_PROMPT: "0",
  };
  const first = Number.parseInt(env.GIT_CONFIG_COUNT ?? "0", 10);
  const start = Number.isInteger(first) && first > 0 ? first : 0;
  COMMAND_LINE_CONFIG.forEach(([key, value], i) => {
    hardened[`GIT_CONFIG_KEY_${start + i}`] = key;
    hardened[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  hardened.GIT_CONFIG_COUNT = String(start + COMMAND_LINE_CONFIG.length);
  return hardened;
}

/** Runs git with the given arguments (in the call's cwd, environment and sandbox) and returns what it printed. */
export type GitRunner = (args: string[]) => Promise<{ exitCode: number | null; stdout: string; stderr: string }>;

/**
 * Refuses to run git in a repository whose own configuration could run code or reach outside the roots. git cannot
 * be told to ignore a repository's config, so it is read first — by git itself, with the hardened environment,
 * `git config --list --show-origin --show-scope -z` for the same repository the call will use — and every key in
 * EXECUTING_KEYS is refused with PERMISSION_DENIED naming the key and the file. The repository's folders must lie
 * inside the roots too (a `.git` file can point anywhere).
 *
 * @param repository the call's `-C`, `--git-dir`, `--work-tree`, `--bare` options, to find the same repository
 * @param inside whether an absolute path lies inside the roots
 */
export async function checkGitRepository(
  run: GitRunner,
  repository: readonly string[],
  cwd: string,
  inside: (real: string) => Promise<boolean>,
): Promise<void> {
  const dirs = await run([
    ...repository,
    "rev-parse",
    "--path-format=absolute",
    "--absolute-git-dir",
    "--git-common-dir",
  ]);
  // Outside a repository (git init, clone, --version need none) there is no folder to check, and no local config.
  for (const dir of dirs.exitCode === 0 ? dirs.stdout.split("\n").filter(Boolean) : []) {
    if (!(await inside(dir))) {
      throw new SkillError({
        code: "PERMISSION_DENIED",
        field: "/cwd",
        message: `git would use the repository folder ${dir}, which is outside the roots (a .git file or core.worktree can point anywhere); run git only in repositories inside the roots`,
      });
    }
  }
  const listed = await run([...repository, "config", "--list", "--show-origin", "--show-scope", "-z"]);
  if (listed.exitCode !== 0) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/cwd",
      message: `git's configuration for this repository could not be read, so it cannot be checked for settings that run programs: ${listed.stderr.trim().slice(0, 300)}`,
    });
  }
  for (const entry of parseConfigList(listed.stdout)) {
    if (entry.scope === "command") continue; // ours, from the hardened environment
    const why = executingKey(entry.key, entry.value);
    if (why === undefined) continue;
    const file = entry.origin.startsWith("file:") ? path.resolve(cwd, entry.origin.slice(5)) : entry.origin;
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/cwd",
      message: `git refused: ${file} sets ${entry.key}, which ${why}. This server does not run git in a repository whose configuration can run programs; remove the setting (git config --unset ${entry.key}) if you did not put it there`,
    });
  }
}

/**
 * Why a config key is refused, or undefined when it is harmless. Keys are compared case-insensitively (as git
 * does for section and key names); values decide only where a key has a harmless form (`alias.x` not starting with
 * `!`, `pager.log = false`).
 */
function executingKey(key: string, value: string): string | undefined {
  const k = key.toLowerCase();
  for (const [pattern, why, harmless] of EXECUTING_KEYS) {
    if (pattern.test(k) && !(harmless?.(value) ?? false)) return why;
  }
  return undefined;
}

// --- internal ---

const RUNS = "runs a program";
const isBoolean = (v: string) => /^(true|false|yes|no|on|off|1|0)?$/i.test(v.trim());
const isFalse = (v: string) => /^(false|no|off|0)?$/i.test(v.trim());

/** [key pattern (lower case), why it is refused, when its value makes it harmless]. */
const EXECUTING_KEYS: ReadonlyArray<readonly [RegExp, string, ((value: string) => boolean)?]> = [
  [/^core\.fsmonitor$/, `${RUNS} on every status`, isFalse],
  [/^core\.hookspath$/, "chooses the hooks git runs"],
  [/^core\.(pager|editor|sshcommand|gitproxy|askpass|alternaterefscommand)$/, RUNS],
  [/^core\.worktree$/, "points the work tree at another folder, possibly outside the roots"],
  [/^sequence\.editor$/, RUNS],
  [/^pager\..+$/, RUNS, isBoolean],
  [/^alias\..+$/, `${RUNS} when it starts with "!"`, (v) => !v.trimStart().startsWith("!")],
  [/^filter\..+\.(clean|smudge|process)$/, `${RUNS} on files`],
  [/^diff\..+\.(textconv|command)$/, `${RUNS} on files`],
  [/^diff\.external$/, RUNS],
  [/^merge\..+\.driver$/, RUNS],
  [/^credential\.(.+\.)?helper$/, RUNS, (v) => v.trim() === ""],
  [/^include\.path$/, "includes another file's settings, unchecked"],
  [/^includeif\..+\.path$/, "includes another file's settings, unchecked"],
  [/^gpg\.(.+\.)?program$/, RUNS],
  [/^gpg\.ssh\.defaultkeycommand$/, RUNS],
  [/^remote\..+\.(uploadpack|receivepack|vcs)$/, RUNS],
  [/^submodule\..+\.update$/, `${RUNS} when it starts with "!"`, (v) => !v.trimStart().startsWith("!")],
  [/^uploadpack\.packobjectshook$/, RUNS],
  [/^(difftool|mergetool|man|browser|guitool)\..+\.(cmd|path)$/, RUNS],
  [/^(web|help)\.browser$/, RUNS],
  [/^interactive\.difffilter$/, RUNS],
  [/^tar\..+\.command$/, RUNS],
  [/^trailer\..+\.(command|cmd)$/, RUNS],
  [/^sendemail\./, "configures mail sending, which runs programs"],
  [/^trace2\./, "writes trace files wherever it names"],
  [/^commit\.template$/, "reads a file of its choosing into commit messages"],
  [/^mailmap\.(file|blob)$/, "reads a file of its choosing"],
  [/^http\.(.+\.)?(cookiefile|sslcert|sslkey)$/, "sends a file of its choosing to a server"],
  [/^url\..+\.(insteadof|pushinsteadof)$/, "rewrites URLs to a transport that runs a program", (v) => !/::/.test(v)],
];

interface ConfigEntry {
  scope: string;
  origin: string;
  key: string;
  value: string;
}

/** `git config --list --show-scope --show-origin -z`: scope NUL origin NUL key LF value NUL, repeated. */
function parseConfigList(out: string): ConfigEntry[] {
  const parts = out.split("\0");
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const pair = parts[i + 2] as string;
    const lf = pair.indexOf("\n");
    entries.push({
      scope: parts[i] as string,
      origin: parts[i + 1] as string,
      key: lf === -1 ? pair : pair.slice(0, lf),
      value: lf === -1 ? "" : pair.slice(lf + 1),
    });
  }
  return entries;
}
