import type { ErrorCode, Risk } from "@skillport/core";
import { ERROR_CODES, result, SkillError } from "@skillport/core";
import { messageOf } from "../errors/host-error.js";
import { SERVER_DEFAULTS } from "../manifest/defaults.js";
import { upstreamPatterns } from "../schema/schema-patterns.js";
import type { TraceContext } from "../tracing/tracing.js";
import { createArgumentBrief } from "./argument-brief.js";
import type { RunCall, Runnable, ToolEntry, ToolListing } from "./tool-entry.js";
import type { UpstreamError, UpstreamResult, UpstreamTool } from "./upstream-client.js";
import { fingerprint, upstreamRisk } from "./upstream-pin.js";
import type { UpstreamServer } from "./upstream-server.js";
import type { UriMount } from "./uri-template.js";

/** An upstream server's URIs (in resource links and embedded resources) are its own: passed on as they are. */
const AS_IS: UriMount = { served: (uri) => uri };

/** What an upstream tool's entry is made of, besides its server. */
export interface UpstreamToolInit {
  fullName: string;
  /** The tool as its server's pin let it be listed when the table was built (its server's pin). */
  tool: UpstreamTool;
  listing: ToolListing;
  scopes: readonly string[];
}

/**
 * An upstream server's tool as a table entry. Resolving it starts the server if it is not running (the first call
 * after a lock, after an idle stop or after the server died) and takes the tool as the running server lists it now,
 * through its server's pin: calls are validated against that schema and decided on those annotations at no lower a
 * risk than was reviewed. A tool that differs from the lock, or (without one) from what tools/list showed, answers
 * UNAVAILABLE until the lock is rewritten. A failure is not remembered: the next call tries again.
 */
export function upstreamToolEntry(server: UpstreamServer, init: UpstreamToolInit): ToolEntry {
  const listed = fingerprint(init.tool);
  let cached: { spec: UpstreamTool; runnable: Runnable } | undefined;
  const listedRunnable = () => {
    if (cached !== undefined) return cached.runnable;
    const pinned = server.pin.review(init.tool);
    if (pinned.refusal !== undefined || pinned.tool === undefined) {
      throw unavailable(pinned.refusal ?? `${server.id}'s tool "${init.tool.name}" is not reviewed`, false);
    }
    refuseNonLinear(server, init.tool);
    cached = { spec: init.tool, runnable: runnableOf(server, pinned.tool, init.listing.title) };
    return cached.runnable;
  };
  return {
    fullName: init.fullName,
    toolName: init.tool.name,
    listing: init.listing,
    risk: upstreamRisk(init.tool),
    instance: server,
    scopes: init.scopes,
    timeoutMs: server.timeoutMs,
    mount: AS_IS,
    async resolve() {
      const handle = server.handle;
      // Called per caller with no connection of its own: what was listed (and reviewed) is what runs.
      if (handle === undefined && server.perCaller.length > 0) return listedRunnable();
      if (handle === undefined) throw unavailable(`${server.id} has missing credentials`, false);
      const started = await handle.start();
      // A server that could not be started or reached may be up on the next try; missing credentials need a fix.
      if (!started.ok) throw unavailable(started.error.message, started.error.code === "UNAVAILABLE");
      const live = started.tools.find((t) => t.name === init.tool.name);
      if (live === undefined) {
        throw unavailable(
          `${server.id} no longer lists the tool "${init.tool.name}"; run skillport lock, or restart`,
          false,
        );
      }
      if (cached?.spec === live) return cached.runnable;
      const pinned = server.pin.review(live);
      if (pinned.refusal !== undefined) throw unavailable(pinned.refusal, false);
      if (pinned.tool === undefined || fingerprint(pinned.tool) !== listed) {
        throw unavailable(
          `${server.id}'s tool "${live.name}" changed its schema or annotations since it was listed; review it, then run skillport lock (or restart)`,
          false,
        );
      }
      refuseNonLinear(server, live);
      cached = { spec: live, runnable: runnableOf(server, pinned.tool, init.listing.title) };
      return cached.runnable;
    },
  };
}

