/** The manifest as written in skills.manifest.json (see manifest.schema.json). */
export interface Manifest {
  $schema?: string;
  name?: string;
  version?: string;
  separator?: Separator;
  audit?: { file?: string; arguments?: boolean };
  confirmation?: { secret?: SecretSource; ttlSeconds?: number; fallback?: ConfirmationFallback };
  skills: SkillEntry[];
  http?: HttpSettings;
  stdio?: StdioSettings;
}

/** The manifest's `stdio` object: how `serve --stdio` reads its client's messages. */
export interface StdioSettings {
  maxMessageBytes?: number;
}

export type Separator = "." | "_" | "__";

/** What a dangerous tool answers when the client cannot ask its user (see manifest.schema.json). */
export type ConfirmationFallback = "refuse" | "operation-id";

/** Where a secret comes from: an environment variable or a file (trimmed). */
export type SecretSource = { env: string } | { file: string };

/** One skill instance in the manifest. */
export interface SkillEntry {
  package?: string;
  path?: string;
  version?: string;
  mcp?: string;
  enabled?: boolean;
  config?: Record<string, unknown>;
  tools?: {
    include?: string[];
    exclude?: string[];
    rename?: Record<string, string>;
    override?: Record<
      string,
      { title?: string; description?: string; annotations?: { idempotentHint?: boolean; openWorldHint?: boolean } }
    >;
  };
  prefix?: boolean;
  credentials?: Record<string, SecretSource>;
  timeoutMs?: number;
  concurrency?: number;
  queue?: number;
  isolation?: "in-process" | "worker" | "process";
  memoryMb?: number;
  allow?: string[];
  /** Scopes an HTTP caller must hold, by tool name as the skill defines it; `"*"` applies to every tool. */
  scopes?: Record<string, string[]>;
}

/** One static bearer token: its name is the caller's identity, never the token. */
export interface StaticTokenEntry {
  name: string;
  scopes?: string[];
  token: SecretSource;
}

/** OAuth 2.1 resource-server mode: JWT access tokens verified against a JWKS. */
export interface JwtSettings {
  jwksUrl?: string;
  jwksFile?: string;
  issuer: string;
  audience: string | string[];
  resource?: string;
  algorithms?: string[];
  clockToleranceSec?: number;
}

/** The manifest's `http` object, as written (see manifest.schema.json for every field's meaning). */
export interface HttpSettings {
  host?: string;
  port?: number;
  path?: string;
  publicUrl?: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  maxBodyBytes?: number;
  rateLimit?: { requestsPerMinute?: number; burst?: number };
  timeouts?: { headersMs?: number; requestMs?: number; idleMs?: number };
  shutdownGraceMs?: number;
  auth?: { tokens?: StaticTokenEntry[]; jwt?: JwtSettings };
}

/** The `http` settings with every default filled in; `allowedHosts` depends on the bound address, so it may stay unset. */
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
  auth: { tokens: StaticTokenEntry[]; jwt: JwtSettings | undefined };
}

/** A manifest read from disk and checked against its schema. */
export interface LoadedManifest {
  /** Absolute path of the manifest file. */
  file: string;
  /** The folder the manifest's relative paths and packages resolve from. */
  dir: string;
  name: string;
  version: string;
  separator: Separator;
  audit: { file: string | undefined; arguments: boolean };
  confirmation: { secret: SecretSource | undefined; ttlSeconds: number; fallback: ConfirmationFallback };
  skills: SkillEntry[];
  /** How `serve --http` serves it, defaults filled in. */
  http: LoadedHttpSettings;
  /** How `serve --stdio` reads messages, defaults filled in. */
  stdio: { maxMessageBytes: number };
}
