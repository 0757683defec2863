import type { RegisteredSkill } from "@skillport/core";
import { SkillError } from "@skillport/core";
import { messageOf } from "../errors/host-error.js";

/** A `fetch`-shaped function: the global one, or a stand-in for the network in tests. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A credential the host holds for an instance and adds through `ctx.fetch`, never handing it to the skill. */
export interface HeldCredential {
  name: string;
  /** Undefined when the manifest does not configure it: the header is then only cleared. */
  value: string | undefined;
  /** Lower-case header name. */
  header: string;
  scheme: string;
  /** The exact origins (`https://api.github.com`) it may be sent to. */
  origins: ReadonlySet<string>;
}

/** What a capability gets of its instance's credentials: those it reads itself, and a fetch that adds the rest. */
export interface CredentialAccess {
  /** The credentials the skill reads itself; those declared with `fetch` are left out. */
  credentials: Readonly<Record<string, string | undefined>>;
  /** Whether the credential is configured, whoever holds it. */
  hasCredential(name: string): boolean;
  /** `ctx.fetch`: adds each held credential for its declared origins. */
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
}

/** Options for {@link credentialAccess}. */
export interface CredentialAccessOptions {
  /** The call's signal; a request without its own `init.signal` takes it. */
  signal: AbortSignal;
  /**
   * The network below the injection.
   * @default globalThis.fetch
   */
  fetch?: FetchLike;
}

/**
 * How a capability reaches its instance's credentials, as the host does it: the ones the skill declares with
 * `fetch` are held back from `credentials` and added by `fetch` to requests for their declared origins. `fetch`
 * rejects with a SkillError (UNAVAILABLE) when a declared origin is not a URL or is plain http beyond loopback.
 *
 * @example
 * const access = credentialAccess(register(), { token: "t" }, config, { signal });
 * await access.fetch("https://api.github.com/user"); // sent with "authorization: Bearer t"
 */
export function credentialAccess(
  skill: RegisteredSkill,
  credentials: Readonly<Record<string, string | undefined>>,
  config: unknown,
  options: CredentialAccessOptions,
): CredentialAccess {
  const held = lazyHeldCredentials(skill, credentials, config);
  return {
    credentials: skillCredentials(skill, credentials),
    hasCredential: (name) => hasCredential(credentials, name),
    fetch: fetchWithCredentials(held, () => options.signal, options.fetch ?? globalThis.fetch),
  };
}

/**
 * {@link heldCredentials}, computed on first use and remembered, its error included: a tool that never fetches
 * is not failed by a bad origin declaration.
 */
export function lazyHeldCredentials(
  skill: RegisteredSkill,
  credentials: Readonly<Record<string, string | undefined>>,
  config: unknown,
): () => HeldCredential[] {
  let outcome: { held: HeldCredential[] } | { error: unknown } | undefined;
  return () => {
    if (outcome === undefined) {
      try {
        outcome = { held: heldCredentials(skill, credentials, config) };
      } catch (error) {
        outcome = { error };
      }
    }
    if ("error" in outcome) throw outcome.error;
    return outcome.held;
  };
}