// --- internal ---

/**
 * Fails closed on a pattern RE2 cannot run (a lookahead, a backreference), in the input schema (the host checks
 * arguments with it) or the output schema (the client checks answers with it): the tool answers UNAVAILABLE naming
 * the pattern, rather than having it run by a backtracking RegExp.
 */
function refuseNonLinear(server: UpstreamServer, tool: UpstreamTool): void {
  for (const { pattern, pointer } of upstreamPatterns(tool)) {
    try {
      server.linearRegExp(pattern, "u");
    } catch (error) {
      throw new SkillError({
        code: "UNAVAILABLE",
        retryable: false,
        message: `${server.id}'s tool "${tool.name}" is not served: ${messageOf(error)} (at ${pointer}); leave it out with tools.exclude, or have the server rewrite the pattern`,
      });
    }
  }
}

function runnableOf(server: UpstreamServer, tool: UpstreamTool, title: string): Runnable {
  const risk: Risk = upstreamRisk(tool);
  // The host validates with JSON Schema 2020-12; servers often stamp draft-07, which reads the same for arguments.
  const { $schema: _dialect, ...inputSchema } = tool.inputSchema;
  return {
    risk,
    title,
    inputSchema: { type: "object", ...inputSchema },
    // The client already checks structuredContent against the server's own output schema (patterns by RE2).
    outputSchema: undefined,
    legacy: [],
    compiler: server.compiler,
    // Nothing in the server's code says what its arguments will do: the brief names every one of them.
    brief: createArgumentBrief({ heading: `Call ${tool.name} on ${server.id}`, schema: inputSchema }),
    async run(args, call: RunCall) {
      const handle = server.callers.handleFor(call);
      if (handle === undefined) throw unavailable(`${server.id} has missing credentials`, false);
      // Traced, the request to the server is a client span under the execute stage's, and carries its context on
      // (in `_meta`, and over HTTP as headers), so a Skillport host upstream continues the same trace.
      const span = call.trace?.current.child(`tools/call ${tool.name}`, "client", {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": tool.name,
        "gen_ai.operation.name": "execute_tool",
        "skillport.server": server.id,
      });
      // An upstream task's status messages, counted as the progress they stand for.
      let said = 0;
      try {
        // The host's own timeout (the execute stage) answers first; the client's is a backstop.
        const outcome = await handle.callTool(tool.name, args, {
          signal: call.signal,
          timeoutMs: server.timeoutMs + 1000,
          // The server's progress reaches our caller as the call's own (sent only when the caller asked for it).
          onProgress: ({ progress, total, message }) => call.progress(progress, total, message),
          // So does a task's status message, when the server runs the call as a task (the client waits for it).
          onTaskStatus: ({ statusMessage }) => {
            if (statusMessage !== undefined) call.progress(++said, undefined, statusMessage);
          },
          ...(span === undefined ? {} : { meta: metaOf(span.context()) }),
        });
        if (outcome.ok) return answerOf(outcome.result, title);
        span?.fail(outcome.error.code);
        throw errorOf(server, outcome.error, outcome.result);
      } finally {
        span?.end();
      }
    },
  };
}

/**
 * An upstream answer as the envelope's parts. A Skillport host upstream already answers with an envelope: its
 * message, data, evidence and warnings are taken as they are. Any other server's structured content is the data;
 * without it, its content blocks are.
 */
function answerOf(answered: UpstreamResult, title: string) {
  const envelope = skillportEnvelope(answered.structuredContent);
  if (envelope?.ok === true) {
    return result(envelope.data ?? null, {
      message: typeof envelope.message === "string" ? envelope.message : `${title}: done`,
      evidencePaths: stringsOf(envelope.evidencePaths),
      warnings: stringsOf(envelope.warnings),
    });
  }
  // The data holds what the server said; the message does not repeat it (the text rendering shows both).
  return result(answered.structuredContent ?? { content: answered.content }, { message: `${title}: done` });
}

