// The MCP SDK client's OAuth (discovery, registration, PKCE, token requests), the library per-caller OAuth and
// token exchange are built on: the one file outside mcp/ that names the SDK, so a change of SDK touches it and mcp/.
// Loaded on first use, so a host without OAuth or exchange slots never imports it.

export type {
  AuthorizationServerMetadata,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
  StoredOAuthClientInformation,
} from "@modelcontextprotocol/client";

/** The SDK client module, as imported. */
export type OAuthSdk = typeof import("@modelcontextprotocol/client");

let loaded: Promise<OAuthSdk> | undefined;

/** The SDK client module, imported once, when first needed. */
export function oauthSdk(): Promise<OAuthSdk> {
  loaded ??= import("@modelcontextprotocol/client");
  return loaded;
}
