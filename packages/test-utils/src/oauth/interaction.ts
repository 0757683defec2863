import type { IncomingMessage, ServerResponse } from "node:http";
import type Provider from "oidc-provider";
import type { Interaction } from "oidc-provider";

/** Where the provider sends the user agent to log in or consent: `/interaction/<uid>`. */
export const INTERACTION_PATH = "/interaction/";

/**
 * The authorization server's user interface, without a user: the consent prompt is granted at once (every scope and
 * resource asked for); the login prompt logs in whom `takeLogin()` names, or, when nobody was named, shows a form
 * with a `login` text field that a browser test fills in and submits (POST to the same URL).
 */
export function interactionHandler(
  provider: Provider,
  takeLogin: () => string | undefined,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    let interaction: Interaction;
    try {
      interaction = await provider.interactionDetails(req, res);
    } catch (error) {
      return page(
        res,
        400,
        "No interaction",
        `This authorization request is unknown or over: ${htmlEscape((error as Error).message)}`,
      );
    }
    if (interaction.prompt.name === "consent") return consent(provider, req, res, interaction);
    if (interaction.prompt.name !== "login") {
      return page(
        res,
        400,
        "Unsupported prompt",
        `The fixture completes login and consent, not "${htmlEscape(interaction.prompt.name)}".`,
      );
    }
    const login = req.method === "POST" ? new URLSearchParams(await bodyOf(req)).get("login") : takeLogin();
    if (login === null || login === undefined || login === "")
      return page(res, 200, "Log in", loginForm(interaction.uid));
    await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  };
}

// --- internal ---

async function consent(provider: Provider, req: IncomingMessage, res: ServerResponse, interaction: Interaction) {
  const { details } = interaction.prompt;
  const accountId = interaction.session?.accountId;
  if (accountId === undefined) return page(res, 400, "No session", "Consent was asked before anyone logged in.");
  const found = interaction.grantId === undefined ? undefined : await provider.Grant.find(interaction.grantId);
  const grant = found ?? new provider.Grant({ accountId, clientId: interaction.params.client_id });
  const scopes = details.missingOIDCScope as string[] | undefined;
  if (scopes !== undefined) grant.addOIDCScope(scopes.join(" "));
  const claims = details.missingOIDCClaims as string[] | undefined;
  if (claims !== undefined) grant.addOIDCClaims(claims);
  const resources = details.missingResourceScopes as Record<string, string[]> | undefined;
  for (const [resource, scope] of Object.entries(resources ?? {})) grant.addResourceScope(resource, scope.join(" "));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

function loginForm(uid: string): string {
  return `<p>No login was set with nextLogin(sub): type who logs in.</p>
<form method="post" action="${INTERACTION_PATH}${htmlEscape(encodeURIComponent(uid))}">
<input type="text" name="login" autofocus>
<button type="submit">Log in</button>
</form>`;
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(`<!doctype html><html><head><title>${htmlEscape(title)}</title></head><body>${body}</body></html>`);
}

function htmlEscape(text: string): string {
  return text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
