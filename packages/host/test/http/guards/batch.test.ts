import { describe, expect, it } from "vitest";
import type { EdgeContext } from "../../../src/transports/http/guard.js";
import { batchGuard } from "../../../src/transports/http/guards/batch.js";
import { post, rpc, rpcErrorOf, run } from "../web-helpers.js";

const withBody = (value: unknown): EdgeContext => ({
  remoteAddress: undefined,
  body: { bytes: new Uint8Array(0), json: value === undefined ? undefined : { value } },
});

describe("batchGuard (one request must not carry many calls past the rate limit)", () => {
  it("refuses a batch of 100 calls with 400 and -32600", async () => {
    const batch = Array.from({ length: 100 }, (_, i) => JSON.parse(rpc("tools/call", { name: "probe.echo" }, i)));
    const answer = await run(batchGuard(), post(JSON.stringify(batch)), withBody(batch));
    expect(answer?.status).toBe(400);
    expect(await rpcErrorOf(answer)).toEqual({
      code: -32600,
      message: expect.stringMatching(/batches are not supported.*one message per request/),
    });
  });

  it("refuses an empty array too", async () => {
    expect((await run(batchGuard(), post("[]"), withBody([])))?.status).toBe(400);
  });

  it.each([
    ["one message", JSON.parse(rpc("ping"))],
    ["a body that is not JSON", undefined],
    ["a JSON string", "[1,2]"],
  ])("passes %s on", async (_case, value) => {
    expect(await run(batchGuard(), post(rpc("ping")), withBody(value))).toBeUndefined();
  });
});
