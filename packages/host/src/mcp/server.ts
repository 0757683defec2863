import type { CallToolResult, ListToolsResult } from "@modelcontextprotocol/server";
import { ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { SkillportError } from "../errors.js";
import type { Host } from "../host.js";

/**
 * A factory of low-level SDK servers over one host: tools/list answers from a list built once, and tools/call
 * goes straight to the pipeline through the precompiled dispatch table. The factory is cheap to call per
 * connection (stdio) or per request (HTTP).
 */
export function createServerFactory(host: Host): () => Server {
  const listResult: ListToolsResult = { tools: host.registry.listings.map((l) => ({ ...l })) };
  const info = { name: host.manifest.name, version: host.manifest.version };
  const instructions = `Tools from ${host.registry.instances.length} skill instances: ${host.registry.instances.map((i) => i.id).join(", ")}. Every tool answers with an envelope { ok, message, data | error, evidencePaths, warnings, meta }.`;

  return () => {
    const server = new Server(info, { capabilities: { tools: { listChanged: false } }, instructions });
    server.setRequestHandler("tools/list", () => listResult);
    server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
      const { name, arguments: args } = request.params;
      const progressToken = request.params._meta?.progressToken;
      let outcome: Awaited<ReturnType<Host["pipeline"]["call"]>>;
      try {
        outcome = await host.pipeline.call(name, args ?? {}, {
          signal: ctx.mcpReq.signal,
          ...(progressToken === undefined
            ? {}
            : {
                onProgress: (progress, total, message) => {
                  void ctx.mcpReq
                    .notify({
                      method: "notifications/progress",
                      params: {
                        progressToken,
                        progress,
                        ...(total === undefined ? {} : { total }),
                        ...(message === undefined ? {} : { message }),
                      },
                    })
                    .catch(() => undefined); // a client gone away must not fail the call
                },
              }),
        });
      } catch (error) {
        if (error instanceof SkillportError && error.code === "UNKNOWN_TOOL") {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
        }
        throw error;
      }
      const entry = host.registry.tools.get(name);
      const result: CallToolResult = {
        content: [{ type: "text", text: outcome.text }],
        structuredContent: outcome.envelope as unknown as Record<string, unknown>,
        ...(outcome.isError ? { isError: true } : {}),
      };
      return server.projectCallToolResult(result, entry?.listing.outputSchema);
    });
    return server;
  };
}
