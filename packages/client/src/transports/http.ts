import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { limitedFetch, maxResultBytesOf } from "../answer-limit.js";
import { readCredentials } from "../credentials.js";
import type { Connector } from "../handle.js";
import { negotiation } from "../handle.js";
import type { Credential, HttpSpec } from "../types.js";

/**
 * Streamable HTTP, in Node and in browsers (nothing here imports a Node built-in). Both protocol eras: `"auto"`
 * (the default) asks the server with `server/discover` and falls back to the 2025 `initialize` handshake.
 * Credentials become headers at each start. Every response body goes through a counting fetch: a JSON body or
 * one SSE event past `maxResultBytes` stops the download and resets the connection.
 */
export function httpConnector(spec: HttpSpec): Connector {
  const url = new URL(spec.url);
  const source = spec.name ?? `${url.origin}${url.pathname}`;
  const maxResultBytes = maxResultBytesOf(spec.maxResultBytes);
  const credentials: Record<string, Credential<"bearer" | { header: string; prefix?: string }>> = {
    ...spec.credentials,
  };
  if (spec.bearer !== undefined) {
    credentials.bearer = { from: typeof spec.bearer === "string" ? { value: spec.bearer } : spec.bearer, to: "bearer" };
  }
  return {
    transport: "http",
    source,
    versionNegotiation: negotiation(spec.protocol ?? "auto"),
    maxResultBytes,
    async open(exceeded) {
      const reading = await readCredentials(source, credentials);
      if (!reading.ok) return reading;
      const headers: Record<string, string> = { ...spec.headers };
      for (const { value, to } of reading.present) {
        if (to === "bearer") headers.Authorization = `Bearer ${value}`;
        else headers[to.header] = `${to.prefix ?? ""}${value}`;
      }
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers },
        fetch: limitedFetch(spec.fetch ?? ((input, init) => fetch(input, init)), maxResultBytes, exceeded),
      });
      return { ok: true, opened: { transport }, secrets: reading.secrets };
    },
  };
}
