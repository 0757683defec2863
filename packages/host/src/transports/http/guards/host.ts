import { isIPv6 } from "node:net";
import type { Guard } from "../guard.js";
import { rpcError } from "../responses.js";

/** A Host header taken apart: the hostname in lower case (an IPv6 address keeps its brackets) and the port. */
export interface HostHeader {
  hostname: string;
  port: number | undefined;
}

/**
 * DNS-rebinding protection: a page in a browser must not reach the server through a name it controls. The Host
 * header must parse strictly (400 otherwise) and name an allowed hostname (403 otherwise); `"*"` allows any
 * well-formed Host.
 *
 * @example
 * const guard = hostGuard(["localhost", "127.0.0.1", "[::1]"]);
 * guard(new Request("http://x/mcp", { headers: { host: "evil.example" } }), context); // 403
 */
export function hostGuard(allowed: readonly string[] | "*"): Guard {
  return (request) => {
    const value = request.headers.get("host") ?? undefined;
    const host = parseHostHeader(value);
    if (host === undefined) {
      return rpcError(
        400,
        value === undefined
          ? "the request has no Host header"
          : `the Host header ${JSON.stringify(value)} is not a hostname[:port] (an IPv6 address in brackets)`,
      );
    }
    if (allowed !== "*" && !allowed.includes(host.hostname)) {
      return rpcError(403, `the Host ${host.hostname} is not allowed; allow it with http.allowedHosts in the manifest`);
    }
    return undefined;
  };
}

/**
 * Parses a Host header strictly (RFC 9110 §7.2): a hostname or IPv4 address, or an IPv6 address in brackets,
 * optionally `:port` (1–65535). Anything else — userinfo (`evil.com@localhost`), a path, a query, spaces, a
 * second colon, an empty port — is not a Host header and answers undefined. A lenient URL parser would read
 * `evil.com@localhost` as the host `localhost`.
 *
 * @example
 * parseHostHeader("LOCALHOST:3333"); // { hostname: "localhost", port: 3333 }
 * parseHostHeader("evil.com@localhost"); // undefined
 */
export function parseHostHeader(value: string | undefined): HostHeader | undefined {
  if (value === undefined) return undefined;
  const match = HOST_HEADER.exec(value);
  if (match === null) return undefined;
  const [, name, ipv6, portText] = match;
  if (ipv6 !== undefined && !isIPv6(ipv6)) return undefined;
  let port: number | undefined;
  if (portText !== undefined) {
    port = Number(portText);
    if (port < 1 || port > 65535) return undefined;
  }
  const hostname = name !== undefined ? name.toLowerCase() : `[${(ipv6 as string).toLowerCase()}]`;
  return { hostname, port };
}

// --- internal ---

/** hostname (letters, digits, hyphens, dot-separated) or [IPv6], then an optional port of 1–5 digits. */
const HOST_HEADER = /^(?:([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)|\[([0-9A-Fa-f:.]+)\])(?::([0-9]{1,5}))?$/;
