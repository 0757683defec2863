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
 * one SSE event past `maxResultBytes` stops the download and resets the connection. A request whose `_meta` carries
 * W3C trace context (`traceparent`, `tracestate`; see CallToolOptions.meta) sends it as HTTP headers too, for the
 * proxies and gateways on the way that read only those.
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
        fetch: limitedFetch(
          withTraceHeaders(spec.fetch ?? ((input, init) => fetch(input, init))),
          maxResultBytes,
          exceeded,
        ),
      });
      return { ok: true, opened: { transport }, secrets: reading.secrets };
    },
  };
}

// --- internal ---

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that copies a request's `_meta` trace context into its headers; any other request goes as it is. */
function withTraceHeaders(fetch: Fetch): Fetch {
  return (url, init) => {
    const body = init?.body;
    // Only a body that names a traceparent is read again: most requests carry none.
    if (typeof body !== "string" || !body.includes('"traceparent"')) return fetch(url, init);
    const meta = metaOf(body);
    const traceparent = meta?.traceparent;
    if (typeof traceparent !== "string") return fetch(url, init);
    const headers = new Headers(init?.headers);
    headers.set("traceparent", traceparent);
    if (typeof meta?.tracestate === "string") headers.set("tracestate", meta.tracestate);
    return fetch(url, { ...init, headers });
  };
}

/** The `_meta` of one JSON-RPC request's params, read from its body; undefined for anything else. */
function metaOf(body: string): Record<string, unknown> | undefined {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  const params = (message as { params?: unknown } | null)?.params;
  const meta = (params as { _meta?: unknown } | null | undefined)?._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
}
