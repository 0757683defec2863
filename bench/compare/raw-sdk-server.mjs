// bench/compare.mjs's hand-written server: the official SDK's McpServer with the echo tool (zod input and output)
// and N-1 filler tools, served with the SDK's serveStdio. `node raw-sdk-server.mjs [tools]`; bench/compare-memory.mjs
// imports `createRawSdkServer` to serve it in memory.
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import { fillerInputZod, fillerName, toolCount } from "./tools.mjs";

/** A factory of servers with the echo tool and n-1 fillers (schemas built once). */
export function createRawSdkServer(n) {
  const input = z.strictObject({ text: z.string().max(1000).describe("what to echo") });
  const output = z.object({ text: z.string() });
  const fillers = Array.from({ length: n - 1 }, (_, k) => fillerInputZod(z, k + 1));
  return () => {
    const server = new McpServer({ name: "raw-sdk-bench", version: "1.0.0" });
    server.registerTool(
      "bench.echo",
      { title: "Echo", description: "Echo the text back.", inputSchema: input, outputSchema: output },
      async ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { text } }),
    );
    fillers.forEach((schema, k) => {
      server.registerTool(
        `bench.${fillerName(k + 1)}`,
        { title: "Lookup", description: `Search collection ${k + 1}.`, inputSchema: schema },
        async () => ({ content: [{ type: "text", text: "[]" }] }),
      );
    });
    return server;
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) serveStdio(createRawSdkServer(toolCount()));
