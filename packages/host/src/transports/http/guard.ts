import type { Caller } from "../../entries/check-scopes.js";
import type { CallStop } from "../../pipeline/call-stop.js";

/**
 * What the guards of one request to the MCP endpoint learn, for the guards and the endpoint after them. The
 * server makes one per request; each field is set by the one guard named beside it, and read after it.
 */
export interface EdgeContext {
  /** The peer's address (from the socket), which rate-limits callers without an identity; undefined when unknown. */
  readonly remoteAddress: string | undefined;
  /** Set by the origin guard: the allowed origin of the browser page calling. Every answer after it carries CORS. */
  origin?: string;
  /** Set by the auth guard: who is calling (an identity and scopes, never the token). */
  caller?: Caller;
  /** Set by the auth guard: how the caller was told apart; `none` on an unauthenticated server. */
  authenticatedBy?: "token" | "jwt" | "none";
  /** Set by the body guard: the body, read within `http.maxBodyBytes`. */
  body?: RequestBody;
  /**
   * Set by the server: the stop of the call this request runs, aborted when the client goes away before its answer
   * is sent (its AbortSignal is made only when something reads one: the SDK's Request, a capability's `ctx.signal`).
   * The call's own timeout aborts it too: whether the client left is `left`.
   */
  stop?: CallStop;
  /** Set by the server once the client has gone away before its answer was sent: no one is left to answer. */
  left?: boolean;
  /**
   * Set by the server: the request as a web Request, with the body the body guard read, made when first asked for
   * (the MCP SDK serves web Requests); undefined for a target no route serves.
   */
  webRequest?: () => Request | undefined;
  /** Set by the endpoint when the tools core answered the request itself (the request's log line says so). */
  toolsCore?: boolean;
}

/**
 * An answer already serialised, which an endpoint may give instead of a Response: the node:http server writes it in
 * one go, the web handler wraps it in a Response.
 */
export interface SerializedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** An event stream (sent chunked, without a length), not one JSON document. */
  stream?: boolean;
}

/** A request body as the body guard read it. */
export interface RequestBody {
  bytes: Uint8Array;
  /** The body parsed as JSON (UTF-8, a leading BOM dropped); undefined when empty or not JSON. */
  json: { value: unknown } | undefined;
}

/**
 * A request to the MCP endpoint as the guards read it: a web `Request` is one, and so is a Node request seen
 * through `nodeEdgeRequest` (read without building a web Request), so both are checked by the same guards.
 */
export interface EdgeRequest {
  readonly method: string;
  readonly headers: { get(name: string): string | null };
  /** The body as a web stream (a web Request's); a Node request reads it with `readBody` instead. */
  readonly body: ReadableStream<Uint8Array> | null;
  /** Reads the whole body, or stops and answers undefined once it holds more than `maxBytes`. */
  readonly readBody?: (maxBytes: number) => Promise<Uint8Array | undefined>;
}

/**
 * One check at the edge: answers with a Response to stop the request there, or undefined to pass it on.
 *
 * @example
 * const draining: Guard = () => (state.draining ? rpcError(503, "shutting down") : undefined);
 */
export type Guard = (
  request: EdgeRequest,
  context: EdgeContext,
) => Response | undefined | Promise<Response | undefined>;

/** What answers a request that every guard passed on. */
export type Endpoint = (request: EdgeRequest, context: EdgeContext) => Promise<Response | SerializedAnswer>;

/**
 * Runs guards top to bottom, like Hono's `compose`: the first that answers with a Response answers the request and
 * the ones after it never run; undefined when every guard passed the request on (then the endpoint answers).
 *
 * @example
 * const check = checkAll([hostGuard(["localhost"]), methodGuard("/mcp")]);
 * const response = (await check(request, { remoteAddress: undefined })) ?? (await endpoint(request, context));
 */
export function checkAll(
  guards: readonly Guard[],
): (request: EdgeRequest, context: EdgeContext) => Promise<Response | undefined> {
  return async (request, context) => {
    for (const guard of guards) {
      const answer = await guard(request, context);
      if (answer !== undefined) return answer;
    }
    return undefined;
  };
}
