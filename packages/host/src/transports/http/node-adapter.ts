import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { EdgeRequest } from "./guard.js";
import { parseHostHeader } from "./guards/host.js";

/**
 * The web Request for a Node request, or undefined when its target is not a path the URL parser keeps as sent
 * (`/a/../mcp`, `//evil/mcp`, `http://evil/mcp`, `*`): such a target names no route here, and answering it as the
 * path it normalises to would serve a path the client did not ask for.
 *
 * The Request has the method, the headers as Node parsed them (a repeated Host or Authorization counts once, as
 * every check sees it), a body read only when someone reads it, and a signal aborted when the client goes away
 * before its answer is sent (a closed connection, a cancelled fetch), which reaches the tool's `ctx.signal`.
 */
export function toWebRequest(req: IncomingMessage, res: ServerResponse, body?: Uint8Array): Request | undefined {
  const target = req.url ?? "/";
  const host = req.headers.host;
  // Only a Host the host guard would accept names the URL; the guard reads the header itself and refuses the rest.
  const base = parseHostHeader(host) === undefined ? "http://host.invalid" : `http://${host}`;
  const url = URL.parse(target, base);
  if (url === null || url.pathname !== pathOf(target)) return undefined;

  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal: disconnectSignal(res) };
  if (FORBIDDEN_METHODS.has(method)) {
    // The fetch standard forbids TRACE and TRACK in a Request (undici throws; CONNECT never reaches a request
    // listener). Nothing here serves them: carry the request as a bodiless GET that reports its real method, so the
    // guards and routes refuse it by name, as they refuse any other method.
    const request = new Request(url, { ...init, method: "GET" });
    Object.defineProperty(request, "method", { value: method });
    return request;
  }
  if (method !== "GET" && method !== "HEAD") {
    init.body = body === undefined ? lazyBody(req) : (body as Uint8Array<ArrayBuffer>);
    init.duplex = "half";
  }
  return new Request(url, init);
}

/**
 * A Node request as the guards read it ({@link EdgeRequest}), without building a web Request: its headers as
 * Node parsed them (read as a web Request's `Headers` would give them), its body read straight from the socket
 * within a limit. A request that needs the SDK afterwards becomes a web Request then, with the body already read
 * (`toWebRequest(req, res, bytes)`).
 */
export function nodeEdgeRequest(req: IncomingMessage): EdgeRequest {
  return new NodeEdgeRequest(req);
}

/**
 * A Node request as the edge sees it. A class, so its `body` getter is one function on the prototype: an object
 * literal with a getter of its own is made in dictionary mode by V8 (Node 20): slow to make, and it kept each
 * request's objects alive into the old generation.
 */
class NodeEdgeRequest implements EdgeRequest {
  readonly method: string;
  readonly headers: EdgeRequest["headers"];
  readonly readBody: (maxBytes: number) => Promise<Uint8Array | undefined>;
  #req: IncomingMessage;

  constructor(req: IncomingMessage) {
    this.#req = req;
    this.method = req.method ?? "GET";
    this.headers = {
      get(name) {
        const value = req.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(", ") : value;
      },
    };
    this.readBody = (maxBytes) => readAtMost(req, maxBytes);
  }

  get body(): ReadableStream<Uint8Array> | null {
    return lazyBody(this.#req);
  }
}

/** The path of a request target, without its query. */
export function pathOf(target: string | undefined): string {
  const raw = target ?? "/";
  const query = raw.indexOf("?");
  return query === -1 ? raw : raw.slice(0, query);
}

/**
 * Writes a web Response to a Node response. A JSON answer is sent in one write with its length; an event stream
 * is copied as it comes, respecting backpressure, and cancelled when the client goes away.
 */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
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
    let next = reader.read();
    // A stream with nothing to send yet (a session's GET event stream) still answers now: its headers go out
    // alone. One that has its first event at hand sends it with the headers.
    const pending = Symbol("pending");
    if ((await Promise.race([next, new Promise((resolve) => setImmediate(resolve, pending))])) === pending) {
      res.flushHeaders();
    }
    for (;;) {
      const { done, value } = await next;
      if (done || res.destroyed) break;
      // Corked until the next tick: the headers, a short answer's event and the end leave in one packet, while
      // a long stream (progress, then the result) still goes out event by event.
      res.cork();
      const flowing = res.write(value);
      process.nextTick(() => res.uncork());
      if (!flowing) await Promise.race([once(res, "drain"), once(res, "close")]);
      next = reader.read();
    }
  } catch {
    // The stream failed or was cancelled because the client left; nothing more can be sent.
  } finally {
    res.off("close", onClose);
    if (!res.destroyed) res.end();
  }
}

// --- internal ---

const FORBIDDEN_METHODS = new Set(["TRACE", "TRACK"]);

/** The whole body, or undefined as soon as it holds more than `maxBytes` (the rest is left unread, paused). */
function readAtMost(req: IncomingMessage, maxBytes: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        stop();
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      resolve(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      if (!req.complete) onError(new Error("the client disconnected before sending the whole body"));
    };
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
    req.resume();
  });
}

/** Aborted when the client goes away before its response has been sent (at once if it has already gone). */
function disconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  const left = () => controller.abort(new Error("the client disconnected"));
  if (res.destroyed && !res.writableFinished) left();
  else
    res.once("close", () => {
      if (!res.writableFinished) left();
    });
  return controller.signal;
}

/**
 * The request body as a web stream that reads from the socket only when pulled, a chunk at a time: a request
 * answered before its body is read (401, 429…) never reads it, and a reader that stops early (the body guard at
 * `http.maxBodyBytes`) leaves the rest unread. Cancelling pauses the request; answer with `connection: close`.
 */
function lazyBody(req: IncomingMessage): ReadableStream<Uint8Array> {
  let listening = false;
  let settled = false;
  const stop = () => {
    settled = true;
    req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
  };
  let controller: ReadableStreamDefaultController<Uint8Array>;
  const onData = (chunk: Buffer) => {
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    req.pause();
  };
  const onEnd = () => {
    stop();
    controller.close();
  };
  const onError = (error: Error) => {
    stop();
    controller.error(error);
  };
  const onClose = () => {
    if (!settled) onError(new Error("the client disconnected before sending the whole body"));
  };
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        if (settled) return;
        if (!listening) {
          listening = true;
          req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
        }
        req.resume();
      },
      cancel() {
        stop();
        req.pause();
      },
    },
    { highWaterMark: 0 },
  );
}
