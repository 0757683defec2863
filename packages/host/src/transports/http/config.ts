import { readFile } from "node:fs/promises";
import path from "node:path";
import type { JSONWebKeySet } from "jose";
import { HostError, messageOf } from "../../errors/host-error.js";
import type { LoadedHttpSettings, LoadedManifest, SecretSource } from "../../manifest/manifest.js";
import { readSecret } from "../../manifest/read-secret.js";
import { CONNECTIONS_PREFIX, RESERVED_PATHS, WELL_KNOWN_PREFIX } from "./routes.js";

/** Command-line values that override the manifest's `http` object. */
export interface HttpOverrides {
  /** @default the manifest's http.host, else "127.0.0.1" */
  host?: string;
  /** @default the manifest's http.port, else 3333; 0 picks a free port */
  port?: number;
  /** @default the manifest's http.path, else "/mcp" */
  path?: string;
  /** @default the manifest's http.shutdownGraceMs, else 10000 */
  shutdownGraceMs?: number;
  /**
   * Keep 2025-era sessions (`skillport dev` does, so that such clients hear when the tools change).
   * @default the manifest's http.sessions, else false
   */
  sessions?: boolean;
}

/** A static token as the host holds it after startup: the secret read from env or file. */
export interface ResolvedToken {
  name: string;
  scopes: readonly string[];
  secret: string;
}

/** JWT verification settings with the key source resolved. */
export interface ResolvedJwt {
  keys: { url: URL } | { jwks: JSONWebKeySet };
  issuer: string;
  audience: string | string[];
  resource: string | undefined;
  algorithms: string[] | undefined;
  clockToleranceSec: number;
}

/** Everything `serve --http` needs, checked and with secrets read. */
export interface ResolvedHttpConfig
  extends Omit<LoadedHttpSettings, "auth" | "allowedHosts" | "allowedOrigins" | "publicUrl"> {
  /** Host header hostnames the MCP endpoint answers (loopback names always), or "*" for any. */
  allowedHosts: readonly string[] | "*";
  /** The exact origins (scheme://host[:port]) a browser page may call from; empty: none. */
  allowedOrigins: ReadonlySet<string>;
  /**
   * The MCP endpoint's URL as clients reach it, from the manifest (`http.publicUrl`, else `http.auth.jwt.resource`);
   * undefined when neither is set, and the server then falls back to its bound URL on loopback.
   */
  publicUrl: string | undefined;
  /** Whether `host` is a loopback address. */
  loopback: boolean;
  /** Undefined when no authentication is configured (allowed on loopback only). */
  auth: { tokens: readonly ResolvedToken[]; jwt: ResolvedJwt | undefined } | undefined;
}

/** Options for {@link resolveHttpConfig}. */
export interface ResolveHttpConfigOptions extends HttpOverrides {
  /** Where `{ "env": … }` secrets are read. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Loopback hostnames, as the Host allowlist spells them. */
const LOOPBACK_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"] as const;

/** The shortest static token accepted: a guessable token is no protection. */
const MIN_TOKEN_LENGTH = 16;

/**
 * Merges the manifest's `http` object with command-line overrides, reads every secret (token env variables and
 * files, a JWKS file) and checks that the result is safe to serve. Throws a HostError HTTP_CONFIG_INVALID
 * saying what to change, notably when binding beyond loopback without authentication.
 *
 * @example
 * const config = await resolveHttpConfig(host.manifest, { port: 0 });
 */
export async function resolveHttpConfig(
  manifest: LoadedManifest,
  options: ResolveHttpConfigOptions = {},
): Promise<ResolvedHttpConfig> {
  const settings = manifest.http;
  const env = options.env ?? process.env;
  const host = options.host ?? settings.host;
  const port = options.port ?? settings.port;
  const mcpPath = options.path ?? settings.path;
  const problems: string[] = [];

  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`port: ${port} is not a TCP port (0–65535)`);
  if (!mcpPath.startsWith("/") || /[?#\s]/.test(mcpPath)) {
    problems.push(`path: "${mcpPath}" must start with "/" and hold no "?", "#" or spaces`);
  } else if (
    RESERVED_PATHS.includes(mcpPath) ||
    mcpPath.startsWith(WELL_KNOWN_PREFIX) ||
    mcpPath === CONNECTIONS_PREFIX ||
    mcpPath.startsWith(`${CONNECTIONS_PREFIX}/`)
  ) {
    problems.push(`path: "${mcpPath}" is taken by the server itself; choose another, e.g. "/mcp"`);
  }

  const tokens: ResolvedToken[] = [];
  for (const [index, entry] of settings.auth.tokens.entries()) {
    const where = `http.auth.tokens[${index}] ("${entry.name}")`;
    const secret = await readToken(entry.token, manifest.dir, env, where, problems);
    if (secret === undefined) continue;
    if (secret.length < MIN_TOKEN_LENGTH) {
      problems.push(
        `${where}: the token has ${secret.length} characters; use at least ${MIN_TOKEN_LENGTH} random ones (e.g. openssl rand -hex 32)`,
      );
      continue;
    }
    tokens.push({ name: entry.name, scopes: entry.scopes ?? [], secret });
  }
  const jwt = settings.auth.jwt === undefined ? undefined : await resolveJwt(settings, manifest.dir, problems);

  const loopback = isLoopback(host);
  const hasAuth = settings.auth.tokens.length > 0 || settings.auth.jwt !== undefined;
  const publicUrl = settings.publicUrl ?? settings.auth.jwt?.resource;
  if (publicUrl !== undefined) {
    const url = URL.parse(publicUrl);
    if (url === null || (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname)))) {
      problems.push(
        `http.publicUrl: ${publicUrl} must be an https URL (http only on loopback): clients send tokens to it`,
      );
    }
  } else if (!loopback && settings.auth.jwt !== undefined) {
    problems.push(
      `http.publicUrl: set it to the URL clients reach this server at (e.g. "https://skills.example.com${mcpPath}"): OAuth clients find the authorization server through the protected-resource metadata, which names this URL, and it cannot be taken from request headers`,
    );
  }
  if (!loopback && !hasAuth) {
    problems.push(
      `refusing to serve on ${host} without authentication: anyone who can reach that address could call every tool. ` +
        `Add "http": { "auth": { "tokens": [{ "name": "ci-bot", "scopes": [], "token": { "env": "SKILLPORT_TOKEN" } }] } } ` +
        `(static bearer tokens) or "http": { "auth": { "jwt": { "jwksUrl": …, "issuer": …, "audience": … } } } (OAuth JWTs) ` +
        `to the manifest, or bind to loopback with --host 127.0.0.1`,
    );
  }
  if (problems.length > 0) {
    throw new HostError(
      "HTTP_CONFIG_INVALID",
      `[skillport] cannot serve over HTTP (${manifest.file}):`,
      problems.map((p) => (p.startsWith("http.") || p.startsWith("refusing") ? p : `http.${p}`)),
    );
  }

  return {
    ...settings,
    host,
    port,
    path: mcpPath,
    shutdownGraceMs: options.shutdownGraceMs ?? settings.shutdownGraceMs,
    sessions: options.sessions ?? settings.sessions,
    allowedHosts: allowedHostsFor(settings.allowedHosts, host),
    allowedOrigins: new Set(settings.allowedOrigins),
    publicUrl,
    loopback,
    auth: hasAuth ? { tokens, jwt } : undefined,
  };
}

