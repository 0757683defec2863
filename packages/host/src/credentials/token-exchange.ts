import { createHash } from "node:crypto";
import type { CallerSlot } from "./caller-slot.js";
import type { AuthorizationServerMetadata, OAuthClientProvider, OAuthSdk, OAuthTokens } from "./oauth-sdk.js";
import { oauthSdk as sdk } from "./oauth-sdk.js";
import type { Exchange } from "./resolve-credentials.js";

/** What {@link createTokenExchange} needs; every field has a default. */
export interface TokenExchangeOptions {
  /** An exchanged token is used again until this long before it expires (at most half its lifetime). @default 30_000 */
  skewMs?: number;
  /** How many exchanged tokens are kept in memory at most (the oldest goes first). @default 1000 */
  maxCached?: number;
  /** The clock expiries are counted on. @default Date.now */
  now?: () => number;
}

/**
 * The resolver's token exchange (RFC 8693): a caller's own access token (the JWT they authenticated with) exchanged
 * at the slot's `exchange.issuer` (its token endpoint found by RFC 8414 discovery) for one meant for the upstream
 * (`audience`, `resource`, `scope`), the host authenticating as the manifest's confidential client
 * (client_secret_basic). Token requests and answers go through the MCP SDK client's OAuth (imported on first use).
 * An exchanged token is kept in memory per slot, caller and subject token until shortly before it expires; a refusal
 * names the provider's error code, never a token.
 *
 * @example
 * const resolver = createCredentialResolver({ vault, links, redactor, baseUrl, exchange: createTokenExchange() });
 */
export function createTokenExchange(options: TokenExchangeOptions = {}): Exchange {
  const now = options.now ?? Date.now;
  const skew = options.skewMs ?? 30_000;
  const maxCached = options.maxCached ?? 1000;
  const metadata = new Map<string, Promise<AuthorizationServerMetadata | undefined>>();
  const cached = new Map<string, { token: string; freshUntil: number }>();
  const running = new Map<string, ReturnType<Exchange>>();

  function metadataOf(sdkModule: OAuthSdk, issuer: string) {
    let found = metadata.get(issuer);
    if (found === undefined) {
      found = sdkModule.discoverAuthorizationServerMetadata(issuer);
      metadata.set(issuer, found);
      // A failed discovery is tried again at the next exchange.
      found.catch(() => metadata.delete(issuer));
    }
    return found;
  }

  async function exchangeOnce(slot: CallerSlot, key: string, subjectToken: string): ReturnType<Exchange> {
    const target = slot.exchange;
    if (target === undefined) return { ok: false, message: `${slot.label} is not reached by token exchange` };
    const sdkModule = await sdk();
    let tokens: OAuthTokens;
    try {
      const found = await metadataOf(sdkModule, target.issuer);
      tokens = await sdkModule.fetchToken(exchangeClient(slot, subjectToken, found), target.issuer, {
        ...(found === undefined ? {} : { metadata: found }),
      });
    } catch (error) {
      if (error instanceof sdkModule.OAuthError) {
        return {
          ok: false,
          message: `the identity provider at ${target.issuer} refused to exchange your token for ${slot.label} (${error.code}); sign in again, or ask the host's operator to check ${slot.where}`,
        };
      }
      return {
        ok: false,
        message: `the identity provider at ${target.issuer} could not be reached to exchange your token for ${slot.label}; retry shortly`,
      };
    }
    if (tokens.expires_in !== undefined) {
      const lifetime = tokens.expires_in * 1000;
      if (cached.size >= maxCached) cached.delete(cached.keys().next().value as string);
      cached.set(key, { token: tokens.access_token, freshUntil: now() + lifetime - Math.min(skew, lifetime / 2) });
    }
    return { ok: true, token: tokens.access_token };
  }

  return async (slot, caller, subjectToken) => {
    const key = `${slot.id}\n${caller}\n${createHash("sha256").update(subjectToken).digest("base64url")}`;
    const hit = cached.get(key);
    if (hit !== undefined && hit.freshUntil > now()) return { ok: true, token: hit.token };
    cached.delete(key);
    // Calls of one caller at the same time share one exchange.
    const inFlight = running.get(key);
    if (inFlight !== undefined) return inFlight;
    const exchanged = exchangeOnce(slot, key, subjectToken);
    running.set(key, exchanged);
    try {
      return await exchanged;
    } finally {
      running.delete(key);
    }
  };
}

// --- internal ---

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";

/** The SDK's client for one exchange: a confidential client whose token request is RFC 8693's. */
function exchangeClient(
  slot: CallerSlot,
  subjectToken: string,
  metadata: AuthorizationServerMetadata | undefined,
): OAuthClientProvider {
  const target = slot.exchange as NonNullable<CallerSlot["exchange"]>;
  return {
    redirectUrl: undefined,
    clientMetadata: {
      redirect_uris: [],
      grant_types: [TOKEN_EXCHANGE],
      token_endpoint_auth_method: "client_secret_basic",
    },
    clientInformation: () => ({
      client_id: target.clientId,
      client_secret: target.clientSecret,
      token_endpoint_auth_method: "client_secret_basic",
      issuer: metadata?.issuer ?? target.issuer,
    }),
    tokens: () => undefined,
    saveTokens: () => {},
    redirectToAuthorization: () => {},
    saveCodeVerifier: () => {},
    codeVerifier: () => "",
    prepareTokenRequest: () =>
      new URLSearchParams({
        grant_type: TOKEN_EXCHANGE,
        subject_token: subjectToken,
        subject_token_type: ACCESS_TOKEN,
        requested_token_type: ACCESS_TOKEN,
        audience: target.audience,
        ...(target.resource === undefined ? {} : { resource: target.resource }),
        ...(target.scopes === undefined ? {} : { scope: target.scopes.join(" ") }),
      }),
  };
}
