// The manifest's per-caller credentials: the top-level `credentials` object (the keys records are sealed with, where
// they are kept, how long a connect link lives), a skill credential that resolves per caller, and a server entry's
// `auth` (a token per caller, OAuth per caller, or RFC 8693 token exchange).
import { z } from "zod";
import { CREDENTIAL_DEFAULTS } from "./defaults.js";
import { matching, ScopeList, SecretSourceSchema, unique } from "./schema-blocks.js";

const HttpsUrl = (description: string, examples: readonly string[]) =>
  matching("^https?://[^\\s?#]+$").meta({ description, examples: [...examples] });

const KeyId = matching("^[A-Za-z0-9._-]{1,32}$").meta({
  description: "The key's id, written into every record it seals, so an older key can still open its records.",
  examples: ["2026-12"],
});

/** One key credentials are sealed with (AES-256-GCM): 32 bytes, base64 or hex, from the environment or a file. */
const SealingKey = z
  .xor([
    z.strictObject({ id: KeyId, env: matching("^[A-Za-z_][A-Za-z0-9_]*$").describe("The environment variable.") }),
    z.strictObject({ id: KeyId, file: z.string().min(1).describe("A file holding it, relative to the manifest.") }),
  ])
  .meta({
    id: "sealingKey",
    description: "A key per-caller credentials are sealed with: its id, and where its 32 bytes (base64 or hex) are.",
  });

export const CredentialSettingsSchema = z
  .strictObject({
    keys: z
      .array(SealingKey)
      .min(1)
      .max(16)
      .refine((keys) => new Set(keys.map((k) => k.id)).size === keys.length, "key ids must be unique")
      .meta({
        description:
          "The keys per-caller credentials are sealed with (AES-256-GCM), each 32 bytes written as base64 or hex (openssl rand -base64 32). The first seals every new record; the others only open records sealed before a rotation.",
        examples: [[{ id: "2026-12", env: "SKILLPORT_CREDENTIALS_KEY" }]],
      }),
    store: z
      .xor([
        z.literal("state").describe("Where the shared state is: Redis when `state` is Redis, else this process."),
        z.strictObject({
          file: z
            .string()
            .min(1)
            .meta({ description: "A file, relative to the manifest (one machine).", examples: ["./.credentials"] }),
        }),
      ])
      .default(CREDENTIAL_DEFAULTS.store)
      .describe(
        'Where the sealed records are kept: "state" (Redis when the manifest\'s state is Redis, so every replica sees them; otherwise this process only, lost at exit) or a file for one machine.',
      ),
    linkTtlSeconds: z
      .int()
      .min(30)
      .max(3600)
      .default(CREDENTIAL_DEFAULTS.linkTtlSeconds)
      .describe("How long a connect link (sent with CREDENTIALS_MISSING) can be opened; each opens once."),
  })
  .meta({
    id: "credentials",
    description:
      "Per-caller credentials: where the credentials each caller connects (a personal token, OAuth tokens) are kept, sealed. Needed when a skill credential or a server says `perCaller`.",
    examples: [{ keys: [{ id: "2026-12", env: "SKILLPORT_CREDENTIALS_KEY" }] }],
  });

/** An OAuth 2.1 authorization server a credential is connected through (authorization code with PKCE). */
const OAuthClientSchema = z
  .strictObject({
    issuer: HttpsUrl(
      "The authorization server's issuer; its metadata is read from /.well-known/oauth-authorization-server (RFC 8414) or the OpenID one.",
      ["https://auth.example.com"],
    ),
    clientId: z
      .string()
      .min(1)
      .max(512)
      .describe("A client registered beforehand; without it the host registers itself (RFC 7591) once per server.")
      .optional(),
    clientSecret: SecretSourceSchema.meta({ description: "The registered client's secret, if it has one." }).optional(),
    scopes: ScopeList.describe("The scopes asked for.").optional(),
    resource: HttpsUrl("The resource indicator (RFC 8707) asked for, when the server needs one.", [
      "https://api.example.com",
    ]).optional(),
  })
  .meta({ id: "oauthClient" });

export const PerCallerCredentialSchema = z
  .strictObject({
    perCaller: z
      .literal(true)
      .describe("Each caller brings their own: a personal token they store, or one from the OAuth flow below."),
    fallback: SecretSourceSchema.meta({
      description:
        "What a caller without their own gets (and what stdio, one local user, always gets). Without it such a caller is answered CREDENTIALS_MISSING with a link to connect.",
    }).optional(),
    oauth: OAuthClientSchema.meta({
      description: "Connect through this authorization server instead of pasting a token (needs `issuer`).",
    }).optional(),
    label: z.string().min(1).max(80).describe("How the connections page names it.").optional(),
  })
  .meta({ id: "perCallerCredential" });

const ListWith = SecretSourceSchema.meta({
  description:
    "A credential of the host's own that lists the server's tools at start (and for skillport lock), never used for a caller's call. Without it the tools come from the lock.",
}).optional();

export const ServerAuthSchema = z
  .xor([
    z.strictObject({
      perCaller: z.literal("token").describe("Each caller stores their own token for this server."),
      header: matching("^[A-Za-z0-9-]{1,128}$")
        .default("Authorization")
        .describe('The header it is sent in (remote servers). Default "Authorization".'),
      scheme: z.string().max(32).default("Bearer").describe('Put before the token in the header. Default "Bearer".'),
      env: matching("^[A-Za-z_][A-Za-z0-9_]*$")
        .describe("The variable it is given in (a command server: one process per caller).")
        .optional(),
      fallback: SecretSourceSchema.meta({
        description: "What a caller without their own token gets; without it they are asked to connect.",
      }).optional(),
      label: z.string().min(1).max(80).optional(),
      listWith: ListWith,
    }),
    z.strictObject({
      perCaller: z
        .literal("oauth")
        .describe(
          "Each caller connects through the server's own authorization server (MCP authorization: RFC 9728 metadata, PKCE, dynamic registration).",
        ),
      clientId: z.string().min(1).max(512).describe("A client registered beforehand (else RFC 7591).").optional(),
      clientSecret: SecretSourceSchema.optional(),
      scopes: ScopeList.optional(),
      label: z.string().min(1).max(80).optional(),
      listWith: ListWith,
    }),
    z.strictObject({
      perCaller: z
        .literal("exchange")
        .describe(
          "The caller's own access token (a JWT this host verified) is exchanged (RFC 8693) at the identity provider for one meant for this server; the caller's token itself is never sent to the server.",
        ),
      issuer: HttpsUrl("The identity provider whose token endpoint exchanges tokens (RFC 8414 metadata).", [
        "https://idp.example.com",
      ]),
      audience: z.string().min(1).max(512).describe("The `audience` asked for (the server's identifier)."),
      resource: HttpsUrl("The `resource` asked for (RFC 8707), when the provider wants one.", [
        "https://tools.example.com/mcp",
      ]).optional(),
      clientId: z.string().min(1).max(512).describe("This host's client at the provider."),
      clientSecret: SecretSourceSchema,
      scopes: unique(z.string().min(1)).optional(),
      label: z.string().min(1).max(80).optional(),
      listWith: ListWith,
    }),
  ])
  .meta({
    id: "serverAuth",
    description:
      "How this server is called on each caller's behalf over HTTP (stdio has one local user and uses `headers`/`env`). The caller's own token is never forwarded.",
  });
