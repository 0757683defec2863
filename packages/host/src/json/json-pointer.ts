import { escapePointer } from "@skillport/core";

/**
 * The JSON Pointer of the first value nested deeper than `limit` (objects and arrays count), or undefined when
 * none is; found without recursion, so a value nested a million deep is measured without a stack overflow.
 */
export function deeperThan(root: unknown, limit: number): string | undefined {
  const stack: { value: unknown; depth: number; at: string }[] = [{ value: root, depth: 0, at: "" }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, depth, at } = item;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= limit) return at === "" ? "/" : at;
    for (const [key, child] of Object.entries(value)) {
      if (typeof child === "object" && child !== null) {
        stack.push({ value: child, depth: depth + 1, at: `${at}/${escapePointer(key)}` });
      }
    }
  }
  return undefined;
}
