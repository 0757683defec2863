import { randomBytes } from "node:crypto";
import type { CallerSlot, OAuthTarget } from "./caller-slot.js";
import { CONNECT_PATHS } from "./connect-paths.js";
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthSdk,
  OAuthTokens,
  StoredOAuthClientInformation,
} from "./oauth-sdk.js";
import { oauthSdk as sdk } from "./oauth-sdk.js";
import type { Refresh } from "./resolve-credentials.js";
import type { KeptCredential, Vault } from "./vault.js";

/**
 * How a caller connects a slot through OAuth (authorization code with PKCE, the MCP SDK client's OAuth support):
 * `start` gives the authorization server's URL to send their browser to; `finish` takes the callback's parameters.
 */
export interface OAuthConnections {
  /** The URL to send the caller's browser to; the flow's state is kept sealed until the callback, once. */
  start(slot: CallerSlot, caller: string): Promise<{ authorizationUrl: string }>;
  /**
   * Finishes a flow from the callback: refused unless `state` names a flow started for `browserCaller` (the caller
   * signed in on the page), once. Keeps the caller's tokens.
   */
  finish(
    params: { state: string; code: string; iss?: string | undefined },
    browserCaller: string,
  ): Promise<{ ok: true; slot: string } | { ok: false; reason: string }>;
  /** The resolver's refresh: a new access token before the kept one expires, or undefined when it cannot be had. */
  refresh: Refresh;
}

/** What {@link createOAuthConnections} needs. */
export interface OAuthConnectionsOptions {
  /** Where flows, registrations and each caller's tokens are kept, sealed. */
  vault: Vault;
  /** The table's per-caller slots, to find a flow's slot again at the callback. */
  slots: () => readonly CallerSlot[];
  /** The connections page's origin: the redirect URL is `${baseUrl}${CONNECT_PATHS.callback}`. */
  baseUrl: () => string | undefined;
  /** The `client_name` the host registers itself with (RFC 7591): names the manifest. */
  clientName: string;
  /** How long a started flow waits for its callback (the manifest's `credentials.linkTtlSeconds`). */
  flowTtlMs: number;
  /** The clock expiries are counted on. @default Date.now */
  now?: () => number;
}

/**
 * OAuth connections per (slot, caller) over the vault, with the MCP SDK client's OAuth (`auth()` for discovery,
 * dynamic registration, PKCE and the authorization URL; its token requests for the code and refresh grants). The SDK
 * is imported on first use, so a host without OAuth slots never loads it. What a flow needs until its callback (PKCE
 * verifier, discovery, caller, slot) is sealed at `flow:<state>`; a dynamic registration at `client:<slot>`, shared by
 * every caller of the slot; each caller's tokens in the vault under their slot. `start` throws an Error naming the
 * slot when discovery or registration fails (its cause is the SDK's error); `finish` never throws for a refusal.
 *
 * @example
 * const oauth = createOAuthConnections({ vault, slots, baseUrl: () => host.credentials.baseUrl, clientName: "Skillport (team)", flowTtlMs: 600_000 });
 * const { authorizationUrl } = await oauth.start(slot, "jwt:alice");
 */
