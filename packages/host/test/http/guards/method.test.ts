import { describe, expect, it } from "vitest";
import { methodGuard } from "../../../src/transports/http/guards/method.js";
import { rpcErrorOf, run } from "../web-helpers.js";

const at = (method: string) => new Request("http://localhost/mcp", { method, headers: { host: "localhost" } });

describe("methodGuard (POST carries every message; the endpoint keeps no session to GET or DELETE)", () => {
  const guard = methodGuard("/mcp");

  it.each(["POST", "OPTIONS"])("passes %s on", async (method) => {
    expect(await run(guard, at(method))).toBeUndefined();
  });

  it.each(["GET", "HEAD", "PUT", "PATCH", "DELETE", "PROPFIND"])(
    "answers %s with 405 and Allow: POST, OPTIONS",
    async (method) => {
      const answer = await run(guard, at(method));
      expect(answer?.status).toBe(405);
      expect(answer?.headers.get("allow")).toBe("POST, OPTIONS");
      expect(await rpcErrorOf(answer)).toEqual({
        code: -32000,
        message: `${method} is not allowed on /mcp; send JSON-RPC messages with POST`,
      });
    },
  );
});

describe("methodGuard with 2025-era sessions (http.sessions)", () => {
  const guard = methodGuard("/mcp", { sessions: true });

  it.each(["POST", "GET", "DELETE", "OPTIONS"])("passes %s on: a session's stream and its end", async (method) => {
    expect(await run(guard, at(method))).toBeUndefined();
  });

  it.each(["HEAD", "PUT", "PATCH"])("answers %s with 405 and Allow naming GET and DELETE", async (method) => {
    const answer = await run(guard, at(method));
    expect(answer?.status).toBe(405);
    expect(answer?.headers.get("allow")).toBe("POST, GET, DELETE, OPTIONS");
  });
});
