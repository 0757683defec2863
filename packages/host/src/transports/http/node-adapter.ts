import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";

/** Returned by {@link readBody} when the body is larger than allowed. */
export const TOO_LARGE = Symbol("too large");

/**
 * An AbortSignal aborted when the client goes away before its response has been sent: a closed connection or a
 * cancelled fetch. Handed to the web Request, it reaches the SDK, which closes the exchange, which aborts the
 * tool's `ctx.signal`.
 */
export function disconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort(new Error("the client disconnected"));
  });
  return controller.signal;
}

/**
 * Reads a request body, stopping at `maxBytes` (resolving TOO_LARGE) rather than buffering whatever is sent. After
 * TOO_LARGE the rest of the body is left unread: answer with `connection: close`.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | typeof TOO_LARGE> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        req.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/** A web-standard Request for the SDK's fetch-style handler: same method, headers and body, and the given signal. */
export function toWebRequest(
  req: IncomingMessage,
  url: string,
  body: Buffer | undefined,
  signal: AbortSignal,
): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const method = req.method ?? "GET";
  const hasBody = body !== undefined && method !== "GET" && method !== "HEAD";
  return new Request(url, { method, headers, signal, ...(hasBody ? { body } : {}) });
}

/**
 * Writes a web Response to a Node response. A JSON answer is sent in one write with its length; an event stream
 * is copied as it comes, respecting backpressure, and cancelled when the client goes away.
 */
export async function sendWebResponse(res: ServerResponse, response: Response, extraHeaders?: Headers): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  extraHeaders?.forEach((value, name) => {
    headers[name] = value;
  });
  const streaming = response.headers.get("content-type")?.startsWith("text/event-stream") === true;
  if (response.body === null) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (!streaming) {
    const bytes = Buffer.from(await response.arrayBuffer());
    headers["content-length"] = String(bytes.length);
    res.writeHead(response.status, headers).end(bytes);
    return;
  }
  res.writeHead(response.status, headers);
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => undefined);
  res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      // Corked until the next tick: the headers, a short answer's event and the end leave in one packet, while
      // a long stream (progress, then the result) still goes out event by event.
      res.cork();
      const flowing = res.write(value);
      process.nextTick(() => res.uncork());
      if (!flowing) await Promise.race([once(res, "drain"), once(res, "close")]);
    }
  } catch {
    // The stream failed or was cancelled because the client left; nothing more can be sent.
  } finally {
    res.off("close", onClose);
    if (!res.destroyed) res.end();
  }
}

/** Sends a small JSON answer with its length. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | number> = {},
): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { "content-type": "application/json", "content-length": bytes.length, ...headers }).end(bytes);
}
