import type { JsonSchema } from "./schema.js";

/**
 * One path segment as a JSON Pointer writes it (RFC 6901): `~` as `~0`, `/` as `~1`.
 *
 * @example
 * `/properties/${escapePointer("a/b")}`; // "/properties/a~1b"
 */
export function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * The schema a local `$ref` (`#/$defs/name`, percent-encoded as a URI fragment) points at inside `root`, or
 * undefined when it points nowhere: a name the schema does not have as its own (`#/__proto__` is not the
 * prototype), or a fragment that is not valid percent-encoding.
 *
 * @example
 * resolveRef({ $defs: { id: { type: "string" } } }, "#/$defs/id"); // { type: "string" }
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