/** Whether a bind address is loopback: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(host: string): boolean {
  const bare = withoutBrackets(host).toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** An address without the brackets of an IPv6 literal: `[::1]` → `::1`; any other address as it is. */
export function withoutBrackets(address: string): string {
  return address.replace(/^\[(.*)\]$/, "$1");
}

// --- internal ---

/** A static token's secret, read as every manifest secret is; a missing one adds a problem saying what to do. */
async function readToken(
  source: SecretSource,
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
  problems: string[],
): Promise<string | undefined> {
  const reading = await readSecret(source, dir, env);
  if (reading.missing === "unset") problems.push(`${where}.token: ${reading.where} is not set; set it to the token`);
  if (reading.missing === "empty") problems.push(`${where}.token: ${reading.where} is empty; write the token into it`);
  if (reading.missing === "unreadable") problems.push(`${where}.token: cannot read ${reading.where} (${reading.code})`);
  return reading.value;
}

async function resolveJwt(
  settings: LoadedHttpSettings,
  dir: string,
  problems: string[],
): Promise<ResolvedJwt | undefined> {
  const jwt = settings.auth.jwt;
  if (jwt === undefined) return undefined;
  let keys: ResolvedJwt["keys"] | undefined;
  if (jwt.jwksUrl !== undefined) {
    const url = new URL(jwt.jwksUrl);
    if (url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname))) keys = { url };
    else problems.push(`http.auth.jwt.jwksUrl: ${jwt.jwksUrl} must use https (http only on loopback)`);
  } else if (jwt.jwksFile !== undefined) {
    const file = path.resolve(dir, jwt.jwksFile);
    try {
      const jwks = JSON.parse(await readFile(file, "utf8")) as JSONWebKeySet;
      if (Array.isArray(jwks?.keys) && jwks.keys.length > 0) keys = { jwks };
      else problems.push(`http.auth.jwt.jwksFile: ${file} holds no "keys"; it must be a JWK Set`);
    } catch (error) {
      problems.push(`http.auth.jwt.jwksFile: cannot read ${file} as JSON (${messageOf(error)})`);
    }
  }
  if (keys === undefined) return undefined;
  return {
    keys,
    issuer: jwt.issuer,
    audience: jwt.audience,
    resource: jwt.resource,
    algorithms: jwt.algorithms,
    clockToleranceSec: jwt.clockToleranceSec ?? 5,
  };
}

function allowedHostsFor(configured: string[] | undefined, host: string): readonly string[] | "*" {
  if (configured?.includes("*")) return "*";
  // Loopback names are always answered: only a local client sends them, so they open nothing to a rebinding page.
  const names: string[] = [...LOOPBACK_HOSTNAMES];
  const add = (name: string) => {
    if (!names.includes(name)) names.push(name);
  };
  for (const name of configured ?? []) add(name.toLowerCase());
  const bare = withoutBrackets(host).toLowerCase();
  // A specific bound address is a Host clients may use; a wildcard bind says nothing about the names in use.
  if (bare !== "0.0.0.0" && bare !== "::") add(bare.includes(":") ? `[${bare}]` : bare);
  return names;
}
