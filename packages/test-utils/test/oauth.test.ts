import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import {
  auth,
  Client,
  discoverAuthorizationServerMetadata,
  refreshAuthorization,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthorizationServer, ProtectedMcpServer } from "../src/index.js";
import { authorizeWithoutBrowser, startAuthorizationServer, startProtectedMcpServer } from "../src/index.js";

// The loopback redirect URI the test client registers; nothing listens there: the flow stops at its redirect.
const REDIRECT_URI = "http://127.0.0.1:9/callback";
const EXCHANGER = { client_id: "skillport-host", client_secret: "exchanger-secret" };
const POSTING_EXCHANGER = { client_id: "posting-host", client_secret: "posting-secret" };
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

let as: AuthorizationServer;
let upstream: ProtectedMcpServer;

beforeAll(async () => {
  as = await startAuthorizationServer({
    accessTokenTtlSec: 2,
    clients: [
      { ...EXCHANGER, grant_types: [TOKEN_EXCHANGE] },
      { ...POSTING_EXCHANGER, grant_types: [TOKEN_EXCHANGE], token_endpoint_auth_method: "client_secret_post" },
    ],
  });
  upstream = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
});

afterAll(async () => {
  await upstream?.close();
  await as?.close();
});

describe("the authorization server with the SDK client's OAuth", () => {
  it("registers the client, logs in whom nextLogin names, and the token calls the upstream as that user", async () => {
    const provider = new MemoryOAuthProvider();
    const { tokens } = await authorize(provider, "alice");
    expect(provider.clientInfo?.client_id).toEqual(expect.any(String));
    expect(provider.authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(provider.authorizationUrl?.searchParams.get("code_challenge")).toEqual(expect.any(String));
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: "alice", aud: upstream.resource, iss: as.issuer });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    await expect(
      whoami(new StreamableHTTPClientTransport(new URL(upstream.url), { authProvider: provider })),
    ).resolves.toBe("alice");
    expect(upstream.seen.at(-1)).toEqual({ sub: "alice", token: tokens.access_token });
  });

  it("serves its metadata at the RFC 8414 path too, with token exchange among the grants", async () => {
    const metadata = await discoverAuthorizationServerMetadata(as.issuer);
    expect(metadata).toMatchObject({ issuer: as.issuer, token_endpoint: as.tokenEndpoint });
    expect(metadata?.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", TOKEN_EXCHANGE]));
    const rfc8414 = await fetch(`${as.issuer}/.well-known/oauth-authorization-server`);
    expect(await rfc8414.json()).toEqual(metadata);
  });

  it("refreshes, until the user's grants are revoked", async () => {
    const provider = new MemoryOAuthProvider();
    const { tokens, metadata } = await authorize(provider, "bob");
    const clientInformation = provider.clientInfo as StoredOAuthClientInformation;
    const refresh = (refreshToken: string) =>
      refreshAuthorization(as.issuer, {
        metadata,
        clientInformation,
        refreshToken,
        resource: new URL(upstream.resource),
      });
    const refreshed = await refresh(tokens.refresh_token as string);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(decodeJwt(refreshed.access_token)).toMatchObject({ sub: "bob", aud: upstream.resource });
    expect(as.tokenRequests.at(-1)).toEqual({ grantType: "refresh_token" });

    expect(as.revokeGrantsOf("bob")).toBe(1);
    await expect(refresh(refreshed.refresh_token as string)).rejects.toThrow(/invalid_grant|grant/i);
    expect(as.tokenRequests.at(-1)).toEqual({ grantType: "refresh_token", error: "invalid_grant" });
  });

  it("shows a login form when nobody was named with nextLogin, and logs in whom the form names", async () => {
    const provider = new MemoryOAuthProvider();
    await expect(auth(provider, { serverUrl: upstream.url })).resolves.toBe("REDIRECT");
    const authorizationUrl = provider.authorizationUrl as URL;
    await expect(authorizeWithoutBrowser(authorizationUrl, REDIRECT_URI)).rejects.toThrow(
      /answered 200 instead of a redirect[\s\S]*name="login"/,
    );
    const { code, iss } = await authorizeWithoutBrowser(authorizationUrl, REDIRECT_URI, { login: "carol" });
    await expect(auth(provider, { serverUrl: upstream.url, authorizationCode: code, iss })).resolves.toBe("AUTHORIZED");
    expect(decodeJwt(provider.saved?.access_token as string)).toMatchObject({ sub: "carol" });
  });

  it("introspects a refresh token, and revokes it (RFC 7009)", async () => {
    const provider = new MemoryOAuthProvider();
    const { tokens } = await authorize(provider, "dave");
    // RFC 8414 metadata as served (the SDK's type of it names no revocation endpoint).
    const metadata = (await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()) as {
      introspection_endpoint: string;
      revocation_endpoint: string;
    };
    const clientId = provider.clientInfo?.client_id as string;
    const post = (endpoint: string, token: string) =>
      fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: clientId }),
      });
    const introspect = async (token: string) =>
      (await (await post(metadata.introspection_endpoint, token)).json()) as Record<string, unknown>;
    const refreshToken = tokens.refresh_token as string;
    expect(await introspect(refreshToken)).toMatchObject({ active: true, sub: "dave", client_id: clientId });
    expect((await post(metadata.revocation_endpoint, refreshToken)).status).toBe(200);
    expect(await introspect(refreshToken)).toEqual({ active: false });
  });
});

