// The upstream of bench/hub-latency.mjs over stdio: McpServer with one echo tool (zod input and output), served
// with the SDK's serveStdio, nothing else.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const input = z.object({ text: z.string().max(1000).describe("what to echo") });
const output = z.object({ text: z.string() });

serveStdio(() => {
  const server = new McpServer({ name: "raw-sdk-stdio-bench", version: "1.0.0" });
  server.registerTool(
    "bench.echo",
    { title: "Echo", description: "Echo the text back.", inputSchema: input, outputSchema: output },
    async ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { text } }),
  );
  return server;
});
