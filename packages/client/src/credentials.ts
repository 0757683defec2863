import { clientError } from "./errors.js";
import type { ClientError, Credential, CredentialSource } from "./types.js";

/** Credentials read for one start: each present value by name, or the first required one missing. */
export type CredentialReading<To> =
  | { ok: true; present: { name: string; value: string; to: To }[]; secrets: string[] }
  | { ok: false; error: ClientError };

/**
 * Reads every credential a spec names, at start time and never before. A required credential without a value
 * (unset, empty, or a reader that gave nothing) answers CREDENTIALS_MISSING naming it and where it should come
 * from; an optional one is left out.
 */
export async function readCredentials<To>(
  source: string,
  credentials: Readonly<Record<string, Credential<To>>> | undefined,
): Promise<CredentialReading<To>> {
  const present: { name: string; value: string; to: To }[] = [];
  for (const [name, credential] of Object.entries(credentials ?? {})) {
    let value: string | undefined;
    try {
      value = await readSource(credential.from);
    } catch (cause) {
      return {
        ok: false,
        error: clientError(
          source,
          "CREDENTIALS_MISSING",
          `credential "${name}" could not be read from ${where(credential.from)}: ${cause instanceof Error ? cause.message : String(cause)}`,
          { credential: name },
        ),
      };
    }
    if (value === undefined || value === "") {
      if (credential.optional === true) continue;
      return {
        ok: false,
        error: clientError(
          source,
          "CREDENTIALS_MISSING",
          `credential "${name}" is missing: ${fix(credential.from)}; nothing was started`,
          { credential: name },
        ),
      };
    }
    present.push({ name, value, to: credential.to });
  }
  return { ok: true, present, secrets: present.map((p) => p.value) };
}

/** Variables copied by name from this process's environment, where it has one and they are set. */
export function inheritedEnv(names: readonly string[] | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  const own = processEnv();
  for (const name of names ?? []) {
    const value = own?.[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Replaces every known secret in a text by [REDACTED] (messages built from a child's stderr). */
export function hideSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[REDACTED]");
  return out;
}

// --- internal ---

/** This process's environment in Node; undefined in a browser (no Node built-in is imported for it). */
function processEnv(): Record<string, string | undefined> | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
}

async function readSource(from: CredentialSource): Promise<string | undefined> {
  if ("env" in from) return processEnv()?.[from.env];
  if ("value" in from) return from.value;
  return await from.read();
}

function where(from: CredentialSource): string {
  if ("env" in from) return `the environment variable ${from.env}`;
  if ("value" in from) return "the spec";
  return from.where;
}

function fix(from: CredentialSource): string {
  if ("env" in from) {
    return processEnv() === undefined
      ? `the environment variable ${from.env} cannot be read here (no process environment); give the value instead`
      : `set the environment variable ${from.env}`;
  }
  if ("value" in from) return "the spec gives no value for it";
  return `${from.where} gave no value`;
}
