// bench/compare.mjs's tmcp server: tmcp's McpServer (zod through @tmcp/adapter-zod) over @tmcp/transport-stdio,
// the echo tool (input and output schema) and N-1 filler tools. `node tmcp-server.mjs [tools]`;
// bench/compare-memory.mjs imports `createTmcpServer` to serve it in memory.
import { pathToFileURL } from "node:url";
import { ZodJsonSchemaAdapter } from "@tmcp/adapter-zod";
import { StdioTransport } from "@tmcp/transport-stdio";
import { McpServer } from "tmcp";
import { z } from "zod";
import { fillerInputZod, fillerName, toolCount } from "./tools.mjs";

/** tmcp's server with the echo tool and n-1 fillers. */
export function createTmcpServer(n) {
  const server = new McpServer(
    { name: "tmcp-bench", version: "1.0.0", description: "bench" },
    { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: { listChanged: false } } },
  );
  server.tool(
    {
      name: "bench.echo",
      title: "Echo",
      description: "Echo the text back.",
      schema: z.strictObject({ text: z.string().max(1000).describe("what to echo") }),
      outputSchema: z.object({ text: z.string() }),
    },
    async ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { text } }),
  );
  for (let i = 1; i < n; i++) {
    server.tool(
      {
        name: `bench.${fillerName(i)}`,
        title: "Lookup",
        description: `Search collection ${i}.`,
        schema: fillerInputZod(z, i),
      },
      async () => ({ content: [{ type: "text", text: "[]" }] }),
    );
  }
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  new StdioTransport(createTmcpServer(toolCount())).listen();
}
