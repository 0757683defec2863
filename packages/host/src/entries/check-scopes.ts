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

/**
 * Why a caller may not use a resource, template or prompt (`what`, as messages name it), or undefined when it may:
 * the entry is closed to every caller over HTTP, or the caller lacks its scopes. Local calls are not checked. A
 * refused entry is left out of the caller's lists, and its reads, renders and completions answer PERMISSION_DENIED
 * with this message.
 */
export function refusalOf(
  entry: { readonly scopes: readonly string[]; readonly closed: string | undefined },
  caller: Caller | undefined,
  what: string,
): string | undefined {
  if (caller === undefined) return undefined;
  if (entry.closed !== undefined) return `${what} is closed to callers over HTTP: ${entry.closed}`;
  const missing = missingScopes(entry, caller);
  if (missing === undefined) return undefined;
  return `${what} requires the scope${missing.length === 1 ? "" : "s"} ${missing.join(", ")}, which caller "${caller.id}" does not hold`;
}
