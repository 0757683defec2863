import type { CallerSlot } from "../../../credentials/caller-slot.js";
import type { LinkRefusal } from "../../../credentials/connect-links.js";
import { CONNECT_PATHS } from "../../../credentials/connect-paths.js";
import type { HostCredentials } from "../../../credentials/open-credentials.js";
import type { Logger } from "../../../logging/logger.js";
import type { Redactor } from "../../../redaction/redactor.js";
import { hostGuard } from "../guards/host.js";
import type { SlotRow } from "./connection-pages.js";
import { messagePage, seeOther, signedOutPage, slotsPage, tokenFormPage } from "./connection-pages.js";
import type { PageSession } from "./page-sessions.js";
import { createPageSessions, sameToken } from "./page-sessions.js";

/** What {@link createConnectionsRoute} needs. */
export interface ConnectionsRouteOptions {
  credentials: HostCredentials;
  redactor: Redactor;
  logger: Logger;
  /** The server's `http.allowedHosts`: the pages pass the same Host check as the MCP endpoint. */
  allowedHosts: readonly string[] | "*";
  now?: () => number;
}

/** Answers a request to one of {@link CONNECT_PATHS}, or undefined for any other path. */
export type ConnectionsRoute = (request: Request, path: string) => Promise<Response | undefined>;

/** The largest form the pages accept (a personal token and two ids), in bytes. */
export const MAX_FORM_BYTES = 16_384;

/**
 * The connections page and its steps (see CONNECT_PATHS): a connect link signs the browser in as the link's caller
 * (a sealed session every replica knows, its id in an HttpOnly cookie); the page lists the caller's per-caller
 * slots with their state; a personal token is saved through a form, an OAuth slot leaves for its authorization
 * server and comes back to the callback. Every POST needs the session's CSRF token, and an Origin, when sent,
 * equal to the base URL's. Pages are server-rendered HTML without script, under a strict CSP.
 *
 * @example
 * const route = createConnectionsRoute({ credentials, redactor, logger, allowedHosts: ["localhost"] });
 * const answer = await route(request, "/connections"); // undefined for a path it does not serve
 */
