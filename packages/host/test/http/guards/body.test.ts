import { describe, expect, it } from "vitest";
import { bodyGuard } from "../../../src/transports/http/guards/body.js";
import { contextOf, countingStream, post, rpc, rpcErrorOf, run } from "../web-helpers.js";

const streamed = (stream: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  new Request("http://localhost/mcp", {
    method: "POST",
    headers: { host: "localhost", "content-type": "application/json", ...headers },
    body: stream,
    duplex: "half",
  } as RequestInit);

describe("bodyGuard (a body never buffered past http.maxBodyBytes)", () => {
  it("answers a declared length over the limit with 413 and connection: close, reading nothing", async () => {
    const { stream, seen } = countingStream(100, 1024);
    const answer = await run(bodyGuard(1024), streamed(stream, { "content-length": String(100 * 1024) }));
    expect(answer?.status).toBe(413);
    expect(answer?.headers.get("connection")).toBe("close");
    expect((await rpcErrorOf(answer)).message).toBe("the request body is larger than 1024 bytes (http.maxBodyBytes)");
    expect(seen.pulled).toBe(0);
  });

  it("stops reading an endless body as soon as it passes the limit, and cancels the rest", async () => {
    const { stream, seen } = countingStream(Number.POSITIVE_INFINITY, 1000);
    const answer = await run(bodyGuard(4096), streamed(stream));
    expect(answer?.status).toBe(413);
    expect(answer?.headers.get("connection")).toBe("close");
    expect(seen.pulled).toBe(5); // 5000 bytes: the first chunk past 4096, and no more
    expect(seen.cancelled).toBe(true);
  });

  it("reads a body of exactly the limit, in chunks, and parses it once", async () => {
    const text = rpc("tools/call", { name: "probe.echo", arguments: { text: "héllo" } });
    const bytes = new TextEncoder().encode(text);
    const context = contextOf();
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    expect(await run(bodyGuard(bytes.byteLength), streamed(chunked), context)).toBeUndefined();
    expect(context.body?.bytes).toEqual(bytes);
    expect(context.body?.json).toEqual({ value: JSON.parse(text) });
  });

  it("parses as the SDK does: UTF-8 with a leading BOM dropped", async () => {
    const context = contextOf();
    await run(bodyGuard(1024), post(`\uFEFF${rpc("ping")}`), context);
    expect(context.body?.json).toEqual({ value: { jsonrpc: "2.0", id: 1, method: "ping" } });
  });

  it.each([
    ["not JSON", "{ nope"],
    ["empty", ""],
  ])("keeps a body that is %s as bytes only, for the SDK to answer", async (_case, body) => {
    const context = contextOf();
    expect(await run(bodyGuard(1024), post(body), context)).toBeUndefined();
    expect(context.body?.json).toBeUndefined();
    expect(new TextDecoder().decode(context.body?.bytes)).toBe(body);
  });

  it("treats a request without a body as an empty one", async () => {
    const context = contextOf();
    expect(await run(bodyGuard(1024), post(null), context)).toBeUndefined();
    expect(context.body).toEqual({ bytes: new Uint8Array(0), json: undefined });
  });
});