/** The credentials the skill reads itself: every configured one except those it declares with `fetch`. */
export function skillCredentials(
  skill: RegisteredSkill,
  credentials: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, string | undefined>> {
  return Object.fromEntries(Object.entries(credentials).filter(([name]) => !isHeld(skill, name)));
}

/** Whether `name` is configured (a non-empty value). */
export function hasCredential(credentials: Readonly<Record<string, string | undefined>>, name: string): boolean {
  const value = Object.hasOwn(credentials, name) ? credentials[name] : undefined;
  return typeof value === "string" && value !== "";
}

/** The credentials the host holds for an instance, with their declared origins computed from its config. */
function heldCredentials(
  skill: RegisteredSkill,
  credentials: Readonly<Record<string, string | undefined>>,
  config: unknown,
): HeldCredential[] {
  const held: HeldCredential[] = [];
  for (const [name, spec] of Object.entries(skill.credentials)) {
    if (spec.fetch === undefined) continue;
    const declared = declaredOrigins(skill.name, name, spec.fetch.origins, config);
    if (!Array.isArray(declared)) {
      throw new SkillError({
        code: "UNAVAILABLE",
        message: `skill "${skill.name}" gave no list of origins for the credential "${name}"; tell the skill's author`,
      });
    }
    held.push({
      name,
      value: hasCredential(credentials, name) ? credentials[name] : undefined,
      header: spec.fetch.header,
      scheme: spec.fetch.scheme,
      origins: new Set(declared.map((o: unknown) => originOf(skill.name, name, o))),
    });
  }
  return held;
}

/** Redirects `fetchWithCredentials` follows before it gives up, as browsers do. */
export const MAX_REDIRECTS = 20;

/**
 * A fetch that sets each held credential's header on requests to its declared origins, replacing whatever the
 * skill set there. It follows redirects itself (`redirect: "manual"` below) so that it sees every hop: a
 * credential is added only while the first URL and every redirect so far are on its declared origins. A request
 * without a signal of its own takes the call's (`callSignal`, asked for only then).
 */
export function fetchWithCredentials(
  heldOf: () => readonly HeldCredential[],
  callSignal: () => AbortSignal,
  network: FetchLike,
): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const held = heldOf();
    const signal = init?.signal ?? callSignal();
    const request = new Request(input, { ...init, signal });
    const mode = request.redirect;
    let body: Uint8Array | undefined = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    let method = request.method;
    const headers = new Headers(request.headers);
    let url = new URL(request.url);
    // A credential stays in play only while every URL of this request is on its origins.
    const inPlay = new Set(held.filter((c) => c.origins.has(url.origin)));
    for (let hop = 0; ; hop++) {
      const sent = new Headers(headers);
      for (const credential of held) {
        if (!credential.origins.has(url.origin)) continue;
        sent.delete(credential.header);
        if (credential.value !== undefined && inPlay.has(credential)) {
          sent.set(
            credential.header,
            credential.scheme === "" ? credential.value : `${credential.scheme} ${credential.value}`,
          );
        }
      }
      const response = await network(url.href, {
        method,
        headers: sent,
        ...(body === undefined ? {} : { body }),
        redirect: "manual",
        signal,
      });
      const location = response.headers.get("location");
      if (mode === "manual" || !REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel();
      if (mode === "error")
        throw new TypeError(`fetch failed: ${url.href} redirects, and the request said redirect: "error"`);
      if (hop >= MAX_REDIRECTS)
        throw new TypeError(`fetch failed: more than ${MAX_REDIRECTS} redirects from ${request.url}`);
      const next = new URL(location, url);
      if (next.protocol !== "https:" && next.protocol !== "http:") {
        throw new TypeError(`fetch failed: ${url.href} redirects to a ${next.protocol} URL`);
      }
      // As the Fetch standard does: 303 (and 301/302 after a POST) turn into a GET without a body.
      if (
        (response.status === 303 && method !== "GET" && method !== "HEAD") ||
        ([301, 302].includes(response.status) && method === "POST")
      ) {
        method = "GET";
        body = undefined;
        for (const name of BODY_HEADERS) headers.delete(name);
      }
      if (next.origin !== url.origin) headers.delete("authorization");
      for (const credential of held) if (!credential.origins.has(next.origin)) inPlay.delete(credential);
      url = next;
    }
  };
}

// --- internal ---

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const BODY_HEADERS = ["content-encoding", "content-language", "content-location", "content-type", "content-length"];
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

function isHeld(skill: RegisteredSkill, name: string): boolean {
  return Object.hasOwn(skill.credentials, name) && skill.credentials[name]?.fetch !== undefined;
}

function declaredOrigins(
  skill: string,
  credential: string,
  origins: NonNullable<RegisteredSkill["credentials"][string]["fetch"]>["origins"],
  config: unknown,
): unknown {
  if (typeof origins !== "function") return origins;
  try {
    return origins(config);
  } catch (error) {
    throw new SkillError({
      code: "UNAVAILABLE",
      message: `skill "${skill}" could not say where the credential "${credential}" may be sent (${messageOf(error)}); check the instance's config`,
    });
  }
}

function originOf(skill: string, credential: string, entry: unknown): string {
  const where = `skill "${skill}" may send the credential "${credential}" to ${JSON.stringify(entry)}`;
  let url: URL;
  try {
    url = new URL(String(entry));
  } catch {
    throw new SkillError({ code: "UNAVAILABLE", message: `${where}, which is not a URL; check the instance's config` });
  }
  if (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname))) return url.origin;
  throw new SkillError({
    code: "UNAVAILABLE",
    message: `${where}, but a credential goes only to https origins (plain http only on a loopback address); check the instance's config`,
  });
}
