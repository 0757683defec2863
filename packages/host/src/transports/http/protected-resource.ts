/** Where RFC 9728 protected-resource metadata lives, before the resource's own path is appended. */
const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

/** The metadata path for an MCP endpoint: `/mcp` → `/.well-known/oauth-protected-resource/mcp` (RFC 9728 §3.1). */
function protectedResourcePath(mcpPath: string): string {
  return mcpPath === "/" ? PROTECTED_RESOURCE_PATH : `${PROTECTED_RESOURCE_PATH}${mcpPath}`;
}

/** Inputs of {@link protectedResourceMetadata}. */
export interface ProtectedResourceOptions {
  /** The MCP endpoint's public URL. */
  resource: string;
  /** The JWT issuer, when OAuth is configured. */
  issuer: string | undefined;
  /** Every scope a tool of this server requires. */
  scopes: readonly string[];
  /** The server's name, as MCP clients show it. */
  name: string;
}

/** The RFC 9728 document: which authorization server issues tokens for this resource, and how to send them. */
export function protectedResourceMetadata(options: ProtectedResourceOptions): Record<string, unknown> {
  return {
    resource: options.resource,
    ...(options.issuer === undefined ? {} : { authorization_servers: [options.issuer] }),
    bearer_methods_supported: ["header"],
    ...(options.scopes.length === 0 ? {} : { scopes_supported: [...options.scopes] }),
    resource_name: options.name,
  };
}

/** Where a resource's metadata lives: `https://x.example/mcp` → `https://x.example/.well-known/oauth-protected-resource/mcp`. */
export function protectedResourceUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${protectedResourcePath(url.pathname === "" ? "/" : url.pathname)}`;
}

/**
 * A `WWW-Authenticate: Bearer` challenge (RFC 6750 §3) pointing at the metadata (RFC 9728 §5.1) when the server
 * knows its public URL.
 */
export function bearerChallenge(metadataUrl: string | undefined, error?: string, description?: string): string {
  const parts = [`realm="skillport"`];
  if (metadataUrl !== undefined) parts.push(`resource_metadata="${metadataUrl}"`);
  if (error !== undefined) parts.push(`error="${error}"`);
  if (description !== undefined) parts.push(`error_description="${description.replaceAll('"', "'")}"`);
  return `Bearer ${parts.join(", ")}`;
}

/**
 * Whether a path is where this server serves its metadata: the bare path, the one suffixed with the endpoint's path
 * here, and the one suffixed with the path of its public URL (for a proxy that forwards it unchanged).
 */
export function isMetadataPath(pathname: string, mcpPath: string, resource: string): boolean {
  if (!pathname.startsWith(PROTECTED_RESOURCE_PATH)) return false;
  if (pathname === PROTECTED_RESOURCE_PATH || pathname === protectedResourcePath(mcpPath)) return true;
  return pathname === new URL(protectedResourceUrl(resource)).pathname;
}
