import type { CallerSlot } from "../../../credentials/caller-slot.js";
import type { LinkRefusal } from "../../../credentials/connect-links.js";
import { CONNECT_PATHS } from "../../../credentials/connect-paths.js";
import type { HostCredentials } from "../../../credentials/open-credentials.js";
import type { Logger } from "../../../logging/logger.js";
import type { Redactor } from "../../../redaction/redactor.js";
import type { SlotRow } from "./connection-pages.js";
import { messagePage, seeOther, signedOutPage, slotsPage, tokenFormPage } from "./connection-pages.js";
import type { PageSession, PageSessions } from "./page-sessions.js";
import { sameToken } from "./page-sessions.js";
import { readForm } from "./read-form.js";

/** What every step of the connections page reads. */
export interface StepContext {
  credentials: HostCredentials;
  sessions: PageSessions;
  redactor: Redactor;
  logger: Logger;
  now: () => number;
}

/** One step of the connections page: a request to its path in, a page or a redirect out. */
export type Step = (context: StepContext, request: Request) => Promise<Response>;

/**
 * GET /connections/open?link=: a genuine, unexpired, unused link signs the browser in as its caller (a new session)
 * and redirects at once to the page. A browser signed in as another caller is refused before the link is redeemed,
 * so it stays usable by the one it was made for.
 */
export const openLink: Step = async ({ credentials, sessions, logger }, request) => {
  const token = new URL(request.url).searchParams.get("link");
  if (token === null || token === "") return linkRefused("malformed");
  const link = credentials.links.verify(token);
  if (typeof link === "string") return linkRefused(link);
  const current = await sessions.of(request);
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
};

/** GET /connections: every per-caller slot with the signed-in caller's state (never a value). */
export const showConnections: Step = async (context, request) => {
  const session = await context.sessions.of(request);
  if (session === undefined) return signedOutPage();
  const rows = await Promise.all(context.credentials.slots().map((slot) => rowOf(context, slot, session.caller)));
  return slotsPage(session.caller, rows, session.csrf);
};

/**
 * /connections/connect: a token slot's form, or, for an OAuth slot, a redirect to its authorization server. POST
 * from the page's form, or GET from its link with the CSRF token in the query (an OAuth slot's Connect is a link:
 * a form's redirect to the authorization server would be blocked by `form-action 'self'`).
 */
export const startConnection: Step = async (context, request) => {
  const { credentials, logger, redactor } = context;
  let session: PageSession;
  let slotId: string | null;
  if (request.method === "POST") {
    const checked = await posted(context, request);
    if (checked instanceof Response) return checked;
    session = checked.session;
    slotId = checked.form.get("slot");
  } else {
    const found = await context.sessions.of(request);
    if (found === undefined) return signedOutPage();
    const query = new URL(request.url).searchParams;
    if (!sameToken(query.get("csrf"), found.csrf)) {
      return messagePage(403, "Refused", "This link is not from your current page.", "Open the page again.");
    }
    session = found;
    slotId = query.get("slot");
  }
  const slot = slotOf(context, slotId);
  if (slot === undefined) return unknownSlot();
  if (slot.via === "token") return tokenFormPage(slot, session.csrf);
  if (slot.via === "exchange") {
    return messagePage(400, "Nothing to connect", `${slot.label} uses your own sign-in, exchanged when you call.`);
  }
  try {
    const { authorizationUrl } = await credentials.oauth.start(slot, session.caller);
    return seeOther(authorizationUrl);
  } catch (error) {
    logger.warn({ err: error, slot: slot.id }, "an OAuth connection could not start");
    const why = error instanceof Error ? error.message : String(error);
    return messagePage(
      502,
      "Could not reach the authorization server",
      `Connecting ${slot.label} could not start: ${redactor.string(why)}`,
      "Try again in a moment.",
    );
  }
};

