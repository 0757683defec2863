import { describe, expect, it } from "vitest";
import { preflightGuard } from "../../../src/transports/http/guards/preflight.js";
import { contextOf, post, rpc, run } from "../web-helpers.js";

const LISTED = "http://localhost:5173";
const options = (headers: Record<string, string> = {}) =>
  new Request("http://localhost/mcp", { method: "OPTIONS", headers: { host: "localhost", ...headers } });

describe("preflightGuard", () => {
  const guard = preflightGuard();

  it("answers the preflight of an allowed origin with 204, the methods and the headers it asked for", async () => {
    const context = { ...contextOf(), origin: LISTED };
    const answer = await run(
      guard,
      options({ origin: LISTED, "access-control-request-headers": "authorization, mcp-protocol-version" }),
      context,
    );
    expect(answer?.status).toBe(204);
    expect(answer?.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect(answer?.headers.get("access-control-allow-headers")).toBe("authorization, mcp-protocol-version");
    expect(answer?.headers.get("access-control-max-age")).toBe("600");
    expect(answer?.body).toBeNull();
  });

  it("allows any header when the preflight names none", async () => {
    const answer = await run(guard, options({ origin: LISTED }), { ...contextOf(), origin: LISTED });
    expect(answer?.headers.get("access-control-allow-headers")).toBe("*");
  });

  it("answers OPTIONS without an Origin with Allow only: no CORS for a page that is not there", async () => {
    const answer = await run(guard, options());
    expect(answer?.status).toBe(204);
    expect(answer?.headers.get("allow")).toBe("POST, OPTIONS");
    expect(answer?.headers.get("access-control-allow-methods")).toBeNull();
  });

  it("passes anything but OPTIONS on", async () => {
    expect(await run(guard, post(rpc("tools/list")))).toBeUndefined();
  });
});
