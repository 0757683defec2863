/**
 * The host's one "did you mean": the names closest to one that does not exist (a tool, a manifest field, a package,
 * a tool's argument), those `wanted` is within a few typos of (edit distance), or that start with it, the closest
 * first and only the closest. With a `separator`, a full name (`notes.serch_notes`) is compared with the full names,
 * and a name without the separator (`read_note`) with each name's part after it too, so it finds `notes.read_note`.
 * Empty when nothing is close.
 *
 * @example
 * closestNames("notes.serch_notes", ["notes.search_notes", "notes.read_note"], ".") // ["notes.search_notes"]
 * closestNames("seperator", ["name", "separator", "skills"]) // ["separator"]
 */
export function closestNames(
  wanted: string,
  names: Iterable<string>,
  separator = "",
  options: ClosestNamesOptions = {},
): string[] {
  const { limit = 3 } = options;
  const target = wanted.toLowerCase();
  const bare = separator !== "" && !target.includes(separator);
  // About a typo per four characters, at least one.
  const tolerance = options.maxEdits ?? Math.max(1, Math.floor(target.length / 4));
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of names) {
    const full = name.toLowerCase();
    const at = full.indexOf(separator);
    const forms = bare && at !== -1 ? [full, full.slice(at + separator.length)] : [full];
    // A name the user started to type counts as a match; otherwise the fewest edits win. Lengths further apart than
    // the tolerance cannot be within it: most names are passed over without counting edits, and a very long name
    // (a caller's, unbounded) costs no more than the names it is compared with.
    const score = Math.min(
      ...forms.map((form) =>
        target.length >= 3 && form.startsWith(target)
          ? 0
          : Math.abs(form.length - target.length) > tolerance
            ? Number.POSITIVE_INFINITY
            : distance(target, form),
      ),
    );
    // A name every character of which would change is another name, not a typo of it.
    if (score <= tolerance && score < target.length) scored.push({ name, score });
  }
  const best = Math.min(...scored.map((s) => s.score));
  return scored
    .filter((s) => s.score === best)
    .map((s) => s.name)
    .sort()
    .slice(0, limit);
}

/** Options for {@link closestNames}. */
export interface ClosestNamesOptions {
  /** The most names answered. @default 3 */
  limit?: number;
  /** The most edits a name may be away. @default one per four characters of `wanted`, at least one */
  maxEdits?: number;
}

// --- internal ---

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
function distance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] as number) + 1);
      }
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}
