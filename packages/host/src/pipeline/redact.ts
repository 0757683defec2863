import type { SecretFinding } from "@skillport/core";

/** What stands in for a secret in results, errors, logs and audit lines. */
export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not redacted: replacing "ab" everywhere would destroy every message. */
const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every known secret value by `[REDACTED]`. The host adds each credential it reads; everything that
 * leaves the host (results, errors, log and audit lines) passes through it. Costs nothing while it knows no secret.
 */
export interface Redactor {
  /** True once a secret is known. */
  readonly active: boolean;
  add(secrets: Iterable<string | undefined>): void;
  string(text: string): string;
  /** A deep copy of a JSON-like value (Errors become plain objects) with every secret replaced. */
  value<T>(value: T): T;
  /** Whether the content holds a known secret, and in which form; never which secret. */
  find(content: string | Uint8Array): SecretFinding | undefined;
}

export function createRedactor(): Redactor {
  const secrets = new Set<string>();
  let pattern: RegExp | undefined;

  const string = (text: string) => (pattern === undefined ? text : text.replace(pattern, REDACTED));
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return string(value);
    if (typeof value !== "object" || value === null || depth > 64) return value;
    if (value instanceof Error) {
      return {
        type: value.name,
        message: string(value.message),
        stack: value.stack === undefined ? undefined : string(value.stack),
      };
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[string(key)] = walk(item, depth + 1);
    return out;
  };

  return {
    get active() {
      return pattern !== undefined;
    },
    add(values) {
      for (const value of values) if (value !== undefined && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
      if (secrets.size === 0) return;
      // Longest first, so a secret containing another is replaced whole.
      const alternatives = [...secrets].sort((a, b) => b.length - a.length).map(escapeRegExp);
      pattern = new RegExp(alternatives.join("|"), "g");
    },
    string,
    value: <T>(value: T) => (pattern === undefined ? value : (walk(value, 0) as T)),
    find(content) {
      if (pattern === undefined) return undefined;
      const text = typeof content === "string" ? content : Buffer.from(content).toString("latin1");
      pattern.lastIndex = 0;
      const found = pattern.test(text);
      pattern.lastIndex = 0;
      return found ? { form: "plain" } : undefined;
    },
  };
}

// --- internal ---

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
