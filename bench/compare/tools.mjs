// The tools every server of bench/compare.mjs serves: `echo` (what is called) and, for the larger sizes, filler
// tools with realistic inputs (four fields with descriptions and bounds), the same in every library.

/** The name of the i-th filler tool (i ≥ 1; tool 0 is echo). */
export const fillerName = (i) => `lookup_${String(i).padStart(4, "0")}`;

/** A filler tool's input, as plain JSON Schema (Skillport, the floor). */
export const fillerInputJson = (i) => ({
  type: "object",
  properties: {
    query: { type: "string", minLength: 1, maxLength: 200, description: `Words to look for in collection ${i}` },
    limit: { type: "integer", minimum: 1, maximum: 100, description: "How many results to return" },
    sort: { type: "string", enum: ["relevance", "newest", "oldest"], description: "The order of the results" },
    archived: { type: "boolean", description: "Also search archived records" },
  },
  required: ["query"],
  additionalProperties: false,
});

/** The same input as a zod schema (raw SDK, tmcp, FastMCP). */
export const fillerInputZod = (z, i) =>
  z.strictObject({
    query: z.string().min(1).max(200).describe(`Words to look for in collection ${i}`),
    limit: z.number().int().min(1).max(100).optional().describe("How many results to return"),
    sort: z.enum(["relevance", "newest", "oldest"]).optional().describe("The order of the results"),
    archived: z.boolean().optional().describe("Also search archived records"),
  });

/** How many tools a fixture serves: its first argument, 1 by default. */
export const toolCount = () => Number(process.argv[2] ?? 1);
