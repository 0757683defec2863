// The bearer token a caller authenticated with, kept beside its caller object for RFC 8693 token exchange only:
// never on the caller itself (which reaches skills as ctx.auth, logs and audit lines), never forwarded upstream.

const tokens = new WeakMap<object, string>();

/** Remembers the token `caller` authenticated with (the HTTP transport, for a verified JWT). */
export function rememberSubjectToken(caller: object, token: string): void {
  tokens.set(caller, token);
}

/** The token `caller` authenticated with, when it was a verified JWT. */
export function subjectTokenOf(caller: object): string | undefined {
  return tokens.get(caller);
}
