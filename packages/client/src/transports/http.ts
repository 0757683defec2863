import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { readCredentials } from "../credentials.js";
import type { Connector } from "../handle.js";
import { negotiation } from "../handle.js";
import type { Credential, HttpSpec } from "../types.js";

/**
 * Streamable HTTP, in Node and in browsers (nothing here imports a Node built-in). Both protocol eras: `"auto"`
 * (the default) asks the server with `server/discover` and falls back to the 2025 `initialize` handshake.
 * Credentials become headers at each start.
 */
export function httpConnector(spec: HttpSpec): Connector {
  const url = new URL(spec.url);
  const source = spec.name ?? `${url.origin}${url.pathname}`;
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
    async open() {
      const reading = await readCredentials(source, credentials);
      if (!reading.ok) return reading;
      const headers: Record<string, string> = { ...spec.headers };
      for (const { value, to } of reading.present) {
        if (to === "bearer") headers.Authorization = `Bearer ${value}`;
        else headers[to.header] = `${to.prefix ?? ""}${value}`;
      }
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers },
        ...(spec.fetch === undefined ? {} : { fetch: spec.fetch }),
      });
      return { ok: true, opened: { transport }, secrets: reading.secrets };
    },
  };
}
