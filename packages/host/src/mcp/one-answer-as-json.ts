import { isLegacyRequest } from "@modelcontextprotocol/server";
import { acceptsJson, mediaTypesOf } from "./http-tools.js";

/**
 * `curl … | jq`: the SDK answers every 2025-era request as an event stream, even one that can only ever have one
 * message back (its 2026-era answers are already JSON unless something is sent before the result). A 2025-era
 * JSON-RPC request without a progress token, from a client that accepts JSON, gets that one message as an
 * `application/json` body instead. A call with a progress token keeps its stream, so the progress arrives while
 * the call runs; should a stream ever hold more than the answer, it is passed on as it came.
 */
export async function oneAnswerAsJson(request: Request, message: unknown, response: Response): Promise<Response> {
  if (!mediaTypesOf(response.headers.get("content-type")).includes("text/event-stream")) return response;
  if (!acceptsJson(request) || !isRequestWithoutProgress(message)) return response;
  if (!(await isLegacyRequest(request, message))) return response;
  const text = await response.text();
  const messages = eventData(text);
  const headers = new Headers(response.headers);
  if (messages.length !== 1) return new Response(text, { status: response.status, headers });
  for (const name of ["cache-control", "connection", "x-accel-buffering"]) headers.delete(name);
  headers.set("content-type", "application/json");
  return new Response(messages[0], { status: response.status, headers });
}

/** A single JSON-RPC request (not a notification, not a batch) that asks for no progress. */
function isRequestWithoutProgress(message: unknown): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: { _meta?: unknown } };
  if ((typeof id !== "string" && typeof id !== "number") || typeof method !== "string") return false;
  const meta = typeof params === "object" && params !== null ? params._meta : undefined;
  return typeof meta !== "object" || meta === null || !("progressToken" in meta);
}

/** The data of each event in an event stream that carries any (comments and empty events skipped). */
function eventData(stream: string): string[] {
  return stream
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
        .join("\n"),
    )
    .filter((data) => data !== "");
}
