import type { SkillContext } from "@skillport/core";
import { isSkillError, SkillError } from "@skillport/core";
import type { GithubConfig } from "./config.js";
import { redactSecrets } from "./redact.js";

/** The REST API version this skill is written against. */
const API_VERSION = "2022-11-28";

/** One request to the GitHub REST API. */
export interface GithubRequest {
  method: "GET" | "POST";
  /** The path and query below the API root, e.g. `/repos/octo/site/issues/1`. */
  path: string;
  body?: unknown;
  /** What the request is about, for messages: `issue #1 of octo/site`. */
  subject: string;
  /** JSON pointer of the argument a 404 or 422 is about. */
  field?: string;
}

/**
 * Calls the API through `ctx.fetch`, which adds the instance's token (held by the host, never seen here) as a
 * Bearer token for the API's origin, with `ctx.signal` (and the instance's request timeout) on the request. Every
 * failure becomes a SkillError with a stable code; the HTTP status travels in `status`. Secrets never reach a
 * message.
 */
export async function githubRequest<T>(request: GithubRequest, ctx: SkillContext<GithubConfig>): Promise<T> {
  ctx.signal.throwIfAborted();
  const url = apiUrl(ctx.config, request.path);
  const headers: Record<string, string> = {
    Accept: "application/vnd.github+json",
    "X-GitHub-Api-Version": API_VERSION,
    "User-Agent": ctx.config.userAgent,
  };
  if (request.body !== undefined) headers["Content-Type"] = "application/json";

  const timeout = AbortSignal.timeout(ctx.config.requestTimeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await ctx.fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.any([ctx.signal, timeout]),
    });
    text = await response.text();
  } catch (error) {
    if (isSkillError(error)) throw error; // the host refused to send the token (e.g. a bad apiBaseUrl)
    if (ctx.signal.aborted) {
      throw new SkillError({ code: "CANCELLED", message: `the request for ${request.subject} was cancelled` });
    }
    if (timeout.aborted) {
      throw new SkillError({
        code: "TIMEOUT",
        message: `GitHub did not answer the request for ${request.subject} within ${ctx.config.requestTimeoutMs} ms; try again later`,
      });
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new SkillError({
      code: "UNAVAILABLE",
      message: `cannot reach the GitHub API at ${ctx.config.apiBaseUrl}${cause === undefined ? "" : ` (${cause})`}; check "apiBaseUrl" in the manifest config and the network`,
    });
  }
  if (!response.ok) throw await statusError(response, text, request, ctx);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new SkillError({
      code: "UPSTREAM_ERROR",
      status: response.status,
      message: `GitHub answered the request for ${request.subject} with something that is not JSON; try again later`,
    });
  }
}

