/**
 * One credential each caller brings for one owner (a skill instance or an upstream server): the manifest's
 * `{ "perCaller": true }` skill credential, or a server's `auth`. What a caller connected is kept per slot.
 */
export interface CallerSlot {
  /** `<owner>.<name>` (`gh.token`): where records are kept and how links, the page and the CLI name it. */
  readonly id: string;
  /** The instance's or server's mcp id. */
  readonly owner: string;
  /** The credential's name (`token`); a server's is `token`. */
  readonly name: string;
  /** Where the manifest configures it, for messages: `skills[2].credentials.token`, `servers[0].auth`. */
  readonly where: string;
  /** How the connections page names it. */
  readonly label: string;
  /**
   * How a caller gets one: `token` — they store a personal token; `oauth` — they connect through an authorization
   * server in their browser; `exchange` — their own access token is exchanged at the identity provider (RFC 8693).
   */
  readonly via: "token" | "oauth" | "exchange";
  /** What a caller without their own gets (and what a local caller, over stdio, always gets), read at start. */
  readonly fallback: string | undefined;
  /** With `via: "oauth"`: where to connect. */
  readonly oauth?: OAuthTarget;
  /** With `via: "exchange"`: where and for what the caller's token is exchanged. */
  readonly exchange?: ExchangeTarget;
}

/** An authorization server a slot connects through (authorization code with PKCE). */
export interface OAuthTarget {
  /**
   * What authorization is discovered from: an MCP server's URL (RFC 9728 protected resource metadata, then its
   * authorization server's RFC 8414 metadata), or an authorization server's issuer.
   */
  readonly serverUrl: string;
  /**
   * Which `serverUrl` is: an MCP server (a `servers` entry: discovery starts at its protected resource metadata) or
   * an authorization server (a skill credential's `oauth.issuer`: discovery starts at its own metadata).
   */
  readonly kind: "mcp-server" | "authorization-server";
  /** A client registered beforehand; without it the host registers itself (RFC 7591). */
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly scopes?: readonly string[];
  /** The resource indicator (RFC 8707) asked for, when the manifest names one. */
  readonly resource?: string;
}

/** Where a caller's own token is exchanged for one meant for an upstream (RFC 8693). */
export interface ExchangeTarget {
  readonly issuer: string;
  readonly audience: string;
  readonly resource?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes?: readonly string[];
}