export function createConnectionsRoute(options: ConnectionsRouteOptions): ConnectionsRoute {
  const { credentials, redactor, logger } = options;
  const now = options.now ?? Date.now;
  const checkHost = hostGuard(options.allowedHosts);
  const sessions = createPageSessions({
    vault: credentials.vault,
    path: CONNECT_PATHS.page,
    secure: () => credentials.baseUrl?.startsWith("https:") === true,
    now,
  });
  const slotOf = (id: string | null) => credentials.slots().find((slot) => slot.id === id);

  /** The session of a POST whose CSRF token and Origin check out, or the refusal. */
  const posted = async (request: Request): Promise<{ session: PageSession; form: URLSearchParams } | Response> => {
    const session = await sessions.of(request);
    if (session === undefined) return signedOutPage();
    const form = await readForm(request);
    if (form instanceof Response) return form;
    // An Origin, when sent, is the base URL's: `null` (an opaque origin, or a page that hides its own) is refused.
    const origin = request.headers.get("origin");
    if (origin !== null && origin !== originOf(credentials.baseUrl ?? request.url)) {
      return messagePage(403, "Refused", "This form was sent from another site.", "Open the connections page again.");
    }
    if (!sameToken(form.get("csrf"), session.csrf)) {
      return messagePage(
        403,
        "Refused",
        "This form is not from your current page.",
        "Open the connections page again.",
      );
    }
    return { session, form };
  };

  const steps: Record<string, (request: Request) => Promise<Response>> = {
    [CONNECT_PATHS.open]: async (request) => {
      const token = new URL(request.url).searchParams.get("link");
      if (token === null || token === "") return linkRefused("malformed");
      const link = credentials.links.verify(token);
      if (typeof link === "string") return linkRefused(link);
      const current = await sessions.of(request);
      // Another caller's browser: nothing is connected, and the link stays unused for the browser it was meant for.
      if (current !== undefined && current.caller !== link.caller) {
        return messagePage(
          403,
          "Signed in as someone else",
          `This browser is signed in to the connections page as ${current.caller}, and the link is for another caller.`,
          "Open the link in the browser of the person it was made for; it has not been used.",
        );
      }
      const redeemed = await credentials.links.redeem(token);
      if (typeof redeemed === "string") return linkRefused(redeemed);
      // A fresh session id at each sign-in (none fixed beforehand survives it).
      if (current !== undefined) await sessions.end(current);
      const { cookie } = await sessions.start(redeemed.caller);
      logger.info({ caller: redeemed.caller, slot: redeemed.slot }, "connections page: signed in from a connect link");
      // At once to the page: the link leaves the address bar (and, with no-referrer, goes nowhere else).
      return seeOther(CONNECT_PATHS.page, { "set-cookie": cookie });
    },
    [CONNECT_PATHS.page]: async (request) => {
      const session = await sessions.of(request);
      if (session === undefined) return signedOutPage();
      const rows = await Promise.all(credentials.slots().map((slot) => rowOf(slot, session.caller)));
      return slotsPage(session.caller, rows, session.csrf);
    },
    [CONNECT_PATHS.connect]: async (request) => {
      // POST from the page's form (a personal token), or GET from its link (OAuth: see connection-pages.ts).
      let session: PageSession;
      let slotId: string | null;
      if (request.method === "POST") {
        const checked = await posted(request);
        if (checked instanceof Response) return checked;
        session = checked.session;
        slotId = checked.form.get("slot");
      } else {
        const found = await sessions.of(request);
        if (found === undefined) return signedOutPage();
        const query = new URL(request.url).searchParams;
        if (!sameToken(query.get("csrf"), found.csrf)) {
          return messagePage(403, "Refused", "This link is not from your current page.", "Open the page again.");
        }
        session = found;
        slotId = query.get("slot");
      }
      const slot = slotOf(slotId);
      if (slot === undefined) return unknownSlot();
      if (slot.via === "token") return tokenFormPage(slot, session.csrf);
      if (slot.via === "exchange") {
        return messagePage(400, "Nothing to connect", `${slot.label} uses your own sign-in, exchanged when you call.`);
      }
      if (credentials.oauth === undefined) {
        return messagePage(
          501,
          "OAuth not available",
          `${slot.label} connects through OAuth, which this host cannot run yet.`,
          "Ask the host's operator; meanwhile its fallback, if any, is used.",
        );
      }
      try {
        const { authorizationUrl } = await credentials.oauth.start(slot, session.caller);
        return seeOther(authorizationUrl);
      } catch (error) {
        logger.warn({ err: error, slot: slot.id }, "an OAuth connection could not start");
        return messagePage(
          502,
          "Could not reach the authorization server",
          `Connecting ${slot.label} could not start: ${redactor.string(errorText(error))}`,
          "Try again in a moment.",
        );
      }
    },
    [CONNECT_PATHS.token]: async (request) => {
      const checked = await posted(request);
      if (checked instanceof Response) return checked;
      const slot = slotOf(checked.form.get("slot"));
      if (slot === undefined) return unknownSlot();
      if (slot.via !== "token") {
        return messagePage(400, "Not a token", `${slot.label} is not connected with a personal token.`);
      }
      const value = (checked.form.get("token") ?? "").trim();
      if (value === "") return messagePage(400, "No token", "The form carried no token.", "Go back and paste it.");
      redactor.add([value]);
      await credentials.vault.put(slot.id, checked.session.caller, { kind: "token", value, savedAt: now() });
      logger.info({ caller: checked.session.caller, slot: slot.id }, "connections page: a personal token was saved");
      return seeOther(CONNECT_PATHS.page);
    },
    [CONNECT_PATHS.disconnect]: async (request) => {
      const checked = await posted(request);
      if (checked instanceof Response) return checked;
      const slot = slotOf(checked.form.get("slot"));
      if (slot === undefined) return unknownSlot();
      await credentials.vault.remove(slot.id, checked.session.caller);
      logger.info({ caller: checked.session.caller, slot: slot.id }, "connections page: disconnected");
      return seeOther(CONNECT_PATHS.page);
    },
    [CONNECT_PATHS.callback]: async (request) => {
      const session = await sessions.of(request);
      if (session === undefined) return signedOutPage();
      const query = new URL(request.url).searchParams;
      const error = query.get("error");
      if (error !== null) {
        const description = query.get("error_description");
        return messagePage(
          400,
          "Not connected",
          redactor.string(
            `The authorization server answered ${error}${description === null ? "" : `: ${description}`}.`,
          ),
          "Nothing was connected; start again from the connections page.",
        );
      }
      const state = query.get("state");
      const code = query.get("code");
      if (state === null || code === null || credentials.oauth === undefined) {
        return messagePage(400, "Not connected", "This is not an answer to a connection started here.");
      }
      const finished = await credentials.oauth.finish(
        { state, code, iss: query.get("iss") ?? undefined },
        session.caller,
      );
      if (!finished.ok) {
        return messagePage(
          400,
          "Not connected",
          redactor.string(finished.reason),
          "Start again from the connections page.",
        );
      }
      logger.info({ caller: session.caller, slot: finished.slot }, "connections page: connected through OAuth");
      // Always this fixed path: nothing in the request chooses where the browser goes next.
      return seeOther(CONNECT_PATHS.page);
    },
  };
  const methods: Record<string, readonly string[]> = {
    [CONNECT_PATHS.open]: ["GET"],
    [CONNECT_PATHS.page]: ["GET", "HEAD"],
    [CONNECT_PATHS.connect]: ["GET", "POST"],
    [CONNECT_PATHS.token]: ["POST"],
    [CONNECT_PATHS.disconnect]: ["POST"],
    [CONNECT_PATHS.callback]: ["GET"],
  };

  async function rowOf(slot: CallerSlot, caller: string): Promise<SlotRow> {
    const row = { id: slot.id, label: slot.label, via: slot.via, fallback: slot.fallback !== undefined };
    if (slot.via === "exchange") return { ...row, state: "missing" };
    const kept = await credentials.vault.get(slot.id, caller);
    if (kept === undefined) return { ...row, state: "missing" };
    if (kept.kind === "oauth" && kept.expiresAt !== undefined) {
      return { ...row, state: kept.expiresAt <= now() ? "expired" : "connected", expiresAt: kept.expiresAt };
    }
    return { ...row, state: "connected" };
  }

  return async (request, path) => {
    const step = steps[path];
    const allowed = methods[path];
    if (step === undefined || allowed === undefined) return undefined;
    const refused = await checkHost(request, { remoteAddress: undefined });
    if (refused !== undefined) return refused;
    if (!allowed.includes(request.method)) {
      return new Response(null, { status: 405, headers: { allow: allowed.join(", ") } });
    }
    try {
      return await step(request);
    } catch (error) {
      logger.error({ err: error, path }, "connections page failed");
      return messagePage(500, "Something went wrong", "The page could not be answered.", "Try again in a moment.");
    }
  };
}

