import type { SkillContext } from "@skillport/core";
import { defineResource, defineResourceTemplate, SkillError } from "@skillport/core";
import { z } from "zod";
import type { GithubConfig } from "./config.js";
import { checkRepo, githubRequest, repoAllowed, repoPath } from "./github-api.js";

/** The most starred repositories the starred resource lists. */
const STARRED_PAGE = 50;

export const ReadmeParams = z
  .object({
    owner: z
      .string()
      .max(39)
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/)
      .describe("The repository's owner"),
    repo: z
      .string()
      .max(100)
      .regex(/^(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/)
      .describe("The repository's name"),
  })
  .strict();

export type ReadmeParams = z.output<typeof ReadmeParams>;

interface ApiReadme {
  content?: string;
  encoding?: string;
  path?: string;
}

interface ApiRepo {
  full_name: string;
  description: string | null;
  html_url: string;
  stargazers_count: number;
  language: string | null;
}

/** A repository's README as Markdown, for the repositories this instance may read. */
export async function readReadme(params: ReadmeParams, ctx: SkillContext<GithubConfig>): Promise<string> {
  const repo = `${params.owner}/${params.repo}`;
  checkRepo(repo);
  checkReadable(repo, ctx.config);
  const readme = await githubRequest<ApiReadme>(
    { method: "GET", path: `${repoPath(repo)}/readme`, subject: `the README of ${repo}` },
    ctx,
  );
  if (readme.encoding !== "base64" || typeof readme.content !== "string") {
    throw new SkillError({
      code: "UPSTREAM_ERROR",
      message: `GitHub answered the README of ${repo} in an encoding this skill does not read (${readme.encoding})`,
    });
  }
  return Buffer.from(readme.content, "base64").toString("utf8");
}

/** Repository names this instance is configured for, to complete `repo` (given its `owner`). */
export function completeRepo(value: string, ctx: SkillContext<GithubConfig>, owner: string | undefined): string[] {
  const known = [...ctx.config.repos, ...(ctx.config.readRepos ?? [])]
    .map((entry) => entry.split("/") as [string, string])
    .filter(([o, name]) => name !== "*" && (owner === undefined || o.toLowerCase() === owner.toLowerCase()));
  return [...new Set(known.map(([, name]) => name))].filter((name) =>
    name.toLowerCase().startsWith(value.toLowerCase()),
  );
}

/** Owners this instance is configured for. */
export function completeOwner(value: string, ctx: SkillContext<GithubConfig>): string[] {
  const owners = [...ctx.config.repos, ...(ctx.config.readRepos ?? [])].map((entry) => entry.split("/")[0] as string);
  return [...new Set(owners)].filter((o) => o.toLowerCase().startsWith(value.toLowerCase()));
}

/** The repositories the token's user starred, most recent first, as JSON. */
export async function readStarred(ctx: SkillContext<GithubConfig>): Promise<string> {
  if (!ctx.hasCredential("token")) {
    throw new SkillError({
      code: "CREDENTIALS_MISSING",
      message: "the starred repositories are the token's user's: give this instance a token (credentials.token)",
    });
  }
  const repos = await githubRequest<ApiRepo[]>(
    { method: "GET", path: `/user/starred?per_page=${STARRED_PAGE}`, subject: "the starred repositories" },
    ctx,
  );
  return JSON.stringify(
    repos.map((r) => ({
      repo: r.full_name,
      description: r.description,
      language: r.language,
      stars: r.stargazers_count,
      html_url: r.html_url,
    })),
    null,
    2,
  );
}

export const readmeTemplate = defineResourceTemplate({
  name: "readme",
  uriTemplate: "github://repos/{owner}/{repo}/readme",
  title: "README",
  description: "A repository's README, as Markdown (only repositories this instance may read).",
  mimeType: "text/markdown",
  params: ReadmeParams,
  complete: {
    owner: completeOwner,
    repo: (value: string, ctx: SkillContext<GithubConfig>, { arguments: given }) =>
      completeRepo(value, ctx, given.owner),
  },
  read: readReadme,
});

export const starredResource = defineResource({
  name: "starred",
  uri: "github://user/starred",
  title: "Starred repositories",
  description: "The repositories the token's user starred, most recent first (needs a token).",
  mimeType: "application/json",
  read: (_params, ctx: SkillContext<GithubConfig>) => readStarred(ctx),
});

// --- internal ---

function checkReadable(repo: string, config: GithubConfig): void {
  const readable = config.readRepos;
  if (readable !== undefined && !repoAllowed(repo, [...readable, ...config.repos])) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/repo",
      message: `this instance may not read ${repo}; allowed: ${[...readable, ...config.repos].join(", ") || "none"} (readRepos and repos in the manifest config)`,
    });
  }
}
