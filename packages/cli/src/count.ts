/**
 * A count with its noun, singular for exactly one: `count(1, "tool")` is "1 tool", `count(3, "tool")` "3 tools".
 *
 * @example
 * count(1, "skill instance") // "1 skill instance"
 */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
