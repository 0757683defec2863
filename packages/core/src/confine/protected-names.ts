/**
 * The folder names writes may not touch unless a confinement is given others. Each holds a version control
 * system's per-repository settings, which that tool runs as code when a person later uses it in the folder:
 *
 * - `.git`: `core.fsmonitor`, `core.hooksPath`, `core.sshCommand`, `core.pager`, aliases, filters and the hooks
 *   folder all run commands on an ordinary `git status`; a `.git` *file* redirects git to another folder (`gitdir:`).
 * - `.hg`: Mercurial's `.hg/hgrc` runs `[hooks]` and loads Python `[extensions]` from any path.
 * - `.jj`: Jujutsu's `.jj/repo/config.toml` names commands (`ui.pager`, `ui.diff-editor`, `fix.tools`).
 *
 * `.svn` is not on the list: its working-copy folder holds no setting that runs a command. Reads stay allowed.
 */
export const DEFAULT_PROTECTED_NAMES: readonly string[] = Object.freeze([".git", ".hg", ".jj"]);

/**
 * The form a name is compared in: Unicode NFC, default-ignorable code points removed (HFS+ ignores them, the trick
 * behind CVE-2014-9390's `.g\u200cit`), lower case (case-insensitive file systems), trailing dots and spaces
 * removed (Windows drops them). `.GIT`, `.git.` and `.g\u200cit` all compare equal to `.git`.
 */
function normaliseName(name: string): string {
  return name
    .normalize("NFC")
    .replace(/\p{Default_Ignorable_Code_Point}/gu, "")
    .toLowerCase()
    .replace(/[. ]+$/, "");
}

/** The first of `names` that is protected, as configured; undefined when none is. */
export function protectedNameIn(
  names: readonly string[],
  protectedSet: ReadonlyMap<string, string>,
): string | undefined {
  for (const name of names) {
    const hit = protectedSet.get(normaliseName(name));
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** Normalised form → the name as configured, for messages. */
export function protectedSetOf(names: readonly string[]): ReadonlyMap<string, string> {
  return new Map(names.map((n) => [normaliseName(n), n]));
}
