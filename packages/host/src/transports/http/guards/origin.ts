import type { Guard } from "../guard.js";
import { rpcError } from "../responses.js";

/**
 * Browser pages: a request without an Origin header (every non-browser client) passes; a request with one passes
 * only when that exact origin (scheme://host[:port], as the browser sends it) is listed, else 403. Loopback pages
 * are no exception: any local web page could otherwise call write tools. An allowed origin is kept in
 * `context.origin`, so every answer after this guard carries its CORS headers ({@link withCors}).
 *
 * @example
 * const guard = originGuard(new Set(["http://localhost:5173"]));
 */
export function originGuard(allowed: ReadonlySet<string>): Guard {
  return (request, context) => {
    const origin = request.headers.get("origin");
    if (origin === null) return undefined;
    if (!allowed.has(origin)) {
      return rpcError(
        403,
        `a web page from the origin ${JSON.stringify(origin)} may not call this server; to allow it, list that exact origin in http.allowedOrigins in the manifest`,
      );
    }
    context.origin = origin;
    return undefined;
  };
}

/**
 * The answer with CORS headers for an allowed origin: the page may read it, and the headers a client needs
 * (session, protocol version, challenge, retry) are exposed. Headers the answer sets itself are kept.
 */
export function withCors(response: Response, origin: string): Response {
  const headers = new Headers(corsHeadersOf(origin));
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers.set(name, value);
  });
  for (const cookie of response.headers.getSetCookie()) headers.append("set-cookie", cookie);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The CORS headers of every answer to an allowed origin's page (see {@link withCors}). */
export function corsHeadersOf(origin: string): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    vary: "origin",
    "access-control-expose-headers": "mcp-session-id, mcp-protocol-version, www-authenticate, retry-after",
  };
}
