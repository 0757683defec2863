import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { JWK } from "jose";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import type { ProviderClient, ProviderContext } from "oidc-provider";
import { INTERACTION_PATH, interactionHandler } from "./interaction.js";
import type { MemoryStore } from "./memory-adapter.js";
import { memoryStore } from "./memory-adapter.js";
import { TOKEN_EXCHANGE, TOKEN_EXCHANGE_PARAMETERS, tokenExchangeGrant } from "./token-exchange.js";

/** A client registered before the server starts, in RFC 7591 metadata (snake_case, as oidc-provider takes it). */
export interface PreRegisteredClient {
  /** The id it authenticates with. */
  client_id: string;
  /** Absent for a public client (then set `token_endpoint_auth_method: "none"`). */
  client_secret?: string;
  /** @default [] (a client that only exchanges tokens needs none) */
  redirect_uris?: string[];
  /** @default ["authorization_code", "refresh_token"] */
  grant_types?: string[];
  /** @default [] when `redirect_uris` is empty, else ["code"] */
  response_types?: string[];
  /** How it authenticates at the token endpoint. @default "client_secret_basic" */
  token_endpoint_auth_method?: "none" | "client_secret_basic" | "client_secret_post";
  /** Any other RFC 7591 metadata. */
  [metadata: string]: unknown;
}

/** Options of {@link startAuthorizationServer}. */
export interface AuthorizationServerOptions {
  /** Clients registered from the start, beside those that register themselves (RFC 7591, open). */
  clients?: readonly PreRegisteredClient[];
  /**
   * Lifetime of access tokens (those of the authorization code and refresh grants, token exchange and
   * `mintAccessToken`).
   * @default 60
   */
  accessTokenTtlSec?: number;
  /**
   * Lifetime of refresh tokens; a grant (what a login consented to) lives as long.
   * @default 3600
   */
  refreshTokenTtlSec?: number;
  /**
   * Whether each refresh answers a new refresh token and retires the one used (OAuth 2.1's rule for public clients).
   * @default true
   */
  rotateRefreshTokens?: boolean;
  /**
   * Scopes every resource server (a loopback http URL) accepts, beside any other scope a request names.
   * @default ["mcp"]
   */
  scopes?: readonly string[];
}

/** What {@link mintAccessToken | AuthorizationServer.mintAccessToken} signs. */
export interface MintAccessTokenOptions {
  /** The user the token names. */
  sub: string;
  /** The token's `aud`: the resource it is for (the Skillport host's configured audience, an upstream's URL). */
  audience: string;
  /** A space-separated `scope` claim. */
  scope?: string;
  /** @default the server's `accessTokenTtlSec` */
  ttlSec?: number;
  /** The `client_id` claim. @default "test-client" */
  clientId?: string;
}

/** A token endpoint request the server answered, oldest first. */
export interface TokenRequest {
  /** Its `grant_type` (a token exchange's is `urn:ietf:params:oauth:grant-type:token-exchange`). */
  grantType: string | undefined;
  /** The OAuth error it answered, when it refused. */
  error?: string;
}

/** A running OAuth 2.1 / OpenID provider (oidc-provider) on a loopback port. */
export interface AuthorizationServer {
  /** `http://127.0.0.1:<port>`, also the base of every endpoint. */
  issuer: string;
  /** The JSON Web Key Set that verifies every token this server signs. */
  jwksUrl: string;
  /** Where tokens are asked for (`<issuer>/token`), e.g. for a token exchange. */
  tokenEndpoint: string;
  /** Every token endpoint request answered, with its grant type: a test sees whether a token was fetched again. */
  tokenRequests: TokenRequest[];
  /** Who logs in at the next login prompt (once); without it the prompt shows a login form. */
  nextLogin(sub: string): void;
  /** Signs an access token as this server (same key as its JWKS) without any flow: a caller's token for a test. */
  mintAccessToken(options: MintAccessTokenOptions): Promise<string>;
  /**
   * Revokes every grant of `sub` with the tokens issued under them: the next refresh answers `invalid_grant`.
   * Answers how many grants there were.
   */
  revokeGrantsOf(sub: string): number;
  /** Stops the server, dropping its open connections. */
  close(): Promise<void>;
}

