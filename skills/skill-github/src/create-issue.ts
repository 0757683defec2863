import type { SkillContext } from "@skillport/core";
import { defineTool, result, SkillError } from "@skillport/core";
import { z } from "zod";
import type { GithubConfig } from "./config.js";
import { repoField } from "./config.js";
import { checkRepo, githubRequest, repoAllowed, repoPath } from "./github-api.js";
import { redactSecrets } from "./redact.js";

export const CreateIssueInput = z
  .object({
    repo: repoField(),
    title: z
      .string()
      .min(1)
      .max(256)
      .regex(/\S/, "title must contain a visible character")
      .describe("The issue's title")
      .meta({ examples: ["Search returns stale results after an edit"] }),
    body: z
      .string()
      .max(65536)
      .default("")
      .describe("The issue's text, in Markdown; the instance's maxBodyChars caps it. Never put secrets in it")
      .meta({ examples: ["Steps to reproduce:\n\n1. Edit a note\n2. Search for it\n"] }),
    labels: z
      .array(
        z
          .string()
          .min(1)
          .max(50)
          .describe("A label that exists in the repository")
          .meta({ examples: ["bug"] }),
      )
      .max(20)
      .default([])
      .describe("Labels to put on the issue")
      .meta({ examples: [["bug", "search"]] }),
    dry_run: z
      .boolean()
      .default(true)
      .describe(
        "true (the default): create nothing, return a preview of the issue with secrets redacted. false: create it. Preview first, then repeat the call with dry_run: false",
      )
      .meta({ examples: [true, false] }),
  })
  .strict();

const Preview = z.object({
  dry_run: z.literal(true),
  repo: z.string(),
  title: z.string().describe("As it would be posted, secrets shown as [REDACTED]"),
  body: z.string().describe("As it would be posted, secrets shown as [REDACTED]"),
  labels: z.array(z.string()),
  request: z.object({ method: z.literal("POST"), url: z.string() }),
  secrets_found: z.number().int().describe("Secret-like strings in title and body; the real call refuses any"),
  token_configured: z.boolean().describe("Whether the instance has the token the real call needs"),
});

const Created = z.object({
  dry_run: z.literal(false),
  repo: z.string(),
  number: z.number().int(),
  title: z.string(),
  state: z.string(),
  labels: z.array(z.string()),
  html_url: z.string(),
});

export const CreateIssueOutput = z.discriminatedUnion("dry_run", [Preview, Created]);

export type CreateIssueParams = z.output<typeof CreateIssueInput>;
export type CreateIssueData = z.output<typeof CreateIssueOutput>;

/**
 * Creates an issue in an allowlisted repository, after a dry run: with `dry_run` true (the default) nothing is sent
 * and the answer is a preview with secrets redacted; with `dry_run` false the issue is created. Both check the same
 * things first (allowlist, body length); the real call also refuses secret-like strings and needs the token.
 */