export function createOAuthConnections(options: OAuthConnectionsOptions): OAuthConnections {
  const { vault } = options;
  const now = options.now ?? Date.now;
  const registering = new Map<string, Promise<unknown>>();
  const refreshing = new Map<string, Promise<KeptCredential | undefined>>();

  /** The slot's client at `issuer`: the manifest's, or the one the host registered there (for every caller). */
  async function clientOf(slot: CallerSlot, target: OAuthTarget, issuer: string) {
    if (target.clientId !== undefined) {
      return {
        client_id: target.clientId,
        ...(target.clientSecret === undefined ? {} : { client_secret: target.clientSecret }),
        issuer,
      } satisfies StoredOAuthClientInformation;
    }
    const text = await vault.sealed.get(`${CLIENT}${slot.id}`);
    if (text === undefined) return undefined;
    const kept = JSON.parse(text) as StoredOAuthClientInformation;
    return typeof kept.issuer === "string" && sameIssuer(kept.issuer, issuer) ? kept : undefined;
  }

  /** An OAuthClientProvider for one step of one flow: what the SDK hands it is kept on `flow`. */
  function providerFor(slot: CallerSlot, target: OAuthTarget, flow: Flow): OAuthClientProvider {
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return flow.redirectUrl;
      },
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: options.clientName,
          redirect_uris: [flow.redirectUrl],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_basic",
          ...(target.scopes === undefined ? {} : { scope: target.scopes.join(" ") }),
        };
      },
      state: () => flow.state,
      async clientInformation(ctx) {
        const info = await clientOf(slot, target, ctx?.issuer ?? flow.discovery?.authorizationServerUrl ?? "");
        // Registered for another redirect URL (the host's public URL changed): the host registers anew.
        const uris = (info as { redirect_uris?: unknown } | undefined)?.redirect_uris;
        return Array.isArray(uris) && !uris.includes(flow.redirectUrl) ? undefined : info;
      },
      async saveClientInformation(info) {
        if (target.clientId !== undefined) return;
        await vault.sealed.set(`${CLIENT}${slot.id}`, JSON.stringify(info));
      },
      // A connection always asks anew: what the caller kept is refreshed by `refresh`, never here.
      tokens: () => undefined,
      saveTokens: () => {},
      redirectToAuthorization(url) {
        flow.authorizationUrl = url.href;
      },
      saveCodeVerifier(verifier) {
        flow.verifier = verifier;
      },
      codeVerifier: () => flow.verifier ?? "",
      saveResourceUrl(resource) {
        flow.resource = resource;
      },
      saveDiscoveryState(state) {
        flow.discovery = state;
      },
      discoveryState: () => flow.discovery,
    };
    // A skill's resource indicator is the manifest's (its issuer has no protected resource metadata to name one).
    const resource = target.resource;
    if (resource !== undefined) provider.validateResourceURL = async () => new URL(resource);
    return provider;
  }

  async function start(slot: CallerSlot, caller: string): Promise<{ authorizationUrl: string }> {
    const target = targetOf(slot);
    const base = options.baseUrl();
    if (base === undefined) {
      throw new Error(`${slot.label} cannot be connected before the host knows its public URL (serve it over HTTP)`);
    }
    const flow: Flow = {
      slot: slot.id,
      caller,
      state: randomBytes(32).toString("base64url"),
      redirectUrl: `${base}${CONNECT_PATHS.callback}`,
      // A skill names an authorization server's issuer: discovery starts there, not at protected resource metadata.
      ...(target.kind === "authorization-server" ? { discovery: { authorizationServerUrl: target.serverUrl } } : {}),
    };
    const { auth } = await sdk();
    // One flow of a slot at a time registers the host, so callers starting together share one registration.
    const previous = registering.get(slot.id) ?? Promise.resolve();
    const running = previous
      .catch(() => {})
      .then(() =>
        auth(providerFor(slot, target, flow), {
          serverUrl: target.serverUrl,
          ...(target.scopes === undefined ? {} : { scope: target.scopes.join(" ") }),
        }),
      );
    registering.set(slot.id, running);
    let result: string;
    try {
      result = await running;
    } catch (error) {
      const sdkModule = await sdk();
      const why = error instanceof sdkModule.OAuthError ? `refused the host (${error.code})` : "could not be reached";
      throw new Error(
        `${slot.label}: the authorization server of ${target.serverUrl} ${why}; check ${slot.where} and retry`,
        { cause: error },
      );
    } finally {
      if (registering.get(slot.id) === running) registering.delete(slot.id);
    }
    if (result !== "REDIRECT" || flow.authorizationUrl === undefined || flow.verifier === undefined) {
      throw new Error(`${slot.label}: the authorization server gave no authorization URL`);
    }
    const { authorizationUrl, state, ...kept } = flow;
    await vault.sealed.set(`${FLOW}${state}`, JSON.stringify(kept), options.flowTtlMs);
    return { authorizationUrl: authorizationUrl as string };
  }

  async function finish(
    params: { state: string; code: string; iss?: string | undefined },
    browserCaller: string,
  ): Promise<{ ok: true; slot: string } | { ok: false; reason: string }> {
    const text = params.state === "" ? undefined : await vault.sealed.take(`${FLOW}${params.state}`);
    if (text === undefined) {
      return { ok: false, reason: "this sign-in is unknown, expired or already used: connect again from the page" };
    }
    const flow = { ...(JSON.parse(text) as Omit<Flow, "state">), state: params.state } as Flow;
    if (flow.caller !== browserCaller) {
      return { ok: false, reason: "this sign-in was started by another caller: connect again from your own page" };
    }
    const slot = options.slots().find((s) => s.id === flow.slot);
    if (slot?.oauth === undefined || flow.discovery === undefined) {
      return { ok: false, reason: `${flow.slot} is no longer connected through OAuth on this host` };
    }
    const target = slot.oauth;
    const discovery = flow.discovery;
    const sdkModule = await sdk();
    let tokens: OAuthTokens;
    try {
      // auth()'s callback leg with the flow's discovery state (its recorded issuer is the one used), without its
      // retry on a refused code, which would print a warning and ask the token endpoint twice.
      tokens = await sdkModule.fetchToken(providerFor(slot, target, flow), discovery.authorizationServerUrl, {
        ...(discovery.authorizationServerMetadata === undefined
          ? {}
          : { metadata: discovery.authorizationServerMetadata }),
        ...(flow.resource === undefined ? {} : { resource: flow.resource }),
        authorizationCode: params.code,
        ...(params.iss === undefined ? {} : { iss: params.iss }),
      });
    } catch (error) {
      return { ok: false, reason: refusal(sdkModule, slot, error) };
    }
    await vault.put(slot.id, flow.caller, keptOf(tokens, discovery, flow.resource, now()));
    return { ok: true, slot: slot.id };
  }

  async function refreshOnce(slot: CallerSlot, kept: KeptCredential & { kind: "oauth" }) {
    const discovery = kept.discovery as KeptDiscovery | undefined;
    if (slot.oauth === undefined || kept.refreshToken === undefined || discovery === undefined) return undefined;
    const issuer = kept.issuer ?? discovery.authorizationServerUrl;
    const clientInformation = await clientOf(slot, slot.oauth, issuer);
    if (clientInformation === undefined) return undefined;
    const sdkModule = await sdk();
    try {
      const tokens = await sdkModule.refreshAuthorization(discovery.authorizationServerUrl, {
        ...(discovery.authorizationServerMetadata === undefined
          ? {}
          : { metadata: discovery.authorizationServerMetadata }),
        clientInformation,
        refreshToken: kept.refreshToken,
        ...(discovery.resource === undefined ? {} : { resource: discovery.resource }),
      });
      return keptOf(tokens, discovery, discovery.resource, now());
    } catch (error) {
      // Refused (invalid_grant: revoked or expired): the caller connects again.
      if (error instanceof sdkModule.OAuthError && error.code !== sdkModule.OAuthErrorCode.ServerError) {
        return undefined;
      }
      // The server could not answer: the kept token serves while it lasts; after that the caller retries.
      if (kept.expiresAt !== undefined && kept.expiresAt > now()) return kept;
      throw new Error(`${slot.label}: the authorization server could not refresh your connection; retry shortly`, {
        cause: error,
      });
    }
  }

  return {
    start,
    finish,
    async refresh(slot, caller, kept) {
      // One refresh per caller and slot at a time: a rotated refresh token is used once.
      const key = `${slot.id}\n${caller}`;
      const running = refreshing.get(key);
      if (running !== undefined) return running;
      const refreshed = (async () => {
        // A call that read the record before another's refresh was kept finds the new one: its refresh token is used.
        const current = await vault.get(slot.id, caller);
        if (current?.kind !== "oauth") return undefined;
        if (current.refreshToken !== kept.refreshToken) return current;
        const fresh = await refreshOnce(slot, current);
        if (fresh !== undefined && fresh !== current) await vault.put(slot.id, caller, fresh);
        return fresh;
      })();
      refreshing.set(key, refreshed);
      try {
        return await refreshed;
      } finally {
        refreshing.delete(key);
      }
    },
  };
}

