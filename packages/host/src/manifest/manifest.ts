// The manifest's types, inferred from its one definition (manifest-schema.ts and its sections), which also generates
// manifest.schema.json: a field added there appears here and in the published schema at once. Type imports only:
// nothing here runs.
import type { z } from "zod";
import type {
  CredentialSettingsSchema,
  PerCallerCredentialSchema,
  ServerAuthSchema,
} from "./credential-settings-schema.js";
import type { HttpSettingsSchema, JwtSettingsSchema, StaticTokenSchema } from "./http-settings-schema.js";
import type {
  ConfirmationFallbackSchema,
  DiscoverySchema,
  ManifestSchema,
  SeparatorSchema,
  StateSettingsSchema,
  StdioSettingsSchema,
  TaskSettingsSchema,
} from "./manifest-schema.js";
import type { SecretSourceSchema } from "./schema-blocks.js";
import type { ServerEntrySchema } from "./server-entry-schema.js";
import type { SkillEntrySchema } from "./skill-entry-schema.js";

/** The manifest as written in skills.manifest.json (see manifest.schema.json for every field's meaning). */
export type Manifest = z.input<typeof ManifestSchema>;

/** One skill instance in the manifest. */
export type SkillEntry = z.input<typeof SkillEntrySchema>;

/** One upstream MCP server in the manifest (`servers[i]`), as MCP clients configure one. */
export type ServerEntry = z.input<typeof ServerEntrySchema>;

/** How an instance's full tool names join its mcp id and the tool's name. */
export type Separator = z.output<typeof SeparatorSchema>;

/** What a dangerous tool answers when the client cannot ask its user. */
export type ConfirmationFallback = z.output<typeof ConfirmationFallbackSchema>;

/** The manifest's `discovery`, as written: "all", "search", or an object that also names the discovery tools. */
export type DiscoverySettings = z.input<typeof DiscoverySchema>;

/** How clients find the tools, with every default filled in. */
export interface Discovery {
  /** "all": every tool in tools/list. "search": the always-loaded tools and the two discovery tools. */
  mode: "all" | "search";
  /** The tool that searches the tools. */
  searchTool: string;
  /** The tool that calls a tool by name. */
  callTool: string;
  /** How many tools a search answers when its caller gives no limit. */
  results: number;
}

/** Where a secret comes from: an environment variable or a file (trimmed). */
export type SecretSource = z.input<typeof SecretSourceSchema>;

/** A skill credential each caller brings (`{ "perCaller": true }`), as written. */
export type PerCallerCredential = z.input<typeof PerCallerCredentialSchema>;

/** A server entry's `auth`: how it is called on each caller's behalf, as written. */
export type ServerAuth = z.input<typeof ServerAuthSchema>;

/** The manifest's `credentials` object, defaults filled in. */
export type CredentialSettings = z.output<typeof CredentialSettingsSchema>;

/** The manifest's `http` object, as written. */
export type HttpSettings = z.input<typeof HttpSettingsSchema>;

/** One static bearer token: its name is the caller's identity, never the token. */
export type StaticTokenEntry = z.input<typeof StaticTokenSchema>;

/** OAuth 2.1 resource-server mode: JWT access tokens verified against a JWKS. */
export type JwtSettings = z.input<typeof JwtSettingsSchema>;

/** The manifest's `stdio` object: how `serve --stdio` reads its client's messages. */
export type StdioSettings = z.input<typeof StdioSettingsSchema>;

/** The manifest's `state` object: where replicas share rate limits, one-time confirmations and readiness. */
export type StateSettings = z.input<typeof StateSettingsSchema>;

/**
 * The `http` settings with every default filled in (from defaults.ts); `allowedHosts` depends on the bound address,
 * so it may stay unset, and `burst` defaults to `requestsPerMinute`.
 */
export interface LoadedHttpSettings {
  host: string;
  port: number;
  path: string;
  publicUrl: string | undefined;
  allowedHosts: string[] | undefined;
  allowedOrigins: string[];
  maxBodyBytes: number;
  rateLimit: { requestsPerMinute: number; burst: number };
  timeouts: { headersMs: number; requestMs: number; idleMs: number };
  shutdownGraceMs: number;
  /** Keep 2025-era sessions over HTTP (see the manifest's `http.sessions`). */
  sessions: boolean;
  auth: { tokens: StaticTokenEntry[]; jwt: JwtSettings | undefined };
}

/** A manifest read from disk and checked against its schema, its defaults filled in. */
export interface LoadedManifest {
  /** Absolute path of the manifest file. */
  file: string;
  /** The folder the manifest's relative paths and packages resolve from. */
  dir: string;
  name: string;
  version: string;
  separator: Separator;
  /** How clients find the tools. */
  discovery: Discovery;
  /** `file` resolved against the manifest's folder. */
  audit: { file: string | undefined; arguments: boolean };
  confirmation: { secret: SecretSource | undefined; ttlSeconds: number; fallback: ConfirmationFallback };
  /** As written: the registry applies a skill entry's defaults when it builds the instance. */
  skills: SkillEntry[];
  /** As written (empty when absent): the registry applies a server entry's defaults when it builds the server. */
  servers: ServerEntry[];
  /** How `serve --http` serves it, defaults filled in. */
  http: LoadedHttpSettings;
  /** How `serve --stdio` reads messages, defaults filled in. */
  stdio: { maxMessageBytes: number };
  /** How task-capable tools run as tasks, defaults filled in. */
  tasks: z.output<typeof TaskSettingsSchema>;
  /** Per-caller credentials, defaults filled in; undefined when the manifest has no `credentials`. */
  credentials: z.output<typeof CredentialSettingsSchema> | undefined;
  /** Where replicas share state, as written (the memory store when absent). */
  state: z.output<typeof StateSettingsSchema>;
}
