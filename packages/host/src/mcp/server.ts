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
import type { Envelope } from "@skillport/core";
import type { Host } from "../host.js";
import type { CallConfirmation, CallOutcome, StageName } from "../pipeline/call.js";
import type { Caller } from "../pipeline/check-scopes.js";

/** Options for {@link createServerFactory}. */
export interface ServerFactoryOptions {
  /** Who is calling, from the request context (HTTP); undefined for local transports, whose calls are not checked. */
  callerOf?: (ctx: McpRequestContext | undefined) => Caller | undefined;
  /** Told when each tools/call starts and ends, e.g. for metrics. */
  observer?: CallObserver;
  /**
   * Whether servers stay connected to one client (stdio, in memory), so that a change of the upstream servers'
   * tools can be announced to it (`notifications/tools/list_changed`). Stateless HTTP has no stream to announce on:
   * its clients read the new list at their next tools/list.
   * @default true
   */
  announceListChanged?: boolean;
}

/**
 * Watches tool calls: `outcome` is "ok", the envelope's error code, or UNKNOWN_TOOL; `stage` is the pipeline stage
 * that answered (an UNAVAILABLE from `ensure-loaded` is a skill that could not load).
 */
export interface CallObserver {
  started(): void;
  finished(tool: string, skill: string | undefined, outcome: string, seconds: number, stage: StageName | "error"): void;
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
  const { registry } = host;
  let listResult: ListToolsResult | undefined;
  const info = { name: host.manifest.name, version: host.manifest.version };
  const sources = [...registry.instances, ...registry.servers].map((i) => i.id);
  const instructions = `Tools from ${sources.length} skill instances and MCP servers: ${sources.join(", ")}. Every tool answers with an envelope { ok, message, data | error, evidencePaths, warnings, meta }.`;
  const { callerOf, observer } = options;
  // Upstream servers may change their tools at run time: then the list is built again and every connected client
  // is told (notifications/tools/list_changed). A host of skills alone never changes its list.
  const listChanged = registry.servers.length > 0 && options.announceListChanged !== false;
  const open = new Set<Server>();
  registry.subscribe(() => {
    listResult = undefined;
    for (const server of open) server.sendToolListChanged().catch(() => undefined);
  });

  return (requestContext) => {
    const caller = callerOf?.(requestContext);
    const server = new Server(info, { capabilities: { tools: { listChanged } }, instructions });
    if (listChanged) {
      open.add(server);
      server.onclose = () => open.delete(server);
    }
    server.setRequestHandler("tools/list", () => {
      listResult ??= { tools: registry.listings.map((l) => ({ ...l })) };
      return listResult;
    });
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const { name, arguments: args } = request.params;
      const progressToken = request.params._meta?.progressToken;
      const startedAt = performance.now();
      const notifying = new Set<Promise<unknown>>();
      observer?.started();
      let outcome: CallOutcome;
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
        observer?.finished(name, undefined, "INTERNAL", seconds(startedAt), "error");
        throw error;
      }
      const { tool } = outcome;
      if (tool === undefined) {
        // An unknown name is not a label: it would let any client grow the metrics without bound.
        observer?.finished("(unknown)", undefined, "UNKNOWN_TOOL", seconds(startedAt), outcome.stage);
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.envelope.message);
      }
      observer?.finished(
        name,
        tool.instance,
        outcome.envelope.ok ? "ok" : outcome.envelope.error.code,
        seconds(startedAt),
        outcome.stage,
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
        content: [{ type: "text", text: textOf(outcome.envelope) }],
        structuredContent: outcome.envelope as unknown as Record<string, unknown>,
        ...(outcome.isError ? { isError: true } : {}),
      };
      return server.projectCallToolResult(result, tool.listing.outputSchema);
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

/** The text rendering for clients that ignore structured output, from the envelope as it leaves (redacted). */
export function textOf(envelope: Envelope): string {
  if (envelope.ok) return `${envelope.message}\n${JSON.stringify(envelope.data)}`;
  const at = envelope.error.field === undefined ? "" : ` (at ${envelope.error.field})`;
  return `${envelope.error.code}${at}: ${envelope.message}`;
}

function seconds(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
