// Requests as a client or an attacker sends them, built as web Requests: no socket, no server.
import type { EdgeContext, Guard } from "../../src/transports/http/guard.js";

export const URL_OF_MCP = "http://localhost:3333/mcp";

/** A fresh per-request context, as the server makes one. */
export function contextOf(remoteAddress = "127.0.0.1"): EdgeContext {
  return { remoteAddress };
}

/** A POST to the MCP endpoint with a JSON body (or any body) and extra headers; Host is set as clients set it. */
export function post(body: RequestInit["body"], headers: Record<string, string> = {}, url = URL_OF_MCP): Request {
  return new Request(url, {
    method: "POST",
    headers: {
      host: new URL(url).host,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
}

/** A 2025-era JSON-RPC request body. */
export function rpc(method: string, params?: unknown, id = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
}

/** Runs a guard and awaits what it answers. */
export async function run(guard: Guard, request: Request, context = contextOf()): Promise<Response | undefined> {
  return await guard(request, context);
}

/** The JSON-RPC error of a refusal. */
export async function rpcErrorOf(response: Response | undefined): Promise<{ code: number; message: string }> {
  if (response === undefined) throw new Error("the guard passed the request on");
  const body = (await response.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } };
  if (body.jsonrpc !== "2.0" || body.id !== null) throw new Error(`not a JSON-RPC error: ${JSON.stringify(body)}`);
  return body.error;
}

/** A body stream that counts what was pulled from it, and whether it was cancelled: `chunks` chunks of `size` bytes. */
export function countingStream(chunks: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (seen.pulled === chunks) return controller.close();
        seen.pulled += 1;
        controller.enqueue(new Uint8Array(size).fill(0x20));
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}
