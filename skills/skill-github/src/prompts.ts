import type { PromptMessage, SkillContext } from "@skillport/core";
import { definePrompt } from "@skillport/core";
import { z } from "zod";
import type { GithubConfig } from "./config.js";
import { repoField } from "./config.js";
import { getIssue } from "./get-issue.js";
import { completeOwner, completeRepo } from "./resources.js";

export const CodeReviewArguments = z
  .object({
    repo: repoField(),
    pr_number: z
      .string()
      .regex(/^[1-9][0-9]{0,8}$/)
      .describe("The pull request's number")
      .meta({ examples: ["1348"] }),
  })
  .strict();

export const IssueTemplateArguments = z
  .object({
    title: z
      .string()
      .min(1)
      .max(256)
      .describe("The issue's title")
      .meta({ examples: ["Search ignores accents"] }),
  })
  .strict();

/**
 * A review request for one pull request: its title and description, read through the API as get_issue reads it
 * (the same allowlist), embedded, then what to look at.
 */
export async function codeReview(
  args: z.output<typeof CodeReviewArguments>,
  ctx: SkillContext<GithubConfig>,
): Promise<{ description: string; messages: PromptMessage[] }> {
  const number = Number(args.pr_number);
  const { data } = await getIssue({ repo: args.repo, number }, ctx);
  const kind = data.is_pull_request ? "pull request" : "issue";
  return {
    description: `Review ${kind} #${number} of ${args.repo}`,
    messages: [
      {
        role: "user",
        content: {
          type: "resource",
          resource: {
            uri: data.html_url,
            mimeType: "text/markdown",
            text: `# ${data.title}\n\n${data.body ?? "(no description)"}`,
          },
        },
      },
      {
        role: "user",
        content: {
          type: "text",
          text: [
            `Review ${kind} #${number} of ${args.repo}, “${data.title}”, described above.`,
            "Say whether the change does what its description claims; point out bugs, missing tests, unclear names and",
            "security problems, each with the file and line; end with a verdict: approve, or what must change first.",
            data.is_pull_request
              ? ""
              : "Note: this number is an issue, not a pull request; review the proposal it makes.",
          ]
            .filter((line) => line !== "")
            .join("\n"),
        },
      },
    ],
  };
}

/** A well-formed issue to draft for the title, and how to file it with create_issue (dry run first). */
export function issueTemplate(args: z.output<typeof IssueTemplateArguments>): string {
  return [
    `Draft a GitHub issue titled “${args.title}” in Markdown with these sections:`,
    "## Summary — one or two sentences.",
    "## Steps to reproduce — numbered, each one action.",
    "## Expected — what should happen.",
    "## Actual — what happens instead, with the exact error text.",
    "## Environment — versions and platform.",
    "Leave out tokens, keys and passwords. Then call create_issue with this title and body as a dry run, show the",
    "preview, and file it (dry_run: false) only once the user agrees.",
  ].join("\n");
}

export const codeReviewPrompt = definePrompt({
  name: "code_review",
  title: "Review a pull request",
  description: "Ask for a review of one pull request, its title and description included.",
  arguments: CodeReviewArguments,
  complete: {
    repo: (value: string, ctx: SkillContext<GithubConfig>) => {
      const [owner, name] = value.split("/");
      return name === undefined
        ? completeOwner(owner ?? "", ctx).map((o) => `${o}/`)
        : completeRepo(name, ctx, owner).map((n) => `${owner}/${n}`);
    },
  },
  render: codeReview,
});

export const issueTemplatePrompt = definePrompt({
  name: "issue_template",
  title: "Draft an issue",
  description: "Draft a well-formed GitHub issue for a title, then file it with create_issue (dry run first).",
  arguments: IssueTemplateArguments,
  render: issueTemplate,
});
