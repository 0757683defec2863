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

/** Literal secrets shorter than this are not redacted by value: a short test token would blank common words. */
const MIN_LITERAL_LENGTH = 8;

/**
 * Replaces secret-like strings (GitHub, AWS and Slack tokens, private keys) and the given literal secrets
 * (e.g. this instance's own token) with [REDACTED]. Returns the text and how many were replaced.
 *
 * @example
 * redactSecrets("token ghp_abc… leaked", [knownSecret]) // { text: "token [REDACTED] leaked", count: 1 }
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
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(new RegExp(pattern.source, "g"), () => {
      count++;
      return REDACTED;
    });
  }
  return { text: out, count };
}