// --- internal ---

const FLOW = "flow:";
const CLIENT = "client:";

/** One authorization code flow, from `start` to its callback. */
interface Flow {
  slot: string;
  caller: string;
  state: string;
  redirectUrl: string;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
  /** The resource indicator (RFC 8707) asked for. */
  resource?: string;
  authorizationUrl?: string;
}

/** What a kept OAuth credential remembers of discovery, so a refresh needs none. */
interface KeptDiscovery {
  authorizationServerUrl: string;
  authorizationServerMetadata?: OAuthDiscoveryState["authorizationServerMetadata"];
  resource?: string;
}

function targetOf(slot: CallerSlot): OAuthTarget {
  if (slot.via !== "oauth" || slot.oauth === undefined) {
    throw new Error(`${slot.label} (${slot.where}) is not connected through OAuth`);
  }
  return slot.oauth;
}

function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, "") === b.replace(/\/$/, "");
}

function keptOf(
  tokens: OAuthTokens,
  discovery: KeptDiscovery,
  resource: string | undefined,
  at: number,
): KeptCredential & { kind: "oauth" } {
  const kept: KeptDiscovery = {
    authorizationServerUrl: discovery.authorizationServerUrl,
    ...(discovery.authorizationServerMetadata === undefined
      ? {}
      : { authorizationServerMetadata: discovery.authorizationServerMetadata }),
    ...(resource === undefined ? {} : { resource }),
  };
  return {
    kind: "oauth",
    accessToken: tokens.access_token,
    ...(tokens.refresh_token === undefined ? {} : { refreshToken: tokens.refresh_token }),
    ...(tokens.expires_in === undefined ? {} : { expiresAt: at + tokens.expires_in * 1000 }),
    ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
    issuer: discovery.authorizationServerMetadata?.issuer ?? discovery.authorizationServerUrl,
    discovery: kept,
    savedAt: at,
  };
}

/** Why a callback's code was refused, naming the OAuth error (never the code, the response or a token). */
function refusal(sdkModule: OAuthSdk, slot: CallerSlot, error: unknown): string {
  if (error instanceof sdkModule.IssuerMismatchError) {
    return `${slot.label}: the callback names another authorization server than the one you signed in at (RFC 9207); connect again`;
  }
  if (error instanceof sdkModule.OAuthError) {
    return `${slot.label}: the authorization server refused the sign-in (${error.code}); connect again`;
  }
  return `${slot.label}: the authorization server could not be reached to finish the sign-in; connect again`;
}
