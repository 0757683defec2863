// bench/compare.mjs's tmcp server: tmcp's McpServer (zod through @tmcp/adapter-zod) over @tmcp/transport-stdio,
// the echo tool (input and output schema) and N-1 filler tools. `node tmcp-server.mjs [tools] [envelope]`;
// bench/compare-memory.mjs imports `createTmcpServer` to serve it in memory. With `envelope`, echo answers what
// Skillport's echo answers (its result envelope, advertised as its output schema), so the client's share is the same.
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { ZodJsonSchemaAdapter } from "@tmcp/adapter-zod";
import { StdioTransport } from "@tmcp/transport-stdio";
import { McpServer } from "tmcp";
import { z } from "zod";
import { fillerInputZod, fillerName, toolCount } from "./tools.mjs";

/** tmcp's server with the echo tool and n-1 fillers; `envelope`: echo answers Skillport's result envelope. */
export function createTmcpServer(n, envelope = false) {
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
      outputSchema: envelope ? envelopeOf(z.object({ text: z.string() })) : z.object({ text: z.string() }),
    },
    envelope
      ? answerEnvelope
      : async ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { text } }),
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

/** Skillport's result envelope around `data`, as its tools advertise it. */
const envelopeOf = (data) =>
  z.object({
    ok: z.boolean(),
    message: z.string(),
    data: data.optional(),
    evidencePaths: z.array(z.string()).optional(),
    warnings: z.array(z.string()).optional(),
    error: z.looseObject({ code: z.unknown(), retryable: z.unknown(), traceId: z.unknown() }).optional(),
    meta: z.looseObject({}),
  });

/** Echo's answer as Skillport's echo gives it: the envelope, and its text rendering. */
async function answerEnvelope({ text }) {
  const started = performance.now();
  const data = { text };
  const structuredContent = {
    ok: true,
    message: "Echo: done",
    data,
    evidencePaths: [],
    warnings: [],
    meta: {
      traceId: randomUUID(),
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      tool: "bench.echo",
      toolVersion: "1.0.0",
    },
  };
  return { content: [{ type: "text", text: `Echo: done\n${JSON.stringify(data)}` }], structuredContent };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  new StdioTransport(createTmcpServer(toolCount(), process.argv[3] === "envelope")).listen();
}
