import { escapePointer } from "@skillport/core";

/** A regular expression a schema holds, and the JSON pointer of where it is written. */
export interface SchemaPattern {
  pattern: string;
  /** `/properties/text/pattern`, or `/patternProperties/^x-` for a key of `patternProperties`. */
  pointer: string;
}

/**
 * Every `pattern` and `patternProperties` key in a JSON Schema, wherever it nests (properties, items, `$defs`,
 * combinators), each with its JSON pointer from the root (`base` first). Values that are data rather than schemas
 * (`const`, `enum`, `default`, `examples`) are not searched. Walks without recursion: a deep schema cannot overflow it.
 *
 * @example
 * schemaPatterns({ properties: { id: { type: "string", pattern: "^[a-z]+$" } } }, "/inputSchema");
 * // [{ pattern: "^[a-z]+$", pointer: "/inputSchema/properties/id/pattern" }]
 */
export function schemaPatterns(schema: unknown, base = ""): SchemaPattern[] {
  const found: SchemaPattern[] = [];
  const stack: { node: unknown; at: string }[] = [{ node: schema, at: base }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, at } = item;
    if (typeof node !== "object" || node === null) continue;
    const isArray = Array.isArray(node);
    const record = node as Record<string, unknown>;
    if (!isArray && typeof record.pattern === "string")
      found.push({ pattern: record.pattern, pointer: `${at}/pattern` });
    const patternProperties = isArray ? undefined : record.patternProperties;
    if (typeof patternProperties === "object" && patternProperties !== null) {
      for (const key of Object.keys(patternProperties)) {
        found.push({ pattern: key, pointer: `${at}/patternProperties/${escapePointer(key)}` });
      }
    }
    // Pushed last child first: popped, and so reported, in the order written.
    const children = Object.entries(record).filter(([key]) => isArray || !VALUE_KEYWORDS.has(key));
    for (const [key, child] of children.reverse()) stack.push({ node: child, at: `${at}/${escapePointer(key)}` });
  }
  return found;
}

// --- internal ---

/** Keywords whose values are data rather than schemas. */
const VALUE_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/**
 * Every pattern of an upstream tool's input and output schemas, each with its JSON pointer into the tool as listed
 * (`/inputSchema/…`, `/outputSchema/…`): the patterns the host compiles with the client's linear engine (RE2), and
 * refuses the tool for when one cannot be (`skillport check` and `skillport lock` report the same ones).
 *
 * @example
 * upstreamPatterns({ inputSchema: { properties: { q: { type: "string", pattern: "^a" } } } });
 * // [{ pattern: "^a", pointer: "/inputSchema/properties/q/pattern" }]
 */
export function upstreamPatterns(tool: { inputSchema: unknown; outputSchema?: unknown }): SchemaPattern[] {
  return [...schemaPatterns(tool.inputSchema, "/inputSchema"), ...schemaPatterns(tool.outputSchema, "/outputSchema")];
}
