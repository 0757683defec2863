import type { SkillContext } from "@skillport/core";
import { defineTool, SkillError, withEvidence } from "@skillport/core";
import { z } from "zod";
import type { GithubConfig } from "./config.js";
import { githubRequest } from "./github-api.js";

export const SearchReposInput = z
  .object({
    query: z
      .string()
      .min(1)
      .max(256)
      .describe("Search words, with GitHub's qualifiers if useful (e.g. stars:>100, topic:mcp, user:octocat)")
      .meta({ examples: ["model context protocol server", "topic:mcp stars:>100"] }),
    language: z
      .string()
      .min(1)
      .max(40)
      .regex(/^[A-Za-z0-9+#._ -]+$/)
      .optional()
      .describe("Only repositories mainly in this language")
      .meta({ examples: ["TypeScript", "C++"] }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(10)
      .describe("The most repositories to return")
      .meta({ examples: [10] }),
    sort: z
      .enum(["best-match", "stars", "forks", "updated"])
      .default("best-match")
      .describe("The order: GitHub's best match, or most stars, forks, or recently updated first")
      .meta({ examples: ["stars"] }),
  })
  .strict();

const Repo = z.object({
  full_name: z.string(),
  description: z.string().nullable(),
  html_url: z.string(),
  stars: z.number().int(),
  forks: z.number().int(),
  language: z.string().nullable(),
  topics: z.array(z.string()),
  archived: z.boolean(),
  updated_at: z.string(),
});

export const SearchReposOutput = z.object({
  total_count: z.number().int().describe("How many repositories match in all"),
  incomplete_results: z.boolean().describe("True when GitHub's search timed out and the results may be partial"),
  items: z.array(Repo),
});

export type SearchReposParams = z.output<typeof SearchReposInput>;
export type SearchReposData = z.output<typeof SearchReposOutput>;

interface ApiRepo {
  full_name: string;
  description: string | null;
  html_url: string;
  stargazers_count: number;
  forks_count: number;
  language: string | null;
  topics?: string[];
  archived?: boolean;
  updated_at: string;
}

/** Searches public repositories (and private ones the token can see). */
export async function searchRepos(params: SearchReposParams, ctx: SkillContext<GithubConfig>) {
  ctx.signal.throwIfAborted();
  if (params.language !== undefined && !/^[A-Za-z0-9+#._ -]{1,40}$/.test(params.language)) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: "/language",
      message: `language ${JSON.stringify(params.language)} is not a language name; use e.g. "TypeScript" or "C++"`,
    });
  }
  const q = params.language === undefined ? params.query : `${params.query} language:"${params.language}"`;
  const query = new URLSearchParams({ q, per_page: String(params.limit) });
  if (params.sort !== "best-match") query.set("sort", params.sort);
  const answer = await githubRequest<{ total_count: number; incomplete_results: boolean; items: ApiRepo[] }>(
    { method: "GET", path: `/search/repositories?${query}`, subject: `the search "${q}"`, field: "/query" },
    ctx,
  );
  const items = answer.items.slice(0, params.limit).map((r) => ({
    full_name: r.full_name,
    description: r.description,
    html_url: r.html_url,
    stars: r.stargazers_count,
    forks: r.forks_count,
    language: r.language,
    topics: r.topics ?? [],
    archived: r.archived ?? false,
    updated_at: r.updated_at,
  }));
  const data: SearchReposData = {
    total_count: answer.total_count,
    incomplete_results: answer.incomplete_results,
    items,
  };
  return withEvidence(
    data,
    items.map((r) => r.html_url),
    {
      message: `${answer.total_count} repositories match “${q}”${items.length < answer.total_count ? `, showing ${items.length}` : ""}`,
      warnings: answer.incomplete_results ? ["GitHub's search timed out; the results may be incomplete"] : [],
    },
  );
}

export const searchReposTool = defineTool({
  name: "search_repos",
  title: "Search repositories",
  description:
    "Search GitHub repositories by words and qualifiers, optionally in one language. Returns full names, descriptions, stars, forks, language, topics and URLs.",
  input: SearchReposInput,
  output: SearchReposOutput,
  risk: "read_only",
  annotations: { idempotentHint: true, openWorldHint: true },
  examples: [
    { query: "model context protocol server", language: "TypeScript", limit: 5, sort: "stars" },
    { query: "topic:mcp", limit: 10, sort: "best-match" },
  ],
  buildBrief: (p) => `Search GitHub for “${p.query}”${p.language ? ` in ${p.language}` : ""} (top ${p.limit})`,
  run: searchRepos,
});
