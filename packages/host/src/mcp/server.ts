import type {
  CallToolResult,
  ClientCapabilities,
  ListToolsResult,
  McpRequestContext,
  ServerContext,
} from "@modelcontextprotocol/server";
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from "@modelcontextprotocol/server";
import { SkillportError } from "../errors.js";
import type { Host } from "../host.js";
import type { Caller } from "../pipeline/check-scopes.js";
import type { CallConfirmation } from "../pipeline/pipeline.js";

/** Options for {@link createServerFactory}. */
export interface ServerFactoryOptions {
  /** Who is calling, from the request context (HTTP); undefined for local transports, whose calls are not checked. */
  callerOf?: (ctx: McpRequestContext | undefined) => Caller | undefined;
  /** Told when each tools/call starts and ends, e.g. for metrics. */
  observer?: CallObserver;
}

/** Watches tool calls: `outcome` is "ok", the envelope's error code, or UNKNOWN_TOOL. */
export interface CallObserver {
  started(): void;
  finished(tool: string, skill: string | undefined, outcome: string, seconds: number): void;
}

/**
 * A factory of low-level SDK servers over one host: tools/list answers from a list built once, and tools/call
 * goes straight to the pipeline through the precompiled dispatch table. The factory is cheap to call per
 * connection (stdio) or per request (HTTP).
 */
export function createServerFactory(
  host: Host,
  options: ServerFactoryOptions = {},
): (ctx?: McpRequestContext) => Server {
  const listResult: ListToolsResult = { tools: host.registry.listings.map((l) => ({ ...l })) };
  const info = { name: host.manifest.name, version: host.manifest.version };
  const instructions = `Tools from ${host.registry.instances.length} skill instances: ${host.registry.instances.map((i) => i.id).join(", ")}. Every tool answers with an envelope { ok, message, data | error, evidencePaths, warnings, meta }.`;
  const { callerOf, observer } = options;

  return (requestContext) => {
    const caller = callerOf?.(requestContext);
    const server = new Server(info, { capabilities: { tools: { listChanged: false } }, instructions });
    server.setRequestHandler("tools/list", () => listResult);
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const { name, arguments: args } = request.params;
      const progressToken = request.params._meta?.progressToken;
      const entry = host.registry.tools.get(name);
      const startedAt = performance.now();
      const notifying = new Set<Promise<unknown>>();
      observer?.started();
      let outcome: Awaited<ReturnType<Host["pipeline"]["call"]>>;
      try {
        outcome = await host.pipeline.call(name, args ?? {}, {
          signal: ctx.mcpReq.signal,
          confirmation: confirmationOf(server, ctx),
          ...(caller === undefined ? {} : { caller }),
          ...(progressToken === undefined
            ? {}
            : {
                onProgress: (progress, total, message) => {
                  const sent = ctx.mcpReq
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
                  notifying.add(sent);
                  void sent.finally(() => notifying.delete(sent));
                },
              }),
        });
      } catch (error) {
        const unknown = error instanceof SkillportError && error.code === "UNKNOWN_TOOL";
        // An unknown name is not a label: it would let any client grow the metrics without bound.
        observer?.finished(
          entry === undefined ? "(unknown)" : name,
          entry?.instance.id,
          unknown ? "UNKNOWN_TOOL" : "INTERNAL",
          seconds(startedAt),
        );
        if (unknown) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
        throw error;
      }
      observer?.finished(
        name,
        entry?.instance.id,
        outcome.envelope.ok ? "ok" : outcome.envelope.error.code,
        seconds(startedAt),
      );
      // Progress sent before the answer must reach the client before it: it ignores progress after the result.
      if (notifying.size > 0) await Promise.all(notifying);
      if (outcome.elicit !== undefined) {
        // Ask the user through the client; the SDK calls this handler again with the answer.
        // The state names the question (tool, arguments, caller) and comes back with the answer: in the 2026 era
        // through the client, in the 2025 era through the SDK's shim, which keeps it in this process.
        return inputRequired({
          inputRequests: {
            [CONFIRM_KEY]: inputRequired.elicit({ message: outcome.elicit.message, requestedSchema: CONFIRM_SCHEMA }),
          },
          requestState: outcome.elicit.state,
        });
      }
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

// --- internal ---

const CONFIRM_KEY = "skillport_confirm";
const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const, title: "Allow", description: "Run this operation" } },
  required: ["confirm"],
};

/**
 * Whether the client can ask its user (2026 era: per request; 2025 era: at initialize) and, on a retry, the answer
 * with the state it came back with. An answer without this server's state (sent unasked on a first request) is
 * passed on as such, and the pipeline asks the user instead of taking it.
 */
function confirmationOf(server: Server, ctx: ServerContext): CallConfirmation {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const perRequest = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const elicit = Boolean((perRequest ?? server.getClientCapabilities())?.elicitation);
  const view = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  if (view.kind !== "elicit") return { elicit };
  const state = ctx.mcpReq.requestState();
  const accepted = view.action === "accept" && view.content?.confirm === true;
  return {
    elicit,
    answer: {
      action: accepted ? "accept" : view.action === "accept" ? "decline" : view.action,
      state: typeof state === "string" ? state : undefined,
    },
  };
}

function seconds(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
