// The manifest's section for Streamable HTTP (`http`): binding, origins, limits and who may call (static tokens, JWT).
import { z } from "zod";
import { HTTP_AUTH_DEFAULTS, HTTP_DEFAULTS } from "./defaults.js";
import { matching, ScopeList, SecretSourceSchema, unique } from "./schema-blocks.js";

export const StaticTokenSchema = z
  .strictObject({
    name: matching("^[A-Za-z0-9._:@-]{1,64}$").meta({
      description: "Names the caller: ctx.auth.id, logs and metrics show it as token:<name>. Never the token itself.",
      examples: ["ci-bot"],
    }),
    scopes: ScopeList.default([...HTTP_AUTH_DEFAULTS.tokenScopes]).meta({
      description: "The scopes a caller with this token holds.",
    }),
    token: SecretSourceSchema,
  })
  .meta({ id: "staticToken" });

export const JwtSettingsSchema = z
  .strictObject({
    jwksUrl: z
      .url()
      .meta({
        description: "The issuer's JWKS URL, fetched on first use and cached. Give jwksUrl or jwksFile.",
        examples: ["https://auth.example.com/.well-known/jwks.json"],
      })
      .optional(),
    jwksFile: z
      .string()
      .min(1)
      .meta({ description: "A JWKS file, relative to the manifest, read at startup.", examples: ["./jwks.json"] })
      .optional(),
    issuer: z
      .string()
      .min(1)
      .meta({
        description:
          "The required `iss` claim; also advertised as the authorization server in the protected-resource metadata.",
        examples: ["https://auth.example.com"],
      }),
    audience: z.xor([z.string().min(1), z.array(z.string().min(1)).min(1)]).meta({
      description: "The required `aud` claim: this server's resource identifier, usually its public URL.",
      examples: ["https://skills.example.com/mcp"],
    }),
    resource: z
      .url()
      .meta({
        description:
          "This server's public MCP URL, advertised as `resource` in /.well-known/oauth-protected-resource when http.publicUrl is not set (give one of them, or the same URL in both).",
        examples: ["https://skills.example.com/mcp"],
      })
      .optional(),
    algorithms: unique(z.string().min(1))
      .meta({
        description: "Accepted signing algorithms. Defaults to the asymmetric algorithms jose supports.",
        examples: [["RS256", "ES256"]],
      })
      .optional(),
    clockToleranceSec: z
      .int()
      .min(0)
      .max(300)
      .default(HTTP_AUTH_DEFAULTS.clockToleranceSec)
      .describe("Leeway for exp and nbf."),
  })
  .meta({
    id: "jwtAuth",
    description:
      "OAuth 2.1 resource-server mode: JWT access tokens verified against the issuer's keys (JWKS), with issuer, audience and expiry checked.",
  });

const HttpAuth = z
  .strictObject({
    tokens: z
      .array(StaticTokenSchema)
      .min(1)
      .describe("Static bearer tokens, each with a name (the caller's identity) and scopes.")
      .optional(),
    jwt: JwtSettingsSchema.optional(),
  })
  .meta({
    id: "httpAuth",
    description:
      "Bearer authentication for the MCP endpoint: static tokens, OAuth 2.1 JWT access tokens, or both. Required when `host` is not loopback.",
  });

