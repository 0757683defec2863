import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { HostError } from "../errors/host-error.js";
import type { CredentialSettings } from "../manifest/manifest.js";
import { readSecret } from "../manifest/read-secret.js";

/**
 * The keys per-caller credentials are sealed with: AES-256-GCM, a fresh 96-bit nonce per record, the record's place
 * (its store key) as additional data, so a record copied under another caller's key does not open. Each record
 * names the key that sealed it: the first key seals, every key opens, so keys can be rotated.
 */
export interface Keyring {
  /** The id of the key new records are sealed with. */
  readonly currentId: string;
  /** `v1.<key id>.<nonce>.<ciphertext>.<tag>` (base64url parts). */
  seal(plain: string, place: string): string;
  /** The plain text, or undefined when the record is malformed, sealed for another place, or by an unknown key. */
  open(sealed: string, place: string): string | undefined;
  /** A key derived from the current key for another purpose (HKDF-SHA256), e.g. signing connect links. */
  derive(purpose: string): { id: string; key: Buffer };
  /** The derived key for `purpose` of key `id`, or undefined for an unknown id. */
  deriveWith(id: string, purpose: string): Buffer | undefined;
}

/**
 * A keyring over keys already read (32 bytes each). The first key seals.
 *
 * @example
 * const keyring = createKeyring([{ id: "2026-12", key: randomBytes(32) }]);
 * const sealed = keyring.seal("ghp_…", "cred:gh.token:token:alice");
 */
export function createKeyring(keys: readonly { id: string; key: Buffer }[]): Keyring {
  const [current] = keys;
  if (current === undefined) throw new Error("a keyring needs at least one key");
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  return {
    currentId: current.id,
    seal(plain, place) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", current.key, nonce);
      cipher.setAAD(Buffer.from(place, "utf8"));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return [VERSION, current.id, b64(nonce), b64(body), b64(cipher.getAuthTag())].join(".");
    },
    open(sealed, place) {
      const parts = sealed.split(".");
      if (parts.length !== 5 || parts[0] !== VERSION) return undefined;
      const [, id = "", nonce = "", body = "", tag = ""] = parts;
      const key = byId.get(id);
      if (key === undefined) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"));
        decipher.setAAD(Buffer.from(place, "utf8"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        return undefined;
      }
    },
    derive(purpose) {
      return { id: current.id, key: deriveKey(current.key, purpose) };
    },
    deriveWith(id, purpose) {
      const key = byId.get(id);
      return key === undefined ? undefined : deriveKey(key, purpose);
    },
  };
}

/**
 * Reads the manifest's `credentials.keys` (from the environment or files). A key that is missing or not 32 bytes of
 * base64 or hex stops the host, naming where it was looked for and how to make one, never the value.
 */
export async function readKeyring(
  settings: CredentialSettings,
  manifestDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ keyring: Keyring; secrets: string[] }> {
  const keys: { id: string; key: Buffer }[] = [];
  const secrets: string[] = [];
  const problems: string[] = [];
  for (const [index, entry] of settings.keys.entries()) {
    const where = `credentials.keys[${index}] ("${entry.id}")`;
    const reading = await readSecret("env" in entry ? { env: entry.env } : { file: entry.file }, manifestDir, env);
    if (reading.value === undefined) {
      problems.push(
        `${where}: ${reading.where} is ${reading.missing === "unreadable" ? `unreadable (${reading.code})` : "not set"}; ${MAKE_KEY}`,
      );
      continue;
    }
    secrets.push(reading.value);
    const key = keyBytes(reading.value);
    if (key === undefined) {
      problems.push(`${where}: the value of ${reading.where} is not 32 bytes written as base64 or hex; ${MAKE_KEY}`);
      continue;
    }
    keys.push({ id: entry.id, key });
  }
  if (problems.length > 0) throw new HostError("MANIFEST_INVALID", "[skillport] credentials:", problems);
  return { keyring: createKeyring(keys), secrets };
}

// --- internal ---

const VERSION = "v1";
const MAKE_KEY = "make one with: openssl rand -base64 32";

function b64(bytes: Buffer): string {
  return bytes.toString("base64url");
}

function deriveKey(key: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), `skillport ${purpose}`, 32));
}

/** 32 bytes from 64 hex digits or base64 (standard or url-safe, padded or not). */
function keyBytes(text: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex");
  if (!/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text.replaceAll("-", "+").replaceAll("_", "/"), "base64");
  return bytes.length === 32 ? bytes : undefined;
}
