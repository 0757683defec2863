import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { failure } from "@skillport/test-utils";
import { createTestHost } from "@skillport/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import type { CreateIssueParams } from "../src/index.js";
import { createIssue, register } from "../src/index.js";
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

/** `null` for an instance without a token. */
const ctx = (token: string | null = VALID_TOKEN, extra: { repos?: string[]; maxBodyChars?: number } = {}) =>
  ctxFor({ apiBaseUrl: gh.url, repos: ["acme/website", "octocat/*"], ...extra }, { token: token ?? undefined });

const params = (extra: Partial<CreateIssueParams> = {}): CreateIssueParams => ({
  repo: "acme/website",
  title: "Broken link on the pricing page",
  body: "The link to /docs 404s.",
  labels: ["bug"],
  dry_run: true,
  ...extra,
});

const AWS_KEY = "AKIAIOSFODNN7EXAMPLE";
const CLASSIC = `ghp_${"a1B2".repeat(9)}`;
const FINE_GRAINED = `github_pat_11ABCDEFG0${"x".repeat(70)}`;

describe("create_issue, dry run (the default)", () => {
  it("previews the issue and sends nothing", async () => {
    const out = await createIssue(params(), ctx());
    expect(out.data).toEqual({
      dry_run: true,
      repo: "acme/website",
      title: "Broken link on the pricing page",
      body: "The link to /docs 404s.",
      labels: ["bug"],
      request: { method: "POST", url: `${gh.url}/repos/acme/website/issues` },
      secrets_found: 0,
      token_configured: true,
    });
    expect(out.message).toContain("dry_run: false");
    expect(out.warnings).toEqual([]);
    expect(gh.requests).toHaveLength(0);
  });

  it("is what a call without dry_run gets: the schema default is true", () => {
    const tool = register().tools.find((t) => t.name === "create_issue");
    const properties = tool?.inputSchema.properties as Record<string, { default?: unknown }> | undefined;
    expect(properties?.dry_run?.default).toBe(true);
  });

  it("redacts token-like strings and the instance's own token in the preview, and warns", async () => {
    const body = [
      `classic ${CLASSIC}`,
      `fine-grained ${FINE_GRAINED}`,
      `aws ${AWS_KEY}`,
      `ours ${VALID_TOKEN}`,
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
    ].join("\n");
    const out = await createIssue(params({ title: `leak ${AWS_KEY}`, body }), ctx());
    const preview = JSON.stringify(out.data);
    for (const secret of [CLASSIC, FINE_GRAINED, AWS_KEY, VALID_TOKEN, "MIIEow"]) expect(preview).not.toContain(secret);
    expect(out.data).toMatchObject({ secrets_found: 6, title: "leak [REDACTED]" });
    expect(out.data.dry_run && out.data.body).toBe(
      "classic [REDACTED]\nfine-grained [REDACTED]\naws [REDACTED]\nours [REDACTED]\n[REDACTED]",
    );
    expect(out.warnings?.[0]).toContain("6 secret-like");
    expect(out.message).not.toContain(AWS_KEY);
  });

  it("counts the instance's token as a secret even when it does not look like a GitHub token", async () => {
    // The skill never sees the token (the host holds it for ctx.fetch): ctx.findSecret finds it, and the host
    // redacts it from the answer (next test).
    const token = "corp-sso-token-1234567890";
    const out = await createIssue(params({ body: `token=${token}` }), ctx(token));
    expect(out.data).toMatchObject({ secrets_found: 1 });
    expect(out.warnings?.[0]).toContain("1 secret-like");
    await expect(createIssue(params({ body: `token=${token}`, dry_run: false }), ctx(token))).rejects.toMatchObject({
      code: "ARGUMENT_INVALID",
      field: "/body",
    });
  });

  it("shows the client a preview with the instance's token redacted, through a host", async () => {
    const token = "corp-sso-token-0987654321";
    process.env.SKILL_GITHUB_TEST_TOKEN = token;
    const dir = await mkdtemp(path.join(os.tmpdir(), "skill-github-"));
    const manifest = path.join(dir, "skills.manifest.json");
    await writeFile(
      manifest,
      JSON.stringify({
        skills: [
          {
            path: fileURLToPath(new URL("..", import.meta.url)),
            mcp: "gh",
            credentials: { token: { env: "SKILL_GITHUB_TEST_TOKEN" } },
            config: { apiBaseUrl: gh.url, repos: ["acme/website"] },
          },
        ],
      }),
    );
    const t = await createTestHost({ manifest });
    delete process.env.SKILL_GITHUB_TEST_TOKEN;
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    try {
      const envelope = await t.callTool("gh.create_issue", params({ body: `token=${token}` }));
      expect(envelope).toMatchObject({ ok: true, data: { body: "token=[REDACTED]", secrets_found: 1 } });
      expect(JSON.stringify(envelope)).not.toContain(token);
    } finally {
      await t.close();
    }
  });

  it("warns that the real call needs a token when there is none", async () => {
    const out = await createIssue(params(), ctx(null));
    expect(out.data).toMatchObject({ dry_run: true, token_configured: false });
    expect(out.warnings?.join(" ")).toContain("CREDENTIALS_MISSING");
  });

  it("checks the allowlist and body length just as the real call would", async () => {
    await expect(createIssue(params({ repo: "evil/repo" }), ctx())).rejects.toMatchObject({
      code: "PERMISSION_DENIED",
      field: "/repo",
    });
    await expect(
      createIssue(params({ body: "x".repeat(101) }), ctx(VALID_TOKEN, { maxBodyChars: 100 })),
    ).rejects.toMatchObject({ code: "ARGUMENT_INVALID", field: "/body" });
    expect(gh.requests).toHaveLength(0);
  });
});