/**
 * A client failure as the SkillError the envelope carries, retryable only where the same call may succeed when tried
 * again: the server could not be reached or its connection dropped, the call timed out or was cancelled, the server
 * is rate limiting (HTTP 429) or unavailable for now (HTTP 5xx), or a Skillport upstream said so. A refusal by the
 * tool itself (its `isError` answer), a JSON-RPC error, credentials refused and an answer over the size limit come
 * back the same on a retry.
 */
function errorOf(server: UpstreamServer, error: UpstreamError, answered: UpstreamResult | undefined): SkillError {
  switch (error.code) {
    case "TOOL_ERROR": {
      const envelope = skillportEnvelope(answered?.structuredContent);
      const failure = envelope?.ok === false ? (envelope.error as Record<string, unknown> | undefined) : undefined;
      const code = failure?.code;
      if (typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code)) {
        return new SkillError({
          code: code as ErrorCode,
          message: typeof envelope?.message === "string" ? envelope.message : error.message,
          ...(typeof failure?.field === "string" ? { field: failure.field } : {}),
          retryable: failure?.retryable === true,
        });
      }
      return new SkillError({
        code: "UPSTREAM_ERROR",
        message: `${server.id}: ${(answered === undefined ? undefined : firstText(answered)) ?? error.message}`,
        retryable: false,
      });
    }
    case "UNAVAILABLE":
      if (error.status === 429) {
        return new SkillError({ code: "RATE_LIMITED", message: error.message, retryable: true, status: 429 });
      }
      // An HTTP answer the server will give again (404, 400) is not worth a retry; no answer at all, or 5xx, is.
      return unavailable(error.message, error.status === undefined || error.status >= 500 || error.status === 408);
    case "TIMEOUT":
      return new SkillError({ code: "TIMEOUT", message: error.message, retryable: true });
    case "CANCELLED":
      return new SkillError({ code: "CANCELLED", message: error.message, retryable: true });
    case "PROTOCOL_ERROR":
      // Invalid params: retryable with other arguments, as every ARGUMENT_INVALID is.
      return error.rpcCode === -32602
        ? new SkillError({ code: "ARGUMENT_INVALID", message: error.message })
        : new SkillError({ code: "UPSTREAM_ERROR", message: error.message, retryable: false });
    case "RESULT_TOO_LARGE":
      return new SkillError({
        code: "UPSTREAM_ERROR",
        retryable: false,
        message: `${server.id}: the answer exceeded ${server.where}.maxResultBytes (${server.entry.maxResultBytes ?? SERVER_DEFAULTS.maxResultBytes} bytes) and was not read further; the connection was reset (it is opened again on the next call). Raise maxResultBytes in the manifest if answers this large are expected`,
      });
    case "UNAUTHORIZED":
      return new SkillError({
        code: "UPSTREAM_ERROR",
        retryable: false,
        message: `${error.message}; the host's credentials for ${server.where} were refused: check its headers`,
        ...(error.status === undefined ? {} : { status: error.status }),
      });
    default:
      return new SkillError({ code: "UPSTREAM_ERROR", message: error.message, retryable: false });
  }
}

/** A trace context as `_meta` carries it. */
function metaOf(context: TraceContext): Record<string, string> {
  return context.tracestate === undefined
    ? { traceparent: context.traceparent }
    : { traceparent: context.traceparent, tracestate: context.tracestate };
}

function unavailable(message: string, retryable: boolean): SkillError {
  return new SkillError({ code: "UNAVAILABLE", message, retryable });
}

function skillportEnvelope(structured: unknown): Record<string, unknown> | undefined {
  if (typeof structured !== "object" || structured === null) return undefined;
  const value = structured as Record<string, unknown>;
  return typeof value.ok === "boolean" && typeof value.meta === "object" && "message" in value ? value : undefined;
}

function firstText(answered: UpstreamResult): string | undefined {
  for (const block of answered.content) {
    const { type, text } = block as { type?: unknown; text?: unknown };
    if (type === "text" && typeof text === "string") return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  }
  return undefined;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
