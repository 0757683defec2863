import { failure } from "@skillport/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIssue, getIssue, searchRepos } from "../src/index.js";
import type { Canned, FakeGithub } from "./fake-github.js";
import { startFakeGithub, VALID_TOKEN } from "./fake-github.js";
import { ctxFor } from "./helpers.js";

let gh: FakeGithub;

beforeAll(async () => {
  gh = await startFakeGithub();
});

afterAll(async () => {
  await gh.close();
});

const ctx = (extra: { requestTimeoutMs?: number; signal?: AbortSignal; token?: string | undefined } = {}) =>
  ctxFor(
    { apiBaseUrl: gh.url, repos: ["acme/website"], requestTimeoutMs: extra.requestTimeoutMs ?? 15_000 },
    { token: "token" in extra ? extra.token : VALID_TOKEN, ...(extra.signal ? { signal: extra.signal } : {}) },
  );

type Ctx = ReturnType<typeof ctx>;

const TOOLS: [string, (c: Ctx) => Promise<unknown>][] = [
  ["search_repos", (c) => searchRepos({ query: "mcp", limit: 5, sort: "best-match" }, c)],
  ["get_issue", (c) => getIssue({ repo: "octocat/Hello-World", number: 1347 }, c)],
  ["create_issue", (c) => createIssue({ repo: "acme/website", title: "t", body: "b", labels: [], dry_run: false }, c)],
];

const soon = String(Math.floor(Date.now() / 1000) + 3600);

/** GitHub's answers, as it sends them, and the SkillError each must become. */
const STATUSES: [label: string, canned: Canned, code: string, retryable: boolean, says: string][] = [
  [
    "401 bad credentials",
    { status: 401, body: { message: "Bad credentials" } },
    "CREDENTIALS_MISSING",
    false,
    "credentials.token",
  ],
  [
    "403 forbidden",
    { status: 403, body: { message: "Resource not accessible by personal access token" } },
    "PERMISSION_DENIED",
    false,
    "Resource not accessible",
  ],
  [
    "403 primary rate limit spent",
    {
      status: 403,
      body: { message: "API rate limit exceeded for user ID 1." },
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": soon },
    },
    "RATE_LIMITED",
    true,
    "retry after",
  ],
  [
    "403 secondary rate limit with retry-after",
    { status: 403, body: { message: "You have exceeded a secondary rate limit." }, headers: { "retry-after": "42" } },
    "RATE_LIMITED",
    true,
    "retry after 42 seconds",
  ],
  ["404 not found", { status: 404, body: { message: "Not Found" } }, "NOT_FOUND", false, "not found"],
  ["410 gone", { status: 410, body: { message: "Issues are disabled for this repo" } }, "NOT_FOUND", false, "disabled"],
  [
    "422 validation failed",
    {
      status: 422,
      body: { message: "Validation Failed", errors: [{ resource: "Issue", code: "invalid", field: "labels" }] },
    },
    "ARGUMENT_INVALID",
    true,
    "Validation Failed",
  ],
  [
    "429 too many requests",
    { status: 429, body: { message: "Too Many Requests" }, headers: { "retry-after": "30" } },
    "RATE_LIMITED",
    true,
    "retry after 30 seconds",
  ],
  ["500 server error", { status: 500, body: { message: "Server Error" } }, "UPSTREAM_ERROR", true, "try again later"],
  ["502 bad gateway, HTML body", { status: 502, body: "<html>Bad Gateway</html>" }, "UPSTREAM_ERROR", true, "502"],
  ["503 unavailable", { status: 503, body: { message: "Service Unavailable" } }, "UPSTREAM_ERROR", true, "503"],
  ["418 anything else", { status: 418, body: { message: "I'm a teapot" } }, "UPSTREAM_ERROR", false, "teapot"],
];

describe("GitHub's HTTP errors become stable codes, with the status", () => {
  const table = TOOLS.flatMap(([tool, call]) => STATUSES.map((row) => [tool, ...row, call] as const));

  it.each(table)("%s: %s", async (_tool, _label, canned, code, retryable, says, call) => {
    gh.failNext(canned);
    const error = await failure(call(ctx()));
    expect(error).toMatchObject({ code, retryable, status: canned.status });
    expect(error.message).toContain(says);
    expect(error.message).not.toContain(VALID_TOKEN);
  });

  it("points a 422 at the argument GitHub names", async () => {
    gh.failNext(STATUSES[6]?.[1] as Canned);
    const error = await failure(TOOLS[2]?.[1](ctx()) as Promise<unknown>);
    expect(error.field).toBe("/labels");
  });

  it("points a 404 of an issue at its number", async () => {
    const error = await failure(getIssue({ repo: "octocat/Hello-World", number: 9 }, ctx()));
    expect(error).toMatchObject({ code: "NOT_FOUND", field: "/number", status: 404 });
    expect(error.message).toContain("issue #9 of octocat/Hello-World");
  });

  it("says a missing token is what a 401 on a read needs", async () => {
    gh.failNext({ status: 401, body: { message: "Requires authentication" } });
    const error = await failure(getIssue({ repo: "octocat/Hello-World", number: 1 }, ctx({ token: undefined })));
    expect(error.code).toBe("CREDENTIALS_MISSING");
    expect(error.message).toContain('needs the credential "token"');
  });

  it("never echoes a token GitHub puts in its message", async () => {
    gh.failNext({ status: 400, body: { message: `bad header Bearer ${VALID_TOKEN}` } });
    const error = await failure(getIssue({ repo: "octocat/Hello-World", number: 1 }, ctx()));
    expect(error.message).not.toContain(VALID_TOKEN);
    expect(error.message).toContain("[REDACTED]");
  });

  it("answers UPSTREAM_ERROR for a 200 that is not JSON", async () => {
    gh.failNext({ status: 200, body: "<html>captive portal</html>" });
    const error = await failure(getIssue({ repo: "octocat/Hello-World", number: 1 }, ctx()));
    expect(error).toMatchObject({ code: "UPSTREAM_ERROR", status: 200 });
  });
});

describe("the network", () => {
  it("passes ctx.signal to fetch: cancelling aborts the request GitHub is still answering", async () => {
    gh.failNext({ status: 200, hang: true });
    const serverHolds = gh.hanging();
    const controller = new AbortController();
    // With a long request timeout, only the signal can end this call within the test's 10 s
    const call = getIssue(
      { repo: "octocat/Hello-World", number: 1 },
      ctx({ signal: controller.signal, requestTimeoutMs: 120_000 }),
    );
    const serverSawAbort = gh.aborted();
    // Cancelled once GitHub holds the request, as a person cancels a call that is taking long.
    await serverHolds;
    controller.abort();
    const error = await failure(call);
    expect(error.code).toBe("CANCELLED");
    await serverSawAbort;
  }, 10_000);

  it("gives up after the instance's requestTimeoutMs with TIMEOUT", async () => {
    gh.failNext({ status: 200, hang: true });
    const error = await failure(getIssue({ repo: "octocat/Hello-World", number: 1 }, ctx({ requestTimeoutMs: 1000 })));
    expect(error).toMatchObject({ code: "TIMEOUT", retryable: true });
  });

  it("answers UNAVAILABLE when nothing listens at the API root", async () => {
    const gone = await startFakeGithub();
    await gone.close();
    const error = await failure(
      getIssue({ repo: "octocat/Hello-World", number: 1 }, ctxFor({ apiBaseUrl: gone.url }, { token: VALID_TOKEN })),
    );
    expect(error).toMatchObject({ code: "UNAVAILABLE", retryable: true });
    expect(error.message).toContain("apiBaseUrl");
  });
});
