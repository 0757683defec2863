import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { StateStore } from "../state/store.js";
import type { Keyring } from "./keyring.js";

/** What a connect link says: who it was minted for, which slot, until when. */
interface ConnectLink {
  caller: string;
  slot: string;
  /** Epoch ms. */
  expiresAt: number;
  nonce: string;
  generation: string;
}

/** Why a link opens nothing. */
export type LinkRefusal = "malformed" | "forged" | "expired" | "used";

/**
 * Connect links: short-lived, signed (HMAC-SHA256 with a key derived from the credential keyring, so every replica
 * verifies them), bound to one caller and one slot, and one-time (the nonce is claimed in the shared state store).
 */
export interface ConnectLinks {
  /** A link's token for `caller` and `slot`. */
  mint(caller: string, slot: string): Promise<{ token: string; expiresAt: number }>;
  /** What a token says, if it is genuine and not expired; claims nothing. */
  verify(token: string): ConnectLink | LinkRefusal;
  /** Verifies and uses up a token: a second redeem of the same token answers `used`. */
  redeem(token: string): Promise<ConnectLink | LinkRefusal>;
}

/**
 * Connect links over a keyring and the shared state store.
 *
 * @example
 * const links = createConnectLinks({ keyring, state, ttlMs: 600_000 });
 * const { token } = await links.mint("jwt:alice", "gh.token");
 */
export function createConnectLinks(options: {
  keyring: Keyring;
  state: StateStore;
  ttlMs: number;
  now?: () => number;
}): ConnectLinks {
  const { keyring, state, ttlMs } = options;
  const now = options.now ?? Date.now;
  const sign = (key: Buffer, body: string) => createHmac("sha256", key).update(body).digest();
  const verify = (token: string): ConnectLink | LinkRefusal => {
    const parts = token.split(".");
    if (parts.length !== 3) return "malformed";
    const [body = "", keyId = "", mac = ""] = parts;
    const key = keyring.deriveWith(keyId, PURPOSE);
    if (key === undefined) return "forged";
    // Compared as written, not decoded: base64's last character has bits a decoder ignores, so another spelling of
    // the same signature would pass a comparison of bytes.
    const given = Buffer.from(mac);
    const expected = Buffer.from(sign(key, `${body}.${keyId}`).toString("base64url"));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "forged";
    let link: ConnectLink;
    try {
      const parsed = JSON.parse(Buffer.from(body, "hex").toString("utf8")) as Record<string, unknown>;
      link = {
        caller: String(parsed.c),
        slot: String(parsed.s),
        expiresAt: Number(parsed.e),
        nonce: String(parsed.n),
        generation: String(parsed.g),
      };
    } catch {
      return "malformed";
    }
    return link.expiresAt <= now() ? "expired" : link;
  };
  return {
    async mint(caller, slot) {
      const expiresAt = now() + ttlMs;
      const generation = await state.generation();
      // Hex, not base64: base64 of JSON shares runs of characters with the JWTs the redactor knows (`":17966…`,
      // `alice","s`), and an answer's link would come out with a piece of it redacted.
      const body = Buffer.from(
        JSON.stringify({ c: caller, s: slot, e: expiresAt, n: randomBytes(16).toString("base64url"), g: generation }),
      ).toString("hex");
      const { id, key } = keyring.derive(PURPOSE);
      return { token: `${body}.${id}.${sign(key, `${body}.${id}`).toString("base64url")}`, expiresAt };
    },
    verify,
    async redeem(token) {
      const link = verify(token);
      if (typeof link === "string") return link;
      const claim = await state.claimOnce(`link:${link.nonce}`, Math.max(1, link.expiresAt - now()), link.generation);
      return claim === "first" ? link : "used";
    },
  };
}

// --- internal ---

const PURPOSE = "connect link";
