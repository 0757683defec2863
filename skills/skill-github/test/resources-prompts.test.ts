import path from "node:path";
import type { TestHost } from "@skillport/testing";
import { createTestHost } from "@skillport/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { register } from "../src/index.js";
import type { FakeGithub } from "./fake-github.js";
import { startFakeGithub, VALID_TOKEN } from "./fake-github.js";

const PACKAGE = path.resolve(import.meta.dirname, "..");

let gh: FakeGithub;
let t: TestHost;
let anonymous: TestHost;

beforeAll(async () => {
  gh = await startFakeGithub({ prefix: "/api/v3" });
  process.env.SKILLPORT_TEST_GITHUB_TOKEN = VALID_TOKEN;
  const config = { apiBaseUrl: gh.url, repos: ["acme/website"], readRepos: ["octocat/Hello-World", "acme/mcp-server"] };
  t = await createTestHost({
    skills: [
      { register, mcp: "gh", config, dir: PACKAGE, credentials: { token: { env: "SKILLPORT_TEST_GITHUB_TOKEN" } } },
    ],
  });
  anonymous = await createTestHost({ skills: [{ register, mcp: "gh", config, dir: PACKAGE }] });
  delete process.env.SKILLPORT_TEST_GITHUB_TOKEN;
});

afterAll(async () => {
  await t.close();
  await anonymous.close();
  await gh.close();
});

beforeEach(() => {
  gh.requests.length = 0;
});

describe("github://repos/{owner}/{repo}/readme", () => {
  it("reads a README as Markdown through the API, decoding GitHub's base64", async () => {
    const { contents } = await t.readResource("github://gh/repos/octocat/Hello-World/readme");
    expect(contents).toEqual([
      {
        uri: "github://gh/repos/octocat/Hello-World/readme",
        mimeType: "text/markdown",
        text: "# Hello World\n\nMy first repository on GitHub!\n",
      },
    ]);
    expect(gh.requests.map((r) => r.url)).toEqual(["/repos/octocat/Hello-World/readme"]);
    expect(gh.requests[0]?.headers.authorization).toBe(`Bearer ${VALID_TOKEN}`);
  });

  it("redacts the instance's token when the API echoes it back in a README", async () => {
    const { contents } = await t.readResource("github://gh/repos/acme/mcp-server/readme");
    const text = (contents[0] as { text: string }).text;
    expect(text).not.toContain(VALID_TOKEN);
    expect(text).toContain("[REDACTED]");
  });

  it("refuses a repository outside readRepos before any request, and a name that is no repository", async () => {
    const outside = await t.readResource("github://gh/repos/evil/secrets/readme").catch((e: Error) => e);
    expect(String(outside)).toContain("PERMISSION_DENIED");
    for (const uri of ["github://gh/repos/octocat/..%2F..%2Fuser/readme", "github://gh/repos/-x/y/readme"]) {
      const error = await t.readResource(uri).catch((e: { code?: number }) => e);
      expect((error as { code?: number }).code).toBe(-32602);
    }
    expect(gh.requests).toEqual([]);
  });

  it("completes owners and, given the owner, repository names from the allowlists", async () => {
    const owners = await t.complete(
      { uriTemplate: "github://gh/repos/{owner}/{repo}/readme" },
      { name: "owner", value: "a" },
    );
    expect(owners.values).toEqual(["acme"]);
    const repos = await t.complete(
      { uriTemplate: "github://gh/repos/{owner}/{repo}/readme" },
      { name: "repo", value: "" },
      { owner: "acme" },
    );
    expect(repos.values).toEqual(["website", "mcp-server"]);
  });
});

describe("github://user/starred", () => {
  it("lists the token's user's starred repositories as JSON", async () => {
    const { contents } = await t.readResource("github://gh/user/starred");
    const starred = JSON.parse((contents[0] as { text: string }).text) as { repo: string }[];
    expect(starred.map((s) => s.repo)).toEqual(["acme/mcp-server", "octocat/Hello-World"]);
    expect(gh.requests[0]?.url).toBe("/user/starred?per_page=50");
  });

  it("needs a token: without one it says so and sends nothing", async () => {
    const error = await anonymous.readResource("github://gh/user/starred").catch((e: Error) => e);
    expect(String(error)).toContain("CREDENTIALS_MISSING");
    expect(gh.requests).toEqual([]);
  });
});

describe("prompts", () => {
  it("code_review embeds the pull request's title and description, read through the API", async () => {
    const rendered = await t.getPrompt("gh.code_review", { repo: "octocat/Hello-World", pr_number: "1348" });
    expect(rendered.description).toBe("Review pull request #1348 of octocat/Hello-World");
    expect(rendered.messages[0]).toMatchObject({
      role: "user",
      content: {
        type: "resource",
        resource: { mimeType: "text/markdown", text: expect.stringContaining("# Fix the bug") },
      },
    });
    expect(rendered.messages[1]?.content).toMatchObject({ type: "text", text: expect.stringContaining("verdict") });
    expect(gh.requests.map((r) => r.url)).toEqual(["/repos/octocat/Hello-World/issues/1348"]);
  });

  it("code_review refuses a number that is no number and a repository outside readRepos", async () => {
    const bad = await t
      .getPrompt("gh.code_review", { repo: "octocat/Hello-World", pr_number: "1; drop" })
      .catch((e) => e);
    expect((bad as { code?: number }).code).toBe(-32602);
    const outside = await t.getPrompt("gh.code_review", { repo: "evil/secrets", pr_number: "1" }).catch((e) => e);
    expect(String(outside)).toContain("PERMISSION_DENIED");
    expect(gh.requests).toEqual([]);
  });

  it("issue_template drafts an issue for the title and says to file it with a dry run first", async () => {
    const rendered = await t.getPrompt("gh.issue_template", { title: "Search ignores accents" });
    const [first] = rendered.messages;
    const text = (first?.content as { text?: string } | undefined)?.text ?? "";
    expect(text).toContain("“Search ignores accents”");
    expect(text).toContain("dry run");
    expect(gh.requests).toEqual([]);
  });

  it("completes code_review's repo from the allowlists", async () => {
    const owners = await t.complete({ prompt: "gh.code_review" }, { name: "repo", value: "oct" });
    expect(owners.values).toEqual(["octocat/"]);
    const repos = await t.complete({ prompt: "gh.code_review" }, { name: "repo", value: "acme/w" });
    expect(repos.values).toEqual(["acme/website"]);
  });

  it("lists both prompts with their arguments", async () => {
    const prompts = await t.listPrompts();
    expect(prompts.map((p) => [p.name, p.arguments?.map((a) => `${a.name}${a.required ? "" : "?"}`)])).toEqual([
      ["gh.code_review", ["repo", "pr_number"]],
      ["gh.issue_template", ["title"]],
    ]);
  });
});
