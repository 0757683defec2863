import { createHash } from "node:crypto";
import { CONNECT_PATHS } from "../../../credentials/connect-paths.js";

/** One slot as the connections page lists it. */
export interface SlotRow {
  id: string;
  label: string;
  via: "token" | "oauth" | "exchange";
  /** What the caller has: connected (until `expiresAt`, epoch ms, for OAuth), expired, or nothing. */
  state: "connected" | "expired" | "missing";
  expiresAt?: number;
  /** Whether a caller without their own gets the host's shared one. */
  fallback: boolean;
}

/** The exact Content-Security-Policy of every page: no script at all, the one style by hash, forms to this origin. */
export const PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(pageStyle()).digest("base64")}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

/** A 303 to one of the page's own paths (never a URL from the request), or to an authorization server. */
export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...PAGE_HEADERS, ...headers } });
}

/** A page that says what happened and what to do: `text` is plain text, `next` a plain-text hint. */
export function messagePage(status: number, title: string, text: string, next?: string): Response {
  return page(status, title, `<p>${escapeHtml(text)}</p>${next === undefined ? "" : `<p>${escapeHtml(next)}</p>`}`);
}

/** What a browser without a session is told. */
export function signedOutPage(): Response {
  return messagePage(
    401,
    "Not signed in",
    "This page shows the credentials you connected, once you open it through a connect link.",
    "To get a link, call a tool that needs one of your credentials: its answer says it is missing and carries a link, yours only, that opens here once.",
  );
}

/**
 * The caller's slots with their state and buttons: Connect (a form for a personal token; a link for OAuth, which
 * leaves for the authorization server) and Disconnect.
 */
export function slotsPage(caller: string, rows: readonly SlotRow[], csrf: string): Response {
  const body = rows.length === 0 ? "<p>Nothing here needs a credential of yours.</p>" : table(rows, csrf);
  return page(
    200,
    "Your connections",
    `<p>Signed in as <strong>${escapeHtml(caller)}</strong>. What you connect here is used for your calls only, kept sealed, and never shown again.</p>${body}`,
    WITH_FORMS,
  );
}

/** The form a personal token is pasted into. */
export function tokenFormPage(row: Pick<SlotRow, "id" | "label">, csrf: string): Response {
  return page(
    200,
    `Connect ${row.label}`,
    `<form method="post" action="${CONNECT_PATHS.token}">${hidden("slot", row.id)}${hidden("csrf", csrf)}<label for="token">Your personal token for ${escapeHtml(row.label)}</label><input id="token" name="token" type="password" autocomplete="off" required maxlength="8192"><button type="submit">Save</button></form><p><a href="${CONNECT_PATHS.page}">Back to your connections</a></p>`,
    WITH_FORMS,
  );
}

// --- internal ---

/** The only inline style of every page; the CSP allows it by hash, and nothing else. */
function pageStyle(): string {
  return (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}" +
    "table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.5rem;border-bottom:1px solid #ccc}" +
    "form{display:inline}button{font:inherit;padding:.25rem .75rem}input{font:inherit;width:100%;margin:.25rem 0 1rem}" +
    ".state-connected{color:#176b2c}.state-expired,.state-missing{color:#9a3412}"
  );
}

/** The headers every answer of the connections page carries, pages and redirects alike. */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": PAGE_CSP,
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/**
 * An HTML page with the page headers: `body` is HTML already escaped by its maker.
 *
 * @example
 * page(403, "Link refused", `<p>${escapeHtml(reason)}</p>`);
 */
function page(status: number, title: string, body: string, headers: Record<string, string> = {}): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · Skillport</title><style>${pageStyle()}</style></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
  return new Response(html, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", ...PAGE_HEADERS, ...headers },
  });
}

/** Text made safe inside HTML, attribute values included. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ENTITIES[c] ?? c);
}

/**
 * The referrer policy of a page with forms: same-origin, so the browser sends the page's Origin with a form, which
 * the server checks (under no-referrer Chromium sends `Origin: null`, as the Fetch standard says, and an attacker's
 * page could do the same to pass for a browser that sends none). Nothing is sent to another origin; every other
 * answer, the redirects included, is no-referrer.
 */
const WITH_FORMS = { "referrer-policy": "same-origin" };

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

const VIA: Record<SlotRow["via"], string> = {
  token: "Personal token",
  oauth: "OAuth (sign in)",
  exchange: "Exchanged automatically",
};

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

function table(rows: readonly SlotRow[], csrf: string): string {
  const lines = rows.map((row) => {
    const actions: string[] = [];
    if (row.via === "token") {
      actions.push(
        `<form method="post" action="${CONNECT_PATHS.connect}">${hidden("slot", row.id)}${hidden("csrf", csrf)}<button type="submit">Connect</button></form>`,
      );
    } else if (row.via === "oauth") {
      // A link, not a form: a form's redirect to the authorization server would be blocked by form-action 'self'.
      const query = new URLSearchParams({ slot: row.id, csrf });
      actions.push(`<a href="${CONNECT_PATHS.connect}?${escapeHtml(query.toString())}">Connect</a>`);
    }
    if (row.via !== "exchange" && row.state !== "missing") {
      actions.push(
        ` <form method="post" action="${CONNECT_PATHS.disconnect}">${hidden("slot", row.id)}${hidden("csrf", csrf)}<button type="submit">Disconnect</button></form>`,
      );
    }
    return `<tr id="slot-${escapeHtml(row.id)}"><td>${escapeHtml(row.label)}</td><td>${VIA[row.via]}</td><td class="state-${row.state}">${stateText(row)}</td><td>${actions.join("")}</td></tr>`;
  });
  return `<table><caption>Your credentials</caption><thead><tr><th scope="col">Credential</th><th scope="col">How it connects</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead><tbody>${lines.join("")}</tbody></table>`;
}

function stateText(row: SlotRow): string {
  if (row.via === "exchange") return "Automatic: your own sign-in is exchanged when you call";
  if (row.state === "connected") {
    return row.expiresAt === undefined
      ? "Connected"
      : `Connected until ${escapeHtml(new Date(row.expiresAt).toISOString())}`;
  }
  const shared = row.fallback ? " (the host's shared credential is used meanwhile)" : "";
  return row.state === "expired" ? `Expired${shared}` : `Not connected${shared}`;
}