/** `owner/name` → `/repos/owner/name`, each part encoded. */
export function repoPath(repo: string): string {
  const [owner, name] = repo.split("/") as [string, string];
  return `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

/**
 * Refuses a repository argument that could address anything but one repository (the schema says the same; a
 * direct call of the capability gets the same answer).
 */
export function checkRepo(repo: string, field = "/repo"): void {
  const [owner, name, ...rest] = repo.split("/");
  const valid =
    rest.length === 0 &&
    owner !== undefined &&
    name !== undefined &&
    /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/.test(owner) &&
    /^[A-Za-z0-9._-]{1,100}$/.test(name) &&
    name !== "." &&
    name !== "..";
  if (!valid) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field,
      message: `repo ${JSON.stringify(repo)} is not a repository name; write it as "owner/name", e.g. "octocat/Hello-World"`,
    });
  }
}

/** True when an allowlist entry (`owner/name` or `owner/*`) covers the repository; GitHub names ignore case. */
export function repoAllowed(repo: string, allowlist: readonly string[]): boolean {
  const [owner, name] = repo.toLowerCase().split("/");
  return allowlist.some((entry) => {
    const [allowedOwner, allowedName] = entry.toLowerCase().split("/");
    return allowedOwner === owner && (allowedName === "*" || allowedName === name);
  });
}

// --- internal ---

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

function apiUrl(config: GithubConfig, path: string): string {
  let base: URL;
  try {
    base = new URL(config.apiBaseUrl);
  } catch {
    throw new SkillError({
      code: "UNAVAILABLE",
      message: `"apiBaseUrl" (${config.apiBaseUrl}) is not a URL; fix it in the manifest config`,
    });
  }
  if (base.protocol !== "https:" && !(base.protocol === "http:" && LOOPBACK.has(base.hostname))) {
    // A token must never cross the network in clear text.
    throw new SkillError({
      code: "UNAVAILABLE",
      message: `"apiBaseUrl" (${config.apiBaseUrl}) must use https (plain http only on a loopback address); fix it in the manifest config`,
    });
  }
  return `${base.href.replace(/\/+$/, "")}${path}`;
}

async function statusError(
  response: Response,
  text: string,
  request: GithubRequest,
  ctx: SkillContext<GithubConfig>,
): Promise<SkillError> {
  const status = response.status;
  const hasToken = ctx.hasCredential("token");
  const said = await upstreamMessage(text, ctx);
  const why = said === "" ? `HTTP ${status}` : `HTTP ${status}: ${said}`;
  const rateLimit = rateLimitWait(response.headers);
  if (status === 429 || (status === 403 && rateLimit !== undefined)) {
    const wait = rateLimit ?? 60;
    return new SkillError({
      code: "RATE_LIMITED",
      status,
      retryable: true,
      message: `GitHub's rate limit stopped the request for ${request.subject} (${why}); retry after ${wait} seconds${hasToken ? "" : ", or give this instance a token for a higher limit"}`,
    });
  }
  if (status === 401) {
    return new SkillError({
      code: "CREDENTIALS_MISSING",
      status,
      message: !hasToken
        ? `GitHub needs the credential "token" for ${request.subject} (${why}); give this instance one in the manifest (credentials.token)`
        : `GitHub refused the credential "token" for ${request.subject} (${why}); set a valid token in the manifest (credentials.token)`,
    });
  }
  if (status === 403) {
    return new SkillError({
      code: "PERMISSION_DENIED",
      status,
      message: `GitHub does not allow this request for ${request.subject} (${why}); the token needs access to it (Issues: read and write for create_issue)`,
    });
  }
  if (status === 404 || status === 410) {
    return new SkillError({
      code: "NOT_FOUND",
      status,
      field: request.field,
      message: `${request.subject} was not found (${why}); check the name, or it may be private and need a token that can see it`,
    });
  }
  if (status === 422) {
    return new SkillError({
      code: "ARGUMENT_INVALID",
      status,
      field: validationField(text) ?? request.field,
      message: `GitHub refused the request for ${request.subject} as invalid (${why})`,
    });
  }
  return new SkillError({
    code: "UPSTREAM_ERROR",
    status,
    retryable: status >= 500,
    message: `GitHub failed the request for ${request.subject} (${why})${status >= 500 ? "; try again later" : ""}`,
  });
}

/**
 * GitHub's own message and validation details, short and free of secrets: token-like strings are redacted, and
 * a message still holding a secret the host knows (the instance's own token, echoed back) is not shown at all.
 */
async function upstreamMessage(text: string, ctx: SkillContext<GithubConfig>): Promise<string> {
  let said = "";
  try {
    const body = JSON.parse(text) as { message?: unknown; errors?: unknown };
    if (typeof body.message === "string") said = body.message;
    if (Array.isArray(body.errors)) {
      const details = body.errors
        .map((e) =>
          typeof e === "string"
            ? e
            : [e?.field, e?.code, e?.message].filter((part) => typeof part === "string").join(" "),
        )
        .filter((d) => d !== "");
      if (details.length > 0) said += ` (${details.join("; ")})`;
    }
  } catch {
    said = text.trim();
  }
  const clipped = redactSecrets(said.length > 300 ? `${said.slice(0, 300)}…` : said).text;
  if ((await ctx.findSecret(clipped)) !== undefined) return "GitHub's message held a secret and is not shown";
  return clipped;
}

/** The argument a 422's first validation error names, as a JSON pointer. */
function validationField(text: string): string | undefined {
  try {
    const field = (JSON.parse(text) as { errors?: { field?: unknown }[] }).errors?.[0]?.field;
    return typeof field === "string" && /^(title|body|labels|assignees|milestone)$/.test(field)
      ? `/${field}`
      : undefined;
  } catch {
    return undefined;
  }
}

/** Seconds until GitHub takes requests again: `retry-after`, else the primary limit's reset time when it is spent. */
function rateLimitWait(headers: Headers): number | undefined {
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) return Number(retryAfter.trim());
  if (headers.get("x-ratelimit-remaining") === "0") {
    const reset = Number(headers.get("x-ratelimit-reset"));
    return Number.isFinite(reset) && reset > 0 ? Math.max(1, Math.ceil(reset - Date.now() / 1000)) : 60;
  }
  return undefined;
}