// --- internal ---

function linkRefused(why: LinkRefusal): Response {
  const next = "Call the tool again for a new link.";
  switch (why) {
    case "malformed":
      return messagePage(400, "Not a connect link", "This address does not carry a whole connect link.", next);
    case "forged":
      return messagePage(403, "Link refused", "This link was not made by this host, or was changed.", next);
    case "expired":
      return messagePage(403, "Link expired", "This link has expired.", next);
    case "used":
      return messagePage(403, "Link already used", "This link was already opened; each opens once.", next);
  }
}

function unknownSlot(): Response {
  return messagePage(400, "Unknown credential", "The form named no credential of this host.", "Open the page again.");
}

function originOf(url: string): string {
  return new URL(url).origin;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The request's urlencoded form, read within MAX_FORM_BYTES; 415 for another type, 413 for a larger one. */
async function readForm(request: Request): Promise<URLSearchParams | Response> {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    return messagePage(415, "Not a form", "The page's forms send application/x-www-form-urlencoded only.");
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_FORM_BYTES) return tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_FORM_BYTES) {
        await reader.cancel().catch(() => undefined);
        return tooLarge();
      }
      chunks.push(value);
    }
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

function tooLarge(): Response {
  return messagePage(413, "Too large", `The form is larger than ${MAX_FORM_BYTES} bytes.`);
}
