// The baseline: a minimal server straight on the SDK's createMcpHandler (McpServer, one echo tool, zod input),
// bridged to node:http the simplest way (buffer the body, build a Request, copy the Response back).
// Prints {"msg":"listening","url":…} on stderr once bound.
import { createServer } from "node:http";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

const input = z.object({ text: z.string().max(1000).describe("what to echo") });
const output = z.object({ text: z.string() });

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "raw-sdk-bench", version: "1.0.0" });
  server.registerTool(
    "bench.echo",
    { title: "Echo", description: "Echo the text back.", inputSchema: input, outputSchema: output },
    async ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { text } }),
  );
  return server;
});

const http = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {}),
  });
  const response = await handler.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
http.listen(0, "127.0.0.1", () => {
  process.stderr.write(`${JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${http.address().port}/mcp` })}\n`);
});
process.on("SIGTERM", () => http.close(() => process.exit(0)));
