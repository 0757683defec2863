import { describe, expect, it } from "vitest";
import { hostGuard, parseHostHeader } from "../../../src/transports/http/guards/host.js";
import { post, rpc, rpcErrorOf, run } from "../web-helpers.js";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];
const withHost = (host: string | undefined) => {
  const request = post(rpc("tools/list"));
  if (host === undefined) request.headers.delete("host");
  else request.headers.set("host", host);
  return request;
};

describe("hostGuard (DNS rebinding: the Host header a page's own name would carry)", () => {
  const guard = hostGuard(LOOPBACK);

  it.each([
    "evil.com@localhost",
    "evil.com@127.0.0.1:3333",
    "localhost/evil",
    "localhost?x",
    "localhost#frag",
    "localhost:3333:80",
    "localhost:99999",
    "localhost:0",
    "localhost:",
    "local host",
    "[::1",
    "::1",
    "[::1]x",
    "[not:an:address]",
    "127.0.0.1\\@evil.com",
    "",
  ])("refuses the malformed Host %j with 400", async (host) => {
    const answer = await run(guard, withHost(host));
    expect(answer?.status).toBe(400);
    expect(await rpcErrorOf(answer)).toEqual({ code: -32000, message: expect.stringContaining("Host header") });
  });

  it("refuses a request without Host with 400", async () => {
    const answer = await run(guard, withHost(undefined));
    expect(answer?.status).toBe(400);
    expect((await rpcErrorOf(answer)).message).toBe("the request has no Host header");
  });

  it.each(["evil.example", "evil.example:3333", "localhost.evil.example", "127.0.0.2"])(
    "refuses the well-formed but unlisted Host %j with 403 naming http.allowedHosts",
    async (host) => {
      const answer = await run(guard, withHost(host));
      expect(answer?.status).toBe(403);
      expect((await rpcErrorOf(answer)).message).toMatch(/is not allowed; allow it with http\.allowedHosts/);
    },
  );

  it.each(["localhost", "LOCALHOST:3333", "127.0.0.1", "[::1]:3333", "[::1]"])(
    "passes the loopback Host %j on",
    async (host) => {
      expect(await run(guard, withHost(host))).toBeUndefined();
    },
  );

  it('checks only the syntax when every Host is allowed ("*")', async () => {
    const open = hostGuard("*");
    expect(await run(open, withHost("anything.example:8080"))).toBeUndefined();
    expect((await run(open, withHost("evil.com@localhost")))?.status).toBe(400);
  });

  it("reads the Host header, never the URL (which a client does not send)", async () => {
    const request = post(rpc("tools/list"), {}, "http://localhost/mcp");
    request.headers.set("host", "evil.example");
    expect((await run(guard, request))?.status).toBe(403);
  });
});

describe("parseHostHeader", () => {
  it("takes a Host apart, lower-casing the name", () => {
    expect(parseHostHeader("LOCALHOST:3333")).toEqual({ hostname: "localhost", port: 3333 });
    expect(parseHostHeader("[::FFFF:127.0.0.1]")).toEqual({ hostname: "[::ffff:127.0.0.1]", port: undefined });
    expect(parseHostHeader("evil.com@localhost")).toBeUndefined();
    expect(parseHostHeader(undefined)).toBeUndefined();
  });
});
