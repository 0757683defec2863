import { describe, expect, it } from "vitest";
import { drainingGuard } from "../../../src/transports/http/guards/draining.js";
import { post, rpc, rpcErrorOf, run } from "../web-helpers.js";

describe("drainingGuard", () => {
  it("answers 503 with Retry-After: 1 once shutdown has started, and passes before", async () => {
    let draining = false;
    const guard = drainingGuard(() => draining);
    expect(await run(guard, post(rpc("tools/list")))).toBeUndefined();
    draining = true;
    const answer = await run(guard, post(rpc("tools/list")));
    expect(answer?.status).toBe(503);
    expect(answer?.headers.get("retry-after")).toBe("1");
    expect((await rpcErrorOf(answer)).message).toContain("retry on another replica");
  });
});
