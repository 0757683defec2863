import type { SkillContext } from "@skillport/core";
import { defineTool, SkillError, withEvidence } from "@skillport/core";
import { z } from "zod";
import type { GithubConfig } from "./config.js";
import { repoField } from "./config.js";
import { checkRepo, githubRequest, repoAllowed, repoPath } from "./github-api.js";

export const GetIssueInput = z
  .object({
    repo: repoField(),
    number: z
      .number()
      .int()
      .min(1)
      .max(2_147_483_647)
      .describe("The issue (or pull request) number")
      .meta({ examples: [1347] }),
  })
  .strict();

export const GetIssueOutput = z.object({
  repo: z.string(),
  number: z.number().int(),
  title: z.string(),
  state: z.enum(["open", "closed"]),
  state_reason: z.string().nullable(),
  body: z.string().nullable(),
  labels: z.array(z.string()),
  author: z.string().nullable(),
  assignees: z.array(z.string()),
  comments: z.number().int(),
  is_pull_request: z.boolean().describe("GitHub serves pull requests as issues too"),
  html_url: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  closed_at: z.string().nullable(),
});

export type GetIssueParams = z.output<typeof GetIssueInput>;
export type GetIssueData = z.output<typeof GetIssueOutput>;

interface ApiIssue {
  number: number;
  title: string;
  state: "open" | "closed";
  state_reason?: string | null;
  body?: string | null;
  labels: (string | { name?: string })[];
  user: { login: string } | null;
  assignees?: { login: string }[] | null;
  comments: number;
  pull_request?: unknown;
  html_url: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

/** Reads one issue or pull request: title, state, body, labels, people and dates. */
export async function getIssue(params: GetIssueParams, ctx: SkillContext<GithubConfig>) {
  ctx.signal.throwIfAborted();
  checkRepo(params.repo);
  const readable = ctx.config.readRepos;
  if (readable !== undefined && !repoAllowed(params.repo, [...readable, ...ctx.config.repos])) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/repo",
      message: `this instance may not read ${params.repo}; allowed: ${[...readable, ...ctx.config.repos].join(", ") || "none"} (readRepos and repos in the manifest config)`,
    });
  }
  const issue = await githubRequest<ApiIssue>(
    {
      method: "GET",
      path: `${repoPath(params.repo)}/issues/${params.number}`,
      subject: `issue #${params.number} of ${params.repo}`,
      field: "/number",
    },
    ctx,
  );
  const data: GetIssueData = {
    repo: params.repo,
    number: issue.number,
    title: issue.title,
    state: issue.state,
    state_reason: issue.state_reason ?? null,
    body: issue.body ?? null,
    labels: issue.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter((l) => l !== ""),
    author: issue.user?.login ?? null,
    assignees: (issue.assignees ?? []).map((a) => a.login),
    comments: issue.comments,
    is_pull_request: issue.pull_request !== undefined,
    html_url: issue.html_url,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
  };
  const kind = data.is_pull_request ? "Pull request" : "Issue";
  return withEvidence(data, [issue.html_url], {
    message: `${kind} #${issue.number} of ${params.repo}: “${issue.title}” (${issue.state})`,
  });
}

export const getIssueTool = defineTool({
  name: "get_issue",
  title: "Get issue",
  description:
    "Read one GitHub issue (or pull request) by repository and number: title, state, body, labels, author, assignees, comment count, dates and URL.",
  input: GetIssueInput,
  output: GetIssueOutput,
  risk: "read_only",
  annotations: { idempotentHint: true, openWorldHint: true },
  examples: [{ repo: "octocat/Hello-World", number: 1347 }],
  buildBrief: (p) => `Read issue #${p.number} of ${p.repo}`,
  run: getIssue,
});
