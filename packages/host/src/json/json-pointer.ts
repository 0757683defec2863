import type { JsonSchema } from "@skillport/core";

/** One path segment as a JSON Pointer writes it (RFC 6901): `~` as `~0`, `/` as `~1`. */
export function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

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

/**
 * The schema a local `$ref` (`#/$defs/name`, percent-encoded as a URI fragment) points at inside `root`, or
 * undefined when it points nowhere: a name the schema does not have as its own (`#/__proto__` is not the
 * prototype), or a fragment that is not valid percent-encoding.
 */
export function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined; // malformed percent-encoding (URIError)
    }
    node =
      typeof node === "object" && node !== null && Object.hasOwn(node, key)
        ? (node as Record<string, unknown>)[key]
        : undefined;
  }
  return typeof node === "object" && node !== null ? (node as JsonSchema) : undefined;
}
