import { isIPv6 } from "node:net";

/** The methods the MCP endpoint answers: POST carries every message, OPTIONS is the CORS preflight. */
export const MCP_METHODS = "POST, OPTIONS";

/** A Host header taken apart: the hostname in lower case (an IPv6 address keeps its brackets) and the port. */
export interface HostHeader {
  hostname: string;
  port: number | undefined;
}

/** The outcome of a guard: go on, or answer with this status and message. */
export type GuardOutcome = { ok: true } | { ok: false; status: 400 | 403 | 405; message: string };

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

/**
 * DNS-rebinding protection: the Host header must parse strictly (400 otherwise) and name an allowed hostname
 * (403 otherwise). `"*"` allows any well-formed Host.
 */
export function checkHost(value: string | undefined, allowed: readonly string[] | "*"): GuardOutcome {
  const host = parseHostHeader(value);
  if (host === undefined) {
    return {
      ok: false,
      status: 400,
      message:
        value === undefined
          ? "the request has no Host header"
          : `the Host header ${JSON.stringify(value)} is not a hostname[:port] (an IPv6 address in brackets)`,
    };
  }
  if (allowed !== "*" && !allowed.includes(host.hostname)) {
    return {
      ok: false,
      status: 403,
      message: `the Host ${host.hostname} is not allowed; allow it with http.allowedHosts in the manifest`,
    };
  }
  return { ok: true };
}

/**
 * Browser pages: a request without an Origin header (every non-browser client) passes; a request with one passes
 * only when that exact origin (scheme://host[:port], as the browser sends it) is listed. Loopback pages are no
 * exception: any local web page could otherwise call write tools.
 */
export function checkOrigin(value: string | undefined, allowed: ReadonlySet<string>): GuardOutcome {
  if (value === undefined || allowed.has(value)) return { ok: true };
  return {
    ok: false,
    status: 403,
    message: `a web page from the origin ${JSON.stringify(value)} may not call this server; to allow it, list that exact origin in http.allowedOrigins in the manifest`,
  };
}

/** Only POST (and OPTIONS, the preflight) reaches the MCP endpoint; any other method answers 405 with `Allow`. */
export function checkMethod(method: string | undefined, path: string): GuardOutcome {
  if (method === "POST" || method === "OPTIONS") return { ok: true };
  return {
    ok: false,
    status: 405,
    message: `${method ?? "this method"} is not allowed on ${path}; send JSON-RPC messages with POST`,
  };
}

// --- internal ---

/** hostname (letters, digits, hyphens, dot-separated) or [IPv6], then an optional port of 1–5 digits. */
const HOST_HEADER = /^(?:([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)|\[([0-9A-Fa-f:.]+)\])(?::([0-9]{1,5}))?$/;
