/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/**
 * Secret-like strings a preview must never show and an issue must never publish. Kept without the `g` flag: a
 * global RegExp carries `lastIndex` between uses, and a skill keeps no module-level mutable state.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/, // GitHub tokens: personal, OAuth, user-to-server, server-to-server, refresh
  /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/, // GitHub fine-grained personal access tokens
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, // AWS access key ids
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/, // Slack tokens
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/, // PEM private keys
];

/**
 * A key that names a secret: `token`, `secret`, `password`, `passwd`, `passphrase`, `pwd`, an API, secret,
 * private, access, signing, encryption, master or client key, with any prefix (`GITHUB_TOKEN`, `x-api-key`,
 * `client_secret`, `accessToken`), in any case. It must end there: `tokens`, `token_count`, `passwordless` are
 * other keys. Every repetition is bounded, so a long hostile text costs linear time.
 */
const KEY =
  "(?:[A-Za-z0-9]{1,32}[_.-]){0,4}[A-Za-z0-9]{0,32}?(?:(?:api|secret|private|access|signing|encryption|master|client)[_.-]?key|token|secret|password|passwd|passphrase|pwd)";
/**
 * `key=value` (env files, shell, query strings: the value ends at `&`), or `key: value`, `key = value`,
 * `key := value`, `key => value` with the value quoted or not; the key may be quoted (JSON, code).
 * Groups: 1 the key's quote, 3 a `key=value` value, 4 the separator, 5 and 6 a quoted value, 7 any other value.
 */
const PAIR = new RegExp(
  String.raw`(?<![A-Za-z0-9_])(["']?)(${KEY})\1(?:=(?!=)([^\s"'<>,;&)}\]\x60]+)|[ \t]{0,8}(:=|=>|:|=)[ \t]{0,8}(?:"([^"\n]{0,512})"|'([^'\n]{0,512})'|([^\s"'<>,;)}\]\x60]+)))`,
  "i",
);
/** An HTTP Authorization header's credential, after its scheme. */
const AUTHORIZATION =
  /\b((?:proxy-)?authorization[ \t]{0,8}:[ \t]{0,8}(?:bearer|basic|token|digest|negotiate)[ \t]{1,8})([A-Za-z0-9\-._~+/]{8,4096}=*)/i;
/** A bearer token anywhere else: 16 or more token characters, with a digit or symbol among them. */
const BEARER = /\b(Bearer[ \t]{1,8})([A-Za-z0-9\-._~+/]{16,4096}=*)/;
/** The password in a URL's user information: `scheme://user:password@host`. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s/:@]{1,256}:)([^\s/@]{1,256})@/i;

/** Literal secrets shorter than this are not redacted by value: a short test token would blank common words. */
const MIN_LITERAL_LENGTH = 8;

/**
 * Replaces secret-like strings with [REDACTED] and returns the text and how many were replaced:
 * - the given literal secrets (e.g. this instance's own token);
 * - GitHub, AWS and Slack tokens and PEM private keys, by their formats;
 * - the value in a key/value pair whose key names a secret (`api_key: …`, `token=…`, `"secret": "…"`,
 *   `password = …`, `GITHUB_TOKEN=…`), quoted or not, after `:`, `=`, `:=` or `=>`; an Authorization header's
 *   credential; a `Bearer` token; the password in `scheme://user:password@host`.
 * Values that name a secret rather than hold one stay: empty values, placeholders (`<your-token>`, `$TOKEN`,
 * `${{ secrets.TOKEN }}`), masks (`****`), literals (`null`, `false`), code (`process.env.TOKEN`, `getToken()`).
 * After `:` or a spaced `=` an unquoted value must look like a secret (a digit or a symbol in it, or 20
 * characters): "Password: incorrect" is prose.
 *
 * @example
 * redactSecrets("token ghp_abc… leaked", [knownSecret]) // { text: "token [REDACTED] leaked", count: 1 }
 * redactSecrets("DB_PASSWORD=hunter2") // { text: "DB_PASSWORD=[REDACTED]", count: 1 }
 */
export function redactSecrets(
  text: string,
  literals: readonly (string | undefined)[] = [],
): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const literal of literals) {
    if (literal === undefined || literal.length < MIN_LITERAL_LENGTH) continue;
    const parts = out.split(literal);
    count += parts.length - 1;
    out = parts.join(REDACTED);
  }
  const replace = (
    pattern: RegExp,
    replacer: (match: string, ...groups: (string | undefined)[]) => string | undefined,
  ) => {
    out = out.replace(new RegExp(pattern.source, `${pattern.flags}g`), (match: string, ...groups: unknown[]) => {
      const replaced = replacer(match, ...(groups as (string | undefined)[]));
      if (replaced === undefined) return match;
      count++;
      return replaced;
    });
  };
  for (const pattern of SECRET_PATTERNS) replace(pattern, () => REDACTED);
  replace(AUTHORIZATION, (_match, prefix = "") => `${prefix}${REDACTED}`);
  replace(BEARER, (_match, prefix = "", token = "") =>
    /[\d\-._~+/]/.test(token) ? `${prefix}${REDACTED}` : undefined,
  );
  replace(URL_PASSWORD, (_match, prefix = "", password = "") =>
    password.startsWith(REDACTED) ? undefined : `${prefix}${REDACTED}@`,
  );
  // The value is the end of a pair's match (before the closing quote, if quoted): replace just that.
  replace(PAIR, (match, _quote, _key, tight, _separator, double, single, loose) => {
    const quoted = double ?? single;
    if (tight !== undefined) return holdsSecret(tight) ? `${match.slice(0, -tight.length)}${REDACTED}` : undefined;
    if (quoted !== undefined) {
      return quoted.length > 0 && holdsSecret(quoted)
        ? `${match.slice(0, -(quoted.length + 1))}${REDACTED}${match.slice(-1)}`
        : undefined;
    }
    if (loose === undefined || !holdsSecret(loose) || !looksSecret(loose)) return undefined;
    return `${match.slice(0, -loose.length)}${REDACTED}`;
  });
  return { text: out, count };
}

// --- internal ---

/** Whether a value holds a secret rather than naming one: not a placeholder, a mask, a literal or code. */
function holdsSecret(value: string): boolean {
  if (value.length < 3 || value.startsWith(REDACTED.slice(0, -1))) return false;
  if (/^[$%<]|^\{\{/.test(value)) return false; // $TOKEN, ${TOKEN}, ${{ secrets.TOKEN }}, %TOKEN%, <token>, {{ token }}
  if (/^(?:\*+|x{3,}|\.{3,}|•+|…)$/i.test(value)) return false;
  if (/^(?:null|nil|none|undefined|true|false|empty|required|optional|string)$/i.test(value)) return false;
  // Code: a dotted path without digits (process.env.TOKEN, config.token), or a call (getToken(…)).
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) && !/\d/.test(value)) return false;
  return !/^[A-Za-z_$][\w$.]*\(/.test(value);
}

/** After `:` or a spaced `=`, where prose goes too: a digit or a symbol in it, or 20 characters. */
function looksSecret(value: string): boolean {
  return /[\d\W_]/.test(value) || value.length >= 20;
}
