import { describe, expect, it } from "vitest";
import { originGuard, withCors } from "../../../src/transports/http/guards/origin.js";
import { contextOf, post, rpc, rpcErrorOf, run } from "../web-helpers.js";

const LISTED = "http://localhost:5173";

describe("originGuard (a browser page may call only when its exact origin is listed)", () => {
  it("passes a request without Origin (every non-browser client) and leaves no CORS origin", async () => {
    const context = contextOf();
    expect(await run(originGuard(new Set()), post(rpc("tools/list")), context)).toBeUndefined();
    expect(context.origin).toBeUndefined();
  });

  it.each(["http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000", "null", ""])(
    "refuses the Origin %j with 403 when none is listed, loopback pages included",
    async (origin) => {
      const answer = await run(originGuard(new Set()), post(rpc("tools/list"), { origin }));
      expect(answer?.status).toBe(403);
      expect((await rpcErrorOf(answer)).message).toContain("http.allowedOrigins");
      expect(answer?.headers.get("access-control-allow-origin")).toBeNull();
    },
  );

  it.each([
    "http://localhost:5174",
    "https://localhost:5173",
    "http://localhost",
    "http://localhost:5173/",
    "HTTP://LOCALHOST:5173",
    "http://localhost:5173.evil.example",
    `${LISTED}, http://evil.example`,
  ])("refuses %j, which is not exactly the listed origin", async (origin) => {
    expect((await run(originGuard(new Set([LISTED])), post(rpc("tools/list"), { origin })))?.status).toBe(403);
  });

  it("passes the listed origin and keeps it for the CORS headers of the answer", async () => {
    const context = contextOf();
    expect(await run(originGuard(new Set([LISTED])), post(rpc("tools/list"), { origin: LISTED }), context)).toBe(
      undefined,
    );
    expect(context.origin).toBe(LISTED);
  });
});

describe("withCors", () => {
  it("lets the page read the answer and the headers a client needs, keeping the answer's own", async () => {
    const answer = new Response("{}", { status: 401, headers: { "www-authenticate": "Bearer", vary: "accept" } });
    const cors = withCors(answer, LISTED);
    expect(cors.status).toBe(401);
    expect(cors.headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(cors.headers.get("access-control-expose-headers")).toBe(
      "mcp-session-id, mcp-protocol-version, www-authenticate, retry-after",
    );
    expect(cors.headers.get("www-authenticate")).toBe("Bearer");
    expect(cors.headers.get("vary")).toBe("accept");
    expect(await cors.text()).toBe("{}");
  });
});