/**
 * Starts a real authorization server for tests of OAuth to upstream MCP servers: oidc-provider on 127.0.0.1 and a
 * free port, with discovery at both `/.well-known/openid-configuration` and RFC 8414's
 * `/.well-known/oauth-authorization-server`, open dynamic client registration, the authorization code grant with
 * PKCE (S256) required, refresh tokens, resource indicators (an access token for a loopback resource is a JWT whose
 * `aud` is that resource), revocation, introspection and RFC 8693 token exchange. Logins need no UI: see `nextLogin`.
 *
 * @example
 * const as = await startAuthorizationServer({ accessTokenTtlSec: 5 });
 * onTestFinished(() => as.close());
 * as.nextLogin("alice");
 */
export async function startAuthorizationServer(options: AuthorizationServerOptions = {}): Promise<AuthorizationServer> {
  const { default: Provider, errors } = await loadProvider();
  const accessTokenTtl = options.accessTokenTtlSec ?? DEFAULT_ACCESS_TOKEN_TTL;
  // The issuer names the port, known once listening; the provider answers from when it exists.
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = randomUUID();
  const signingKey = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  const sign = async (claims: { sub: string; audience: string; scope?: string; clientId: string; ttlSec?: number }) => {
    const expiresIn = claims.ttlSec ?? accessTokenTtl;
    const token = await new SignJWT({ client_id: claims.clientId, ...(claims.scope ? { scope: claims.scope } : {}) })
      .setProtectedHeader({ alg: "RS256", kid, typ: "at+jwt" })
      .setIssuer(issuer)
      .setSubject(claims.sub)
      .setAudience(claims.audience)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn)
      .setJti(randomUUID())
      .sign(privateKey);
    return { token, expiresIn };
  };

  const store = memoryStore();
  const provider = new Provider(
    issuer,
    configuration({ options, store, signingKey, InvalidTarget: errors.InvalidTarget }),
  );
  provider.registerGrantType(
    TOKEN_EXCHANGE,
    tokenExchangeGrant({ issuer, publicKey, errors, sign }),
    TOKEN_EXCHANGE_PARAMETERS,
    ["audience", "resource"],
  );

  const tokenRequests: TokenRequest[] = [];
  const grantTypeOf = (ctx: ProviderContext) => {
    const grantType = ctx.oidc?.params?.grant_type;
    return Array.isArray(grantType) ? grantType[0] : grantType;
  };
  provider.on("grant.success", (ctx) => tokenRequests.push({ grantType: grantTypeOf(ctx) }));
  provider.on("grant.error", (ctx, error) =>
    tokenRequests.push({ grantType: grantTypeOf(ctx), error: (error as { error?: string }).error ?? error.message }),
  );

  let login: string | undefined;
  const interact = interactionHandler(provider, () => {
    const next = login;
    login = undefined;
    return next;
  });
  const callback = provider.callback();
  handle = (req, res) => {
    const [path = "/", query] = (req.url ?? "/").split("?", 2);
    if (path.startsWith(INTERACTION_PATH)) {
      interact(req, res).catch((error: Error) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end(`interaction failed: ${error.message}`);
      });
      return;
    }
    // RFC 8414's well-known path, which oidc-provider does not serve: the same metadata as OpenID discovery.
    if (path === "/.well-known/oauth-authorization-server") {
      req.url = `/.well-known/openid-configuration${query === undefined ? "" : `?${query}`}`;
    }
    callback(req, res);
  };

  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    tokenEndpoint: `${issuer}/token`,
    tokenRequests,
    nextLogin(sub) {
      login = sub;
    },
    async mintAccessToken({ clientId = "test-client", ...claims }) {
      return (await sign({ ...claims, clientId })).token;
    },
    revokeGrantsOf: (sub) => store.revokeGrantsOf(sub),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

// --- internal ---

const DEFAULT_ACCESS_TOKEN_TTL = 60;
const DEFAULT_REFRESH_TOKEN_TTL = 3600;
const DEFAULT_SCOPES = ["mcp"];

type ProviderModule = typeof import("oidc-provider");

let loaded: Promise<ProviderModule> | undefined;