describe("token exchange", () => {
  it("exchanges a caller's token for one at the upstream, for the same user", async () => {
    const callerToken = await as.mintAccessToken({ sub: "alice", audience: "skillport" });
    const answer = await exchange(callerToken, upstream.resource);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ issued_token_type: ACCESS_TOKEN_TYPE, token_type: "Bearer", expires_in: 2 });
    const token = body.access_token as string;
    expect(decodeJwt(token)).toMatchObject({ sub: "alice", aud: upstream.resource, iss: as.issuer });
    expect(as.tokenRequests.at(-1)).toEqual({ grantType: TOKEN_EXCHANGE });
    await expect(whoami(bearer(token))).resolves.toBe("alice");
  });

  it("authenticates a client_secret_post client, and refuses a wrong secret", async () => {
    const subjectToken = await as.mintAccessToken({ sub: "bob", audience: "skillport" });
    const post = (secret: string) =>
      fetch(as.tokenEndpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: TOKEN_EXCHANGE,
          client_id: POSTING_EXCHANGER.client_id,
          client_secret: secret,
          subject_token: subjectToken,
          subject_token_type: ACCESS_TOKEN_TYPE,
          audience: upstream.resource,
        }),
      });
    const answer = await post(POSTING_EXCHANGER.client_secret);
    expect(answer.status).toBe(200);
    const { access_token } = (await answer.json()) as { access_token: string };
    expect(decodeJwt(access_token)).toMatchObject({ sub: "bob", aud: upstream.resource, client_id: "posting-host" });
    const refused = await post("wrong");
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: "invalid_client" });
  });

  it("refuses a subject token another key signed", async () => {
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: "RS256", kid: (await exportJWK(privateKey)).kid ?? "forged" })
      .setIssuer(as.issuer)
      .setSubject("alice")
      .setAudience("skillport")
      .setExpirationTime("1m")
      .sign(privateKey);
    const answer = await exchange(forged, upstream.resource);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: "invalid_grant" });
  });
});

describe("the protected MCP server", () => {
  it("refuses a request without a valid token for it, pointing at its resource metadata", async () => {
    const metadataUrl = `${new URL(upstream.url).origin}/.well-known/oauth-protected-resource/mcp`;
    const wrongAudience = await as.mintAccessToken({ sub: "alice", audience: "skillport" });
    for (const token of [undefined, "not-a-jwt", wrongAudience]) {
      const answer = await fetch(upstream.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toContain(`Bearer resource_metadata="${metadataUrl}"`);
    }
    const metadata = await (await fetch(metadataUrl)).json();
    expect(metadata).toEqual({
      resource: upstream.resource,
      authorization_servers: [as.issuer],
      scopes_supported: ["mcp"],
      bearer_methods_supported: ["header"],
    });
    expect(upstream.seen.some(({ token, sub }) => token === wrongAudience && sub === undefined)).toBe(true);
  });
});

// --- internal ---

/** An OAuth client that keeps everything in memory and remembers where it was sent to authorize. */
class MemoryOAuthProvider implements OAuthClientProvider {
  clientInfo: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  authorizationUrl: URL | undefined;
  private verifier = "";

  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "oauth fixture test",
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.clientInfo = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The SDK's whole authorization code flow for `sub`, the user agent played by authorizeWithoutBrowser. */
async function authorize(provider: MemoryOAuthProvider, sub: string) {
  await expect(auth(provider, { serverUrl: upstream.url })).resolves.toBe("REDIRECT");
  as.nextLogin(sub);
  const { code, iss } = await authorizeWithoutBrowser(provider.authorizationUrl as URL, REDIRECT_URI);
  await expect(auth(provider, { serverUrl: upstream.url, authorizationCode: code, iss })).resolves.toBe("AUTHORIZED");
  const metadata = await discoverAuthorizationServerMetadata(as.issuer);
  return { tokens: provider.saved as StoredOAuthTokens, metadata };
}

async function whoami(transport: StreamableHTTPClientTransport): Promise<unknown> {
  const client = new Client({ name: "oauth-fixture-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: "whoami", arguments: {} });
    return (result.structuredContent as { sub?: unknown } | undefined)?.sub;
  } finally {
    await client.close();
  }
}

function bearer(token: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(upstream.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
}

function exchange(subjectToken: string, resource: string): Promise<Response> {
  return fetch(as.tokenEndpoint, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${EXCHANGER.client_id}:${EXCHANGER.client_secret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource,
    }),
  });
}