export const HttpSettingsSchema = z
  .strictObject({
    host: z
      .string()
      .min(1)
      .default(HTTP_DEFAULTS.host)
      .meta({
        description:
          "The address to bind. Loopback (127.0.0.1, ::1, localhost) by default; any other address requires `auth`, or the host refuses to start.",
        examples: ["127.0.0.1", "0.0.0.0"],
      }),
    port: z
      .int()
      .min(0)
      .max(65_535)
      .default(HTTP_DEFAULTS.port)
      .describe('The TCP port; 0 picks a free one (the bound URL is logged as {"msg":"listening","url":…}).'),
    path: matching("^/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$")
      .default(HTTP_DEFAULTS.path)
      .describe("The MCP endpoint's path."),
    publicUrl: matching("^https?://[^/?#@\\s]+(/[^?#\\s]*)?$")
      .meta({
        format: "uri",
        description:
          "The MCP endpoint's URL as clients reach it (behind a proxy: the public one), e.g. https://skills.example.com/mcp. Advertised as `resource` in /.well-known/oauth-protected-resource and in the WWW-Authenticate challenge; never taken from request headers. Defaults to auth.jwt.resource, else, on loopback, the bound URL. Required with JWT authentication beyond loopback.",
        examples: ["https://skills.example.com/mcp"],
      })
      .optional(),
    allowedHosts: unique(
      matching("^(\\*|[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*|\\[[0-9A-Fa-f:.]+\\])$").describe(
        'A hostname or address as the Host header carries it, without a port (IPv6 in brackets), or "*".',
      ),
    )
      .meta({
        description:
          'Host header hostnames (no port) the MCP endpoint answers besides localhost, 127.0.0.1 and [::1] (always answered), and the bound address when it is a specific one; any other Host gets 403 (DNS-rebinding protection). "*" accepts any Host (only behind a proxy that checks it).',
        examples: [["skills.example.com"]],
      })
      .optional(),
    allowedOrigins: unique(
      matching("^[a-z][a-z0-9+.-]*://([a-z0-9-]+(\\.[a-z0-9-]+)*|\\[[0-9a-f:.]+\\])(:[0-9]{1,5})?$").describe(
        "An origin as a browser sends it: scheme://host[:port] in lower case, no path, no trailing slash, no default port.",
      ),
    )
      .default([...HTTP_DEFAULTS.allowedOrigins])
      .meta({
        description:
          "Browser origins (scheme://host[:port], exactly as a browser sends them in Origin) that may call the MCP endpoint, with CORS. A request with any other Origin gets 403, loopback pages included; requests without an Origin (non-browser clients) pass. Default: none, so no web page can call the server.",
        examples: [["https://app.example.com", "http://localhost:5173"]],
      }),
    maxBodyBytes: z
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(HTTP_DEFAULTS.maxBodyBytes)
      .describe("The largest request body accepted; a larger one gets 413."),
    rateLimit: z
      .strictObject({
        requestsPerMinute: z
          .int()
          .min(0)
          .default(HTTP_DEFAULTS.requestsPerMinute)
          .describe("Sustained requests per minute per caller; 0 turns the limit off. Over it: 429 with Retry-After."),
        burst: z
          .int()
          .min(1)
          .describe(
            "How many requests a caller may send at once before the rate applies. Defaults to requestsPerMinute.",
          )
          .optional(),
      })
      .describe(
        "A token bucket per caller (token:<name>, jwt:<subject>, or the remote address when unauthenticated), kept in the state store (see `state`): with the default memory store each replica counts on its own, so behind N replicas a caller may get up to N times the limit; with Redis the budget is shared by every replica. Each request carries one JSON-RPC message (batches are refused), so the limit counts calls.",
      )
      .optional(),
    timeouts: z
      .strictObject({
        headersMs: z
          .int()
          .min(1)
          .default(HTTP_DEFAULTS.headersMs)
          .describe("Time allowed to receive a request's headers."),
        requestMs: z
          .int()
          .min(1)
          .default(HTTP_DEFAULTS.requestMs)
          .describe("Time allowed to receive a whole request (headers and body); not the time a tool may run."),
        idleMs: z
          .int()
          .min(1)
          .default(HTTP_DEFAULTS.idleMs)
          .describe("How long an idle keep-alive connection stays open between requests."),
      })
      .describe("Socket timeouts that keep slow or idle clients from holding connections.")
      .optional(),
    shutdownGraceMs: z
      .int()
      .min(0)
      .default(HTTP_DEFAULTS.shutdownGraceMs)
      .describe(
        "On SIGTERM or SIGINT, how long in-flight requests may run to completion after the server stops accepting new ones.",
      ),
    sessions: z
      .boolean()
      .default(HTTP_DEFAULTS.sessions)
      .describe(
        "true keeps a session for each 2025-11-25 client that initializes (Mcp-Session-Id), so that over HTTP in that era the server can ask the client during a call (elicitation, sampling, roots: confirmations and ctx.elicit) and remembers logging/setLevel. Sessions live in this process: behind a load balancer, route a session's requests to one replica (sticky sessions). The 2026-07-28 era needs none. Default false: every request is served on its own.",
      ),
    auth: HttpAuth.optional(),
  })
  .meta({
    id: "http",
    description:
      "How `skillport serve --http` serves this manifest over Streamable HTTP. Command-line flags override these fields.",
    examples: [
      {
        host: "0.0.0.0",
        port: 3333,
        allowedHosts: ["skills.example.com"],
        auth: { tokens: [{ name: "ci-bot", scopes: ["notes:read"], token: { env: "SKILLPORT_TOKEN_CI" } }] },
      },
    ],
  });
