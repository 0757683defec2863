import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Vault } from "../../../credentials/vault.js";

/** A browser signed in on the connections page: who it acts for, the token its forms carry, until when. */
export interface PageSession {
  /** The session's id, as its cookie carries it. */
  id: string;
  /** The caller the connect link was minted for (`token:alice`, `jwt:…`). */
  caller: string;
  /** The CSRF token every form of this session posts back. */
  csrf: string;
  /** Epoch ms. */
  expiresAt: number;
}

/**
 * The connections page's sessions, kept sealed in the credential vault (`session:<id>`, with a TTL) so every replica
 * knows them; the browser holds only a random id in the `skillport_session` cookie.
 */
export interface PageSessions {
  /** The live session the request's cookie names, if any. */
  of(request: Request): Promise<PageSession | undefined>;
  /** A new session for `caller`, and the Set-Cookie header that gives it to the browser. */
  start(caller: string): Promise<{ session: PageSession; cookie: string }>;
  /** Ends a session (its record is deleted). */
  end(session: PageSession): Promise<void>;
}

/** The session cookie's name. */
const SESSION_COOKIE = "skillport_session";

/** How long a page session lives: an hour. */
const SESSION_TTL_MS = 3_600_000;

/**
 * Page sessions over a vault. `secure` marks the cookie Secure (an https base URL); the cookie is HttpOnly,
 * SameSite=Lax (the authorization server's redirect back is a top-level GET that must carry it) and scoped to
 * `path`.
 *
 * @example
 * const sessions = createPageSessions({ vault, path: "/connections", secure: () => false });
 * const { cookie } = await sessions.start("token:alice");
 */
export function createPageSessions(options: {
  vault: Vault;
  path: string;
  secure: () => boolean;
  now?: () => number;
}): PageSessions {
  const { vault, path } = options;
  const now = options.now ?? Date.now;
  return {
    async of(request) {
      const id = cookieOf(request.headers.get("cookie"), SESSION_COOKIE);
      if (id === undefined || !SESSION_ID.test(id)) return undefined;
      const text = await vault.sealed.get(keyOf(id));
      if (text === undefined) return undefined;
      const session = parseSession(id, text);
      return session !== undefined && session.expiresAt > now() ? session : undefined;
    },
    async start(caller) {
      const session: PageSession = {
        id: randomBytes(32).toString("base64url"),
        caller,
        csrf: randomBytes(32).toString("base64url"),
        expiresAt: now() + SESSION_TTL_MS,
      };
      const { id: _, ...kept } = session;
      await vault.sealed.set(keyOf(session.id), JSON.stringify(kept), SESSION_TTL_MS);
      const attributes = [
        `${SESSION_COOKIE}=${session.id}`,
        `Path=${path}`,
        `Max-Age=${SESSION_TTL_MS / 1000}`,
        "HttpOnly",
        "SameSite=Lax",
        ...(options.secure() ? ["Secure"] : []),
      ];
      return { session, cookie: attributes.join("; ") };
    },
    async end(session) {
      await vault.sealed.delete(keyOf(session.id));
    },
  };
}

/**
 * Whether a form's CSRF token is the session's, compared in constant time (both hashed first, so their lengths
 * say nothing either).
 *
 * @example
 * sameToken(form.get("csrf"), session.csrf); // true or false
 */
export function sameToken(given: string | null | undefined, expected: string): boolean {
  if (given === null || given === undefined || given.length === 0) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

// --- internal ---

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

function keyOf(id: string): string {
  return `session:${id}`;
}

function parseSession(id: string, text: string): PageSession | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (typeof value.caller !== "string" || typeof value.csrf !== "string" || typeof value.expiresAt !== "number") {
      return undefined;
    }
    return { id, caller: value.caller, csrf: value.csrf, expiresAt: value.expiresAt };
  } catch {
    return undefined;
  }
}

/** The value of one cookie in a Cookie header (the first of that name). */
function cookieOf(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(";")) {
    const split = part.indexOf("=");
    if (split < 0) continue;
    if (part.slice(0, split).trim() === name) return part.slice(split + 1).trim();
  }
  return undefined;
}