describe("create_issue with dry_run: false", () => {
  it("creates the issue with the token and returns its number and URL", async () => {
    const out = await createIssue(params({ dry_run: false, labels: ["bug", "docs"] }), ctx());
    expect(out.data).toEqual({
      dry_run: false,
      repo: "acme/website",
      number: 100,
      title: "Broken link on the pricing page",
      state: "open",
      labels: ["bug", "docs"],
      html_url: "https://github.com/acme/website/issues/100",
    });
    expect(out.evidencePaths).toEqual(["https://github.com/acme/website/issues/100"]);
    expect(gh.requests).toHaveLength(1);
    expect(gh.requests[0]).toMatchObject({
      method: "POST",
      url: "/repos/acme/website/issues",
      body: { title: "Broken link on the pricing page", body: "The link to /docs 404s.", labels: ["bug", "docs"] },
      headers: { authorization: `Bearer ${VALID_TOKEN}`, "content-type": "application/json" },
    });
  });

  it("without a token: CREDENTIALS_MISSING naming the credential, nothing sent", async () => {
    const error = await failure(createIssue(params({ dry_run: false }), ctx(null)));
    expect(error.code).toBe("CREDENTIALS_MISSING");
    expect(error.message).toContain('"token"');
    expect(error.message).toContain("credentials.token");
    expect(gh.requests).toHaveLength(0);
  });

  it("refuses to publish a secret, pointing at where it is, nothing sent", async () => {
    const inBody = await failure(createIssue(params({ dry_run: false, body: `key ${AWS_KEY}` }), ctx()));
    expect(inBody).toMatchObject({ code: "ARGUMENT_INVALID", field: "/body" });
    expect(inBody.message).not.toContain(AWS_KEY);
    const inTitle = await failure(createIssue(params({ dry_run: false, title: `tok ${VALID_TOKEN}` }), ctx()));
    expect(inTitle).toMatchObject({ code: "ARGUMENT_INVALID", field: "/title" });
    expect(gh.requests).toHaveLength(0);
  });

  it("allows owner/* and ignores case, as GitHub does", async () => {
    const out = await createIssue(params({ dry_run: false, repo: "OctoCat/Spoon-Knife" }), ctx());
    expect(out.data.dry_run).toBe(false);
    await expect(createIssue(params({ dry_run: false, repo: "ACME/Website" }), ctx())).resolves.toBeDefined();
    await expect(createIssue(params({ dry_run: false, repo: "acme/other" }), ctx())).rejects.toMatchObject({
      code: "PERMISSION_DENIED",
    });
  });

  it("refuses every repository when the allowlist is empty", async () => {
    const error = await failure(createIssue(params(), ctx(VALID_TOKEN, { repos: [] })));
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", field: "/repo" });
    expect(error.message).toContain("none");
  });
});
