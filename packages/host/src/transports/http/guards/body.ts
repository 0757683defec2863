import type { Guard, RequestBody } from "../guard.js";
import { rpcError } from "../responses.js";

/**
 * Reads the body, stopping at `maxBytes` rather than buffering whatever is sent: a body declared or found larger
 * answers 413 with `connection: close` (the rest is never read). The body goes to `context.body` as bytes and, when
 * it is JSON, parsed once, as the SDK would parse it (UTF-8, a leading BOM dropped): what the guards after this one
 * check is exactly what is served.
 *
 * @example
 * const guard = bodyGuard(1_048_576); // http.maxBodyBytes
 */
export function bodyGuard(maxBytes: number): Guard {
  const tooLarge = () =>
    rpcError(413, `the request body is larger than ${maxBytes} bytes (http.maxBodyBytes)`, { connection: "close" });
  return async (request, context) => {
    const declared = Number(request.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > maxBytes) return tooLarge();
    const bytes =
      request.readBody === undefined ? await readAtMost(request.body, maxBytes) : await request.readBody(maxBytes);
    if (bytes === undefined) return tooLarge();
    context.body = { bytes, json: parseJson(bytes) };
    return undefined;
  };
}

/**
 * The whole stream, or undefined as soon as it holds more than `maxBytes` (the stream is then cancelled).
 *
 * @example
 * const bytes = await readAtMost(request.body, 16_384); // undefined: too large
 */
export async function readAtMost(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

// --- internal ---

function parseJson(bytes: Uint8Array): RequestBody["json"] {
  if (bytes.byteLength === 0) return undefined;
  try {
    return { value: JSON.parse(new TextDecoder().decode(bytes)) };
  } catch {
    return undefined;
  }
}
