import { failure } from "@skillport/test-utils";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getIssue, searchRepos } from "../src/index.js";
import type { FakeGithub } from "./fake-github.js";
import { startFakeGithub, VALID_TOKEN } from "./fake-github.js";
import { ctxFor } from "./helpers.js";

let gh: FakeGithub;

beforeAll(async () => {
  gh = await startFakeGithub();
});

afterAll(async () => {
  await gh.close();
});

beforeEach(() => {
  gh.requests.length = 0;
});

describe("search_repos", () => {
  it("searches with the language as a qualifier and returns compact repositories", async () => {
    const out = await searchRepos(
      { query: "mcp", language: "TypeScript", limit: 5, sort: "stars" },
      ctxFor({ apiBaseUrl: gh.url }, { token: VALID_TOKEN }),
    );
    expect(out.data).toEqual({
      total_count: 1,
      incomplete_results: false,
      items: [
        {
          full_name: "acme/mcp-server",
          description: "The mcp-server repository",
          html_url: "https://github.com/acme/mcp-server",
          stars: 1000,
          forks: 9,
          language: "TypeScript",
          topics: ["mcp", "ai"],
          archived: false,
          updated_at: "2026-02-01T10:00:00Z",
        },
      ],
    });
    expect(out.evidencePaths).toEqual(["https://github.com/acme/mcp-server"]);
    const sent = new URL(gh.requests[0]?.url ?? "", "http://x");
    expect(sent.pathname).toBe("/search/repositories");
    expect(sent.searchParams.get("q")).toBe('mcp language:"TypeScript"');
    expect(sent.searchParams.get("per_page")).toBe("5");
    expect(sent.searchParams.get("sort")).toBe("stars");
  });

  it("sends the token as a Bearer header, GitHub's media type, API version and a User-Agent", async () => {
    await searchRepos(
      { query: "acme", limit: 10, sort: "best-match" },
      ctxFor({ apiBaseUrl: gh.url }, { token: VALID_TOKEN }),
    );
    expect(gh.requests[0]?.headers).toMatchObject({
      authorization: `Bearer ${VALID_TOKEN}`,
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
      "user-agent": "skillport-skill-github",
    });
  });

  it("reads without a token, sending no Authorization header", async () => {
    const out = await searchRepos({ query: "acme", limit: 1, sort: "best-match" }, ctxFor({ apiBaseUrl: gh.url }));
    expect(out.data.total_count).toBe(2);
    expect(out.data.items).toHaveLength(1);
    expect(out.message).toContain("showing 1");
    expect(gh.requests[0]?.headers.authorization).toBeUndefined();
    expect(new URL(gh.requests[0]?.url ?? "", "http://x").searchParams.has("sort")).toBe(false);
  });

  it("refuses a language that would smuggle qualifiers into the query", async () => {
    const error = await failure(
      searchRepos(
        { query: "x", language: 'go" user:victim', limit: 1, sort: "best-match" },
        ctxFor({ apiBaseUrl: gh.url }),
      ),
    );
    expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/language" });
    expect(gh.requests).toHaveLength(0);
  });
});

describe("get_issue", () => {
  it("returns the issue with labels, people, dates and its URL as evidence", async () => {
    const out = await getIssue({ repo: "octocat/Hello-World", number: 1347 }, ctxFor({ apiBaseUrl: gh.url }));
    expect(out.data).toEqual({
      repo: "octocat/Hello-World",
      number: 1347,
      title: "Found a bug",
      state: "open",
      state_reason: null,
      body: "I'm having a problem with this.",
      labels: ["bug"],
      author: "octocat",
      assignees: ["hubot"],
      comments: 3,
      is_pull_request: false,
      html_url: "https://github.com/octocat/Hello-World/issues/1347",
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-05T00:00:00Z",
      closed_at: null,
    });
    expect(out.evidencePaths).toEqual(["https://github.com/octocat/Hello-World/issues/1347"]);
    expect(gh.requests[0]?.url).toBe("/repos/octocat/Hello-World/issues/1347");
  });

  it("says when the number is a pull request, and when an issue was closed", async () => {
    const pr = await getIssue({ repo: "octocat/Hello-World", number: 1348 }, ctxFor({ apiBaseUrl: gh.url }));
    expect(pr.data.is_pull_request).toBe(true);
    expect(pr.message).toMatch(/^Pull request #1348/);
    const closed = await getIssue({ repo: "octocat/Hello-World", number: 1200 }, ctxFor({ apiBaseUrl: gh.url }));
    expect(closed.data).toMatchObject({
      state: "closed",
      state_reason: "completed",
      closed_at: "2026-01-02T03:04:05Z",
    });
  });

  it("keeps to readRepos when the instance sets it, asking nothing of GitHub", async () => {
    const ctx = ctxFor({ apiBaseUrl: gh.url, readRepos: ["acme/*"], repos: ["octocat/other"] });
    const error = await failure(getIssue({ repo: "octocat/Hello-World", number: 1347 }, ctx));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/repo" });
    expect(error.message).toContain("acme/*");
    expect(gh.requests).toHaveLength(0);
  });

  it.each(["octocat/..", "octocat/.", "../etc", "octocat/Hello-World/issues", "octocat", "a b/c"])(
    "refuses the repo %j before any request",
    async (repo) => {
      const error = await failure(getIssue({ repo, number: 1 }, ctxFor({ apiBaseUrl: gh.url })));
      expect(error).toMatchObject({ code: "ARGUMENT_INVALID", field: "/repo" });
      expect(gh.requests).toHaveLength(0);
    },
  );
});

describe("the API root", () => {
  it("works under a GitHub Enterprise path prefix", async () => {
    const ghe = await startFakeGithub({ prefix: "/api/v3" });
    try {
      const out = await getIssue({ repo: "octocat/Hello-World", number: 1347 }, ctxFor({ apiBaseUrl: `${ghe.url}/` }));
      expect(out.data.number).toBe(1347);
      expect(ghe.requests[0]?.url).toBe("/repos/octocat/Hello-World/issues/1347");
    } finally {
      await ghe.close();
    }
  });

  it("refuses plain http beyond loopback, so a token never crosses the network in clear", async () => {
    const error = await failure(
      getIssue(
        { repo: "octocat/Hello-World", number: 1 },
        ctxFor({ apiBaseUrl: "http://github.example.com/api/v3" }, { token: VALID_TOKEN }),
      ),
    );
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toContain("https");
  });
});
