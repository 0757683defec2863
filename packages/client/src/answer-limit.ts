// How much one message from a server may take, counted while it is read (before the SDK parses any of it). Nothing
// here imports a Node built-in: the HTTP transport, and with it the root entry, runs in browsers.

/** A spec's `maxResultBytes`, or why it is not one (a programming error, thrown when the handle is created). */
export function maxResultBytesOf(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_RESULT_BYTES;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`[skillport-client] maxResultBytes must be a positive integer, not ${String(value)}`);
  }
  return value;
}

/**
 * A fetch whose response bodies are counted as they arrive: an SSE stream (`text/event-stream`) per event, any other
 * body whole. The chunk that passes `maxBytes` is not handed on: `exceeded` is told, then the body errors, which
 * cancels the rest of the download.
 */
export function limitedFetch(
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>,
  maxBytes: number,
  exceeded: () => void,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.body === null || response.status < 200) return response;
    const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    const over = type === "text/event-stream" ? eventCounter(maxBytes) : bodyCounter(maxBytes);
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (!over(chunk)) {
            controller.enqueue(chunk);
            return;
          }
          exceeded();
          controller.error(new Error(`[skillport-client] the answer exceeded maxResultBytes (${maxBytes} bytes)`));
        },
      }),
    );
    const counted = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // What the SDK reads of a response besides its body (redirect checks in its messages).
    Object.defineProperty(counted, "url", { value: response.url });
    Object.defineProperty(counted, "redirected", { value: response.redirected });
    return counted;
  };
}

// --- internal ---

/** The default of a spec's `maxResultBytes`: 4 MiB, the MCP SDK's own default limit of a request body. */
const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;

/** Whether a body has passed `maxBytes`, chunk after chunk. */
function bodyCounter(maxBytes: number): (chunk: Uint8Array) => boolean {
  let total = 0;
  return (chunk) => {
    total += chunk.byteLength;
    return total > maxBytes;
  };
}

/**
 * Whether the SSE event being read has passed `maxBytes` (its lines' bytes, without their line ends): an empty
 * line ends an event; a line ends at CR, LF or CRLF, as the SSE format says.
 */
function eventCounter(maxBytes: number): (chunk: Uint8Array) => boolean {
  let eventBytes = 0;
  let lineBytes = 0;
  let afterCR = false;
  return (chunk) => {
    for (const byte of chunk) {
      if (byte === LF && afterCR) {
        afterCR = false;
        continue;
      }
      afterCR = byte === CR;
      if (byte === LF || byte === CR) {
        if (lineBytes === 0) eventBytes = 0;
        lineBytes = 0;
      } else {
        lineBytes++;
        if (++eventBytes > maxBytes) return true;
      }
    }
    return false;
  };
}

const LF = 10;
const CR = 13;
