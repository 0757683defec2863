/**
 * The names closest to one that does not exist: those `wanted` is within a few typos of (edit distance), or that
 * start with it, the closest first and only the closest. A full name (`notes.serch_notes`) is compared with the full
 * names; a name without the separator (`read_note`) with each name's part after it too, so it finds
 * `notes.read_note`. Empty when nothing is close.
 *
 * @example
 * closestNames("notes.serch_notes", ["notes.search_notes", "notes.read_note"], ".") // ["notes.search_notes"]
 */
export function closestNames(wanted: string, names: Iterable<string>, separator: string, limit = 3): string[] {
  // No tool name is longer (MCP's limit): a longer one is close to none, and comparing it would cost time.
  if (wanted.length > MAX_NAME) return [];
  const target = wanted.toLowerCase();
  const bare = !target.includes(separator);
  // About a typo per four characters, at least one.
  const tolerance = Math.max(1, Math.floor(target.length / 4));
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of names) {
    const full = name.toLowerCase();
    const at = full.indexOf(separator);
    const forms = bare && at !== -1 ? [full, full.slice(at + separator.length)] : [full];
    // A name the user started to type counts as a match; otherwise the fewest edits win. Lengths further apart
    // than the tolerance cannot be within it: most names are passed over without counting edits.
    const score = Math.min(
      ...forms.map((form) =>
        target.length >= 3 && form.startsWith(target)
          ? 0
          : Math.abs(form.length - target.length) > tolerance
            ? Number.POSITIVE_INFINITY
            : distance(target, form),
      ),
    );
    if (score <= tolerance) scored.push({ name, score });
  }
  const best = Math.min(...scored.map((s) => s.score));
  return scored
    .filter((s) => s.score === best)
    .map((s) => s.name)
    .sort()
    .slice(0, limit);
}

// --- internal ---

/** The longest tool name MCP allows. */
const MAX_NAME = 128;

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