/** POST /connections/token: keeps a personal token for a `token` slot (taught to the redactor first). */
export const saveToken: Step = async (context, request) => {
  const checked = await posted(context, request);
  if (checked instanceof Response) return checked;
  const slot = slotOf(context, checked.form.get("slot"));
  if (slot === undefined) return unknownSlot();
  if (slot.via !== "token") {
    return messagePage(400, "Not a token", `${slot.label} is not connected with a personal token.`);
  }
  const value = (checked.form.get("token") ?? "").trim();
  if (value === "") return messagePage(400, "No token", "The form carried no token.", "Go back and paste it.");
  context.redactor.add([value]);
  const { caller } = checked.session;
  await context.credentials.vault.put(slot.id, caller, { kind: "token", value, savedAt: context.now() });
  context.logger.info({ caller, slot: slot.id }, "connections page: a personal token was saved");
  return seeOther(CONNECT_PATHS.page);
};

/** POST /connections/disconnect: forgets what the caller connected for a slot. */
export const disconnect: Step = async (context, request) => {
  const checked = await posted(context, request);
  if (checked instanceof Response) return checked;
  const slot = slotOf(context, checked.form.get("slot"));
  if (slot === undefined) return unknownSlot();
  await context.credentials.vault.remove(slot.id, checked.session.caller);
  context.logger.info({ caller: checked.session.caller, slot: slot.id }, "connections page: disconnected");
  return seeOther(CONNECT_PATHS.page);
};

/**
 * GET /connections/callback: the authorization server's answer, finished for the signed-in caller; back to the
 * page's fixed path (nothing in the request chooses where the browser goes next), or a 400 page.
 */
export const finishOAuth: Step = async ({ credentials, sessions, redactor, logger }, request) => {
  const session = await sessions.of(request);
  if (session === undefined) return signedOutPage();
  const query = new URL(request.url).searchParams;
  const error = query.get("error");
  if (error !== null) {
    const description = query.get("error_description");
    return messagePage(
      400,
      "Not connected",
      redactor.string(`The authorization server answered ${error}${description === null ? "" : `: ${description}`}.`),
      "Nothing was connected; start again from the connections page.",
    );
  }
  const state = query.get("state");
  const code = query.get("code");
  if (state === null || code === null) {
    return messagePage(400, "Not connected", "This is not an answer to a connection started here.");
  }
  const finished = await credentials.oauth.finish({ state, code, iss: query.get("iss") ?? undefined }, session.caller);
  if (!finished.ok) {
    const reason = redactor.string(finished.reason);
    return messagePage(400, "Not connected", reason, "Start again from the connections page.");
  }
  logger.info({ caller: session.caller, slot: finished.slot }, "connections page: connected through OAuth");
  return seeOther(CONNECT_PATHS.page);
};

// --- internal ---

/**
 * The session of a POST whose CSRF token and Origin check out, and its form; else the refusal. An Origin, when
 * sent, must be the base URL's: `null` (an opaque origin, or a page that hides its own) is refused.
 */
async function posted(
  { credentials, sessions }: StepContext,
  request: Request,
): Promise<{ session: PageSession; form: URLSearchParams } | Response> {
  const session = await sessions.of(request);
  if (session === undefined) return signedOutPage();
  const form = await readForm(request);
  if (form instanceof Response) return form;
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(credentials.baseUrl ?? request.url).origin) {
    return messagePage(403, "Refused", "This form was sent from another site.", "Open the connections page again.");
  }
  if (!sameToken(form.get("csrf"), session.csrf)) {
    return messagePage(403, "Refused", "This form is not from your current page.", "Open the connections page again.");
  }
  return { session, form };
}

function slotOf({ credentials }: StepContext, id: string | null): CallerSlot | undefined {
  return credentials.slots().find((slot) => slot.id === id);
}

async function rowOf({ credentials, now }: StepContext, slot: CallerSlot, caller: string): Promise<SlotRow> {
  const row = { id: slot.id, label: slot.label, via: slot.via, fallback: slot.fallback !== undefined };
  if (slot.via === "exchange") return { ...row, state: "missing" };
  const kept = await credentials.vault.get(slot.id, caller);
  if (kept === undefined) return { ...row, state: "missing" };
  if (kept.kind === "oauth" && kept.expiresAt !== undefined) {
    return { ...row, state: kept.expiresAt <= now() ? "expired" : "connected", expiresAt: kept.expiresAt };
  }
  return { ...row, state: "connected" };
}

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