export async function createIssue(params: CreateIssueParams, ctx: SkillContext<GithubConfig>) {
  ctx.signal.throwIfAborted();
  checkRepo(params.repo);
  if (!repoAllowed(params.repo, ctx.config.repos)) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/repo",
      message: `this instance may not create issues in ${params.repo}; allowed: ${ctx.config.repos.join(", ") || "none"} ("repos" in the manifest config)`,
    });
  }
  const body = params.body ?? "";
  const labels = params.labels ?? [];
  if (body.length > ctx.config.maxBodyChars) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: "/body",
      message: `body has ${body.length} characters, over this instance's maxBodyChars (${ctx.config.maxBodyChars}); shorten it or link to the details`,
    });
  }
  // Token-like strings by their shape; the instance's own token (held by the host, never seen here) and every
  // other secret the host knows, through ctx.findSecret. The host redacts those from the answer itself.
  const title = await withKnownSecrets(redactSecrets(params.title), ctx);
  const text = await withKnownSecrets(redactSecrets(body), ctx);
  const secrets = title.count + text.count;
  const hasToken = ctx.hasCredential("token");
  const path = `${repoPath(params.repo)}/issues`;

  if (params.dry_run !== false) {
    const warnings = [
      ...(secrets > 0
        ? [
            `the issue holds ${secrets} secret-like string(s), shown as [REDACTED]; remove them, as dry_run: false refuses to publish them`,
          ]
        : []),
      ...(hasToken
        ? []
        : ['this instance has no "token" credential; dry_run: false will fail with CREDENTIALS_MISSING']),
    ];
    const preview: CreateIssueData = {
      dry_run: true,
      repo: params.repo,
      title: title.text,
      body: text.text,
      labels,
      request: { method: "POST", url: `${ctx.config.apiBaseUrl.replace(/\/+$/, "")}${path}` },
      secrets_found: secrets,
      token_configured: hasToken,
    };
    return result(preview, {
      message: `Dry run: would create issue “${title.text}” in ${params.repo}. Nothing was sent; call again with dry_run: false to create it`,
      warnings,
    });
  }

  if (secrets > 0) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: title.count > 0 ? "/title" : "/body",
      message: `the issue holds ${secrets} secret-like string(s) (a token or key); remove them before publishing. A dry run shows where they are`,
    });
  }
  if (!hasToken) {
    throw new SkillError({
      code: "CREDENTIALS_MISSING",
      message:
        '[skill-github] creating an issue needs the credential "token"; give this instance one in the manifest (credentials.token, e.g. { "env": "GITHUB_TOKEN" })',
    });
  }
  const issue = await githubRequest<{
    number: number;
    title: string;
    state: string;
    html_url: string;
    labels: (string | { name?: string })[];
  }>(
    {
      method: "POST",
      path,
      body: { title: params.title, body, labels },
      subject: `a new issue in ${params.repo}`,
      field: "/repo",
    },
    ctx,
  );
  const created: CreateIssueData = {
    dry_run: false,
    repo: params.repo,
    number: issue.number,
    title: issue.title,
    state: issue.state,
    labels: issue.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter((l) => l !== ""),
    html_url: issue.html_url,
  };
  return result(created, {
    message: `Created issue #${issue.number} in ${params.repo}: ${issue.html_url}`,
    evidencePaths: [issue.html_url],
  });
}

/** Counts a secret the host knows that is still in the text after the shape-based redaction. */
async function withKnownSecrets(
  redacted: { text: string; count: number },
  ctx: SkillContext<GithubConfig>,
): Promise<{ text: string; count: number }> {
  const known = await ctx.findSecret(redacted.text);
  return known === undefined ? redacted : { text: redacted.text, count: redacted.count + 1 };
}

export const createIssueTool = defineTool({
  name: "create_issue",
  title: "Create issue",
  description:
    "Create a GitHub issue in a repository this instance allows. Two steps: first call with dry_run: true (the default) to get a preview (nothing is sent; secrets are redacted), then repeat with dry_run: false to create it. Refuses bodies over the instance's limit and anything that looks like a token or key.",
  input: CreateIssueInput,
  output: CreateIssueOutput,
  risk: "write",
  annotations: { idempotentHint: false, openWorldHint: true },
  examples: [
    {
      repo: "acme/website",
      title: "Search returns stale results after an edit",
      body: "Steps to reproduce:\n\n1. Edit a note\n2. Search for it\n",
      labels: ["bug"],
      dry_run: true,
    },
    { repo: "acme/website", title: "Document the release steps", body: "", labels: [], dry_run: false },
  ],
  buildBrief: (p) =>
    `${p.dry_run === false ? "Create" : "Preview (dry run)"} issue “${redactSecrets(p.title).text}” in ${p.repo}${p.labels?.length ? ` with labels ${p.labels.join(", ")}` : ""}`,
  run: createIssue,
});
