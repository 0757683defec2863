/** What the authorization server sent back to the client's redirect URI. */
export interface AuthorizationResponse {
  code: string;
  state: string | undefined;
  /** RFC 9207's `iss` parameter, when the server sends it. */
  iss: string | undefined;
}

/** Options of {@link authorizeWithoutBrowser}. */
export interface AuthorizeWithoutBrowserOptions {
  /**
   * Who to type into the authorization server's login form when it shows one (nobody was set with `nextLogin`):
   * the form is submitted as a browser would. Without it, a form is an error.
   */
  login?: string;
}

/**
 * Plays the user agent of an authorization code flow without a browser: fetches `authorizationUrl` and follows each
 * redirect by hand, keeping the cookies the server sets (oidc-provider's interaction cookies), until one leads to
 * `redirectUri`, whose `code`, `state` and `iss` it answers (that URL is never fetched). An error sent to the
 * redirect URI, or a page instead of a redirect (a login form: nobody was set with `nextLogin`, and no `login` was
 * given), throws.
 *
 * @example
 * as.nextLogin("alice");
 * const { code } = await authorizeWithoutBrowser(authorizationUrl, "http://127.0.0.1:1/callback");
 */
export async function authorizeWithoutBrowser(
  authorizationUrl: string | URL,
  redirectUri: string | URL,
  options: AuthorizeWithoutBrowserOptions = {},
): Promise<AuthorizationResponse> {
  const target = String(redirectUri);
  const cookies = new Map<string, string>();
  let url = new URL(authorizationUrl);
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const response = await fetch(url, {
      redirect: "manual",
      ...(form === undefined ? {} : { method: "POST", body: form }),
      headers: cookies.size === 0 ? {} : { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
    });
    form = undefined;
    keepCookies(cookies, response.headers.getSetCookie());
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || location === null) {
      const body = await response.text();
      const action = /<form method="post" action="([^"]+)"/.exec(body)?.[1];
      if (response.status === 200 && action !== undefined && options.login !== undefined) {
        url = new URL(action, url);
        form = new URLSearchParams({ login: options.login });
        continue;
      }
      throw new Error(
        `[test-utils] [authorize] ${url} answered ${response.status} instead of a redirect (is a login set with ` +
          `nextLogin(sub)?):\n${body.slice(0, 500)}`,
      );
    }
    await response.body?.cancel();
    url = new URL(location, url);
    if (url.href.startsWith(target)) return responseAt(url);
  }
  throw new Error(`[test-utils] [authorize] more than ${MAX_HOPS} redirects without reaching ${target}`);
}

// --- internal ---

const MAX_HOPS = 20;

function responseAt(url: URL): AuthorizationResponse {
  const params = url.searchParams;
  const error = params.get("error");
  if (error !== null) {
    const description = params.get("error_description");
    throw new Error(
      `[test-utils] [authorize] the authorization server answered ${error}${description ? `: ${description}` : ""}`,
    );
  }
  const code = params.get("code");
  if (code === null) throw new Error(`[test-utils] [authorize] no code in the redirect to ${url}`);
  return { code, state: params.get("state") ?? undefined, iss: params.get("iss") ?? undefined };
}

function keepCookies(cookies: Map<string, string>, setCookies: string[]): void {
  for (const header of setCookies) {
    const [pair = ""] = header.split(";", 1);
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    const expired = /;\s*expires=Thu, 01 Jan 1970/i.test(header) || /;\s*max-age=0\b/i.test(header);
    if (value === "" || expired) cookies.delete(name);
    else cookies.set(name, value);
  }
}
