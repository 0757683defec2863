import { describe, expect, it } from "vitest";
import type { EdgeContext } from "../../../src/transports/http/guard.js";
import { rateLimitGuard } from "../../../src/transports/http/guards/rate-limit.js";
import { createRateLimiter } from "../../../src/transports/http/rate-limit.js";
import { post, rpc, rpcErrorOf, run } from "../web-helpers.js";

const limiter = () => createRateLimiter({ requestsPerMinute: 60, burst: 2, now: () => 0 });
const as = (id: string, remoteAddress = "10.0.0.1"): EdgeContext => ({
  remoteAddress,
  caller: { id, scopes: [] },
  authenticatedBy: id.startsWith("jwt:") ? "jwt" : "token",
});
const anonymous = (remoteAddress: string): EdgeContext => ({
  remoteAddress,
  caller: { id: "anonymous", scopes: [] },
  authenticatedBy: "none",
});

async function statuses(guard: ReturnType<typeof rateLimitGuard>, contexts: EdgeContext[]): Promise<number[]> {
  const out: number[] = [];
  for (const context of contexts) out.push((await run(guard, post(rpc("tools/list")), context))?.status ?? 200);
  return out;
}

describe("rateLimitGuard (one request, one token from the caller's bucket)", () => {
  it("answers 429 with Retry-After once a caller spends its burst, naming the caller", async () => {
    const guard = rateLimitGuard(limiter());
    expect(await statuses(guard, [as("token:ci"), as("token:ci")])).toEqual([200, 200]);
    const limited = await run(guard, post(rpc("tools/list")), as("token:ci"));
    expect(limited?.status).toBe(429);
    expect(limited?.headers.get("retry-after")).toBe("1");
    expect((await rpcErrorOf(limited)).message).toBe('too many requests from "token:ci"; retry after 1 s');
  });

  it("gives each caller its own bucket, whatever address it calls from, and each source its own name", async () => {
    const guard = rateLimitGuard(limiter());
    expect(
      await statuses(guard, [as("token:ci", "1.1.1.1"), as("token:ci", "2.2.2.2"), as("token:ci", "3.3.3.3")]),
    ).toEqual([200, 200, 429]);
    expect(await statuses(guard, [as("jwt:ci"), as("token:other")])).toEqual([200, 200]);
  });

  it("limits the anonymous callers of an unauthenticated server by address", async () => {
    const guard = rateLimitGuard(limiter());
    expect(await statuses(guard, [anonymous("1.1.1.1"), anonymous("1.1.1.1"), anonymous("1.1.1.1")])).toEqual([
      200, 200, 429,
    ]);
    expect(await statuses(guard, [anonymous("2.2.2.2")])).toEqual([200]);
  });
});
