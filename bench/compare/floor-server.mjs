// The floor of bench/compare.mjs: a bare JSON-RPC responder over stdio with no library at all. It answers
// initialize, tools/list (one echo tool) and tools/call, nothing else: what any MCP server must at least do.
import { createInterface } from "node:readline";

const TOOL = {
  name: "bench.echo",
  description: "Echo the text back.",
  inputSchema: { type: "object", properties: { text: { type: "string", maxLength: 1000 } }, required: ["text"] },
};
const reply = (id, result) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (message.method === "initialize") {
    reply(message.id, {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "floor", version: "1.0.0" },
    });
  } else if (message.method === "tools/list") {
    reply(message.id, { tools: [TOOL] });
  } else if (message.method === "tools/call") {
    const text = message.params.arguments?.text ?? "";
    reply(message.id, { content: [{ type: "text", text }] });
  } else {
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } })}\n`,
    );
  }
});
