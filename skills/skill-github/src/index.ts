// Any new export added here becomes public API. Use named exports, not wildcards.
import { defineSkill } from "@skillport/core";
import { GithubConfig } from "./config.js";
import { createIssueTool } from "./create-issue.js";
import { getIssueTool } from "./get-issue.js";
import { codeReviewPrompt, issueTemplatePrompt } from "./prompts.js";
import { readmeTemplate, starredResource } from "./resources.js";
import { searchReposTool } from "./search-repos.js";

/**
 * The GitHub skill: search repositories, read issues, and create issues (dry run first) in allowlisted
 * repositories, over the REST API of github.com or GitHub Enterprise Server.
 *
 * @example
 * // skills.manifest.json
 * { "package": "@skillport/skill-github", "mcp": "gh", "config": { "repos": ["acme/website"] },
 *   "credentials": { "token": { "env": "GITHUB_TOKEN" } } }
 */
export const register = defineSkill({
  name: "github",
  description: "GitHub repositories and issues; issue creation limited to allowlisted repositories, dry run first.",
  config: GithubConfig,
  credentials: {
    token: {
      required: false,
      description:
        "A GitHub token. Reads work without one (public data, lower rate limit); create_issue needs one that may write issues in the allowed repositories (fine-grained: Issues read and write; classic: public_repo or repo)",
      // The host holds the token and adds it to requests for the API's origin only: the skill's code never sees
      // it, and under worker or process isolation it never enters the isolate.
      fetch: { origins: (config: GithubConfig) => [config.apiBaseUrl] },
    },
  },
  tools: [searchReposTool, getIssueTool, createIssueTool],
  resources: [readmeTemplate, starredResource],
  prompts: [codeReviewPrompt, issueTemplatePrompt],
});

export { GithubConfig } from "./config.js";
export type { CreateIssueData, CreateIssueParams } from "./create-issue.js";
export { CreateIssueInput, CreateIssueOutput, createIssue } from "./create-issue.js";
export type { GetIssueData, GetIssueParams } from "./get-issue.js";
export { GetIssueInput, GetIssueOutput, getIssue } from "./get-issue.js";
export { CodeReviewArguments, codeReview, IssueTemplateArguments, issueTemplate } from "./prompts.js";
export { REDACTED, redactSecrets } from "./redact.js";
export { ReadmeParams, readReadme, readStarred } from "./resources.js";
export type { SearchReposData, SearchReposParams } from "./search-repos.js";
export { SearchReposInput, SearchReposOutput, searchRepos } from "./search-repos.js";
