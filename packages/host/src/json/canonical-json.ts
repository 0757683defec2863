/** A copy of a JSON-like value with every object's keys sorted and `undefined` members left out. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}

/**
 * JSON that does not depend on key order: the same value always gives the same text (for hashes). The text of
 * `JSON.stringify(sortKeys(value))`, written directly, without the sorted copy: a lock's hashes are checked at
 * every start, over every tool's schemas.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value) ?? "null";
}

// --- internal ---

/** One value's canonical text; undefined where JSON.stringify leaves a member out (undefined, a function). */
function canonical(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += `${i === 0 ? "" : ","}${canonical(value[i]) ?? "null"}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = "{";
  for (const key of sortedKeys(record)) {
    const text = canonical(record[key]);
    if (text === undefined) continue;
    out += `${out.length === 1 ? "" : ","}${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}

/**
 * The keys in the order the sorted copy's JSON has them: a sorted copy is a new object, whose integer-like keys
 * ("0", "10") come first, in numeric order, before the others in sorted order.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  // Object.keys already lists integer-like keys first, ascending; only the rest need sorting.
  let first = 0;
  while (first < keys.length && isIndex(keys[first] as string)) first++;
  return first === 0 ? keys.sort() : [...keys.slice(0, first), ...keys.slice(first).sort()];
}

function isIndex(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}
