/** Who is calling over an authenticated transport: an identity (never a token) and the scopes it holds. */
export interface Caller {
  /** `token:<name>` for a static token, `jwt:<sub or client_id>` for a JWT, or `anonymous` on an unauthenticated loopback server. */
  id: string;
  scopes: readonly string[];
}

/**
 * The scopes a tool (or resource, prompt) requires that the caller lacks, or undefined when it may call the tool. Local calls (no
 * caller: stdio, `skillport call`) run with the rights of the person who started the host and are not checked.
 */
export function missingScopes(
  entry: { readonly scopes: readonly string[] },
  caller: Caller | undefined,
): string[] | undefined {
  if (caller === undefined || entry.scopes.length === 0) return undefined;
  const missing = entry.scopes.filter((scope) => !caller.scopes.includes(scope));
  return missing.length === 0 ? undefined : missing;
}