/**
 * oidc-provider warns on import under a Node.js older than 22 (it runs on 20, which the repository supports);
 * that one warning is dropped so that tests stay quiet.
 */
function loadProvider(): Promise<ProviderModule> {
  loaded ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === "string" && args[0].includes("oidc-provider WARNING: Unsupported runtime")) return;
      warn(...args);
    };
    try {
      return await import("oidc-provider");
    } finally {
      console.warn = warn;
    }
  })();
  return loaded;
}

/** oidc-provider's configuration for {@link startAuthorizationServer}. */
function configuration(context: {
  options: AuthorizationServerOptions;
  store: MemoryStore;
  signingKey: JWK;
  InvalidTarget: new (description?: string) => Error;
}): Record<string, unknown> {
  const { options, store, signingKey, InvalidTarget } = context;
  const accessTokenTtl = options.accessTokenTtlSec ?? DEFAULT_ACCESS_TOKEN_TTL;
  const refreshTokenTtl = options.refreshTokenTtlSec ?? DEFAULT_REFRESH_TOKEN_TTL;
  const scopes = options.scopes ?? DEFAULT_SCOPES;
  return {
    adapter: store.adapterFor,
    clients: (options.clients ?? []).map(withDefaults),
    // What a client may register as its `scope` (the SDK registers the scopes it will ask for, offline_access too).
    scopes: ["openid", "offline_access", ...scopes],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: {
      url: async (_ctx: unknown, interaction: { uid: string }) => `${INTERACTION_PATH}${interaction.uid}`,
    },
    clientAuthMethods: ["none", "client_secret_basic", "client_secret_post"],
    pkce: { required: () => true },
    // Refresh tokens without offline_access (and its forced consent prompt), outliving the login session.
    issueRefreshToken: async (_ctx: unknown, client: ProviderClient) => client.grantTypeAllowed("refresh_token"),
    expiresWithSession: async () => false,
    rotateRefreshToken: () => options.rotateRefreshTokens ?? true,
    // oidc-provider's own defaults of these print a notice the first time they are called.
    clientBasedCORS: () => true,
    renderError,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      ClientCredentials: accessTokenTtl,
      IdToken: accessTokenTtl,
      RefreshToken: refreshTokenTtl,
      Grant: refreshTokenTtl,
      Session: refreshTokenTtl,
      Interaction: 600,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx: unknown, client: ProviderClient, token: { clientId: string }) =>
          token.clientId === client.clientId,
      },
      introspection: { enabled: true, allowedPolicy: async () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        // A refresh or code exchange without `resource` still gets the JWT for what was granted.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx: ProviderContext, resource: string) => {
          if (!isLoopbackHttp(resource)) {
            throw new InvalidTarget(`resource ${resource} is not a loopback http URL (http://127.0.0.1:<port>/…)`);
          }
          return {
            scope: [...new Set([...scopes, ...requestedScopes(ctx)])].join(" "),
            audience: resource,
            accessTokenTTL: accessTokenTtl,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
  };
}

function withDefaults(client: PreRegisteredClient): PreRegisteredClient {
  const redirectUris = client.redirect_uris ?? [];
  return {
    grant_types: ["authorization_code", "refresh_token"],
    response_types: redirectUris.length === 0 ? [] : ["code"],
    token_endpoint_auth_method: "client_secret_basic",
    ...client,
    redirect_uris: redirectUris,
  };
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

function isLoopbackHttp(resource: string): boolean {
  try {
    const url = new URL(resource);
    return url.protocol === "http:" && LOOPBACK.has(url.hostname);
  } catch {
    return false;
  }
}

/** Resource scopes the request names (OpenID's own scopes are not a resource's). */
function requestedScopes(ctx: ProviderContext): string[] {
  const scope = ctx.oidc?.params?.scope;
  const named = typeof scope === "string" ? scope.split(" ") : [];
  return named.filter((name) => name !== "" && name !== "openid" && name !== "offline_access");
}

async function renderError(ctx: ProviderContext, out: Record<string, string>): Promise<void> {
  ctx.type = "text/plain";
  ctx.body = Object.entries(out)
    .map(([key, value]) => `${key}: ${value}`)
    .join("\n");
}
