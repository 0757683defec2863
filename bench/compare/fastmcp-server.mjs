// bench/compare.mjs's FastMCP server: FastMCP with the echo tool (zod input) and N-1 filler tools, over stdio.
// `node fastmcp-server.mjs [tools]`.
import { FastMCP } from "fastmcp";
import { z } from "zod";
import { fillerInputZod, fillerName, toolCount } from "./tools.mjs";

const n = toolCount();
const server = new FastMCP({ name: "fastmcp-bench", version: "1.0.0" });
server.addTool({
  name: "bench.echo",
  description: "Echo the text back.",
  parameters: z.strictObject({ text: z.string().max(1000).describe("what to echo") }),
  execute: async ({ text }) => text,
});
for (let i = 1; i < n; i++) {
  server.addTool({
    name: `bench.${fillerName(i)}`,
    description: `Search collection ${i}.`,
    parameters: fillerInputZod(z, i),
    execute: async () => "[]",
  });
}
server.start({ transportType: "stdio" });
