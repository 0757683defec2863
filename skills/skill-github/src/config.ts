import { z } from "zod";

/** `owner/name`, or `owner/*` for every repository of an owner. */
const RepoPattern = z
  .string()
  .max(141)
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/(?:\*|(?!\.\.?$)[A-Za-z0-9._-]{1,100})$/)
  .describe('A repository as "owner/name", or "owner/*" for all of an owner\'s repositories')
  .meta({ examples: ["acme/website", "acme/*"] });

export const GithubConfig = z
  .object({
    apiBaseUrl: z
      .url({ protocol: /^https?$/ })
      .regex(/^https?:\/\//)
      .max(2048)
      .default("https://api.github.com")
      .describe(
        "The REST API root: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. Plain http only for a loopback address",
      )
      .meta({ format: "uri", examples: ["https://api.github.com", "https://github.example.com/api/v3"] }),
    repos: z
      .array(RepoPattern)
      .max(500)
      .default([])
      .describe("The repositories create_issue may write to; every other one is refused. Empty: no writes at all"),
    readRepos: z
      .array(RepoPattern)
      .max(500)
      .optional()
      .describe(
        "When set, the only repositories get_issue may read (besides those in repos). When absent, any repository the token can see",
      ),
    maxBodyChars: z
      .number()
      .int()
      .min(1)
      .max(65536)
      .default(20000)
      .describe("The longest issue body create_issue accepts, in characters (GitHub's own limit is 65536)"),
    requestTimeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(120_000)
      .default(15_000)
      .describe("How long one request to the API may take"),
    userAgent: z
      .string()
      .min(1)
      .max(256)
      .default("skillport-skill-github")
      .describe("The User-Agent GitHub sees; it asks for one that names the application"),
  })
  .strict();

export type GithubConfig = z.output<typeof GithubConfig>;

/** The repository argument every tool shares. */
export const repoField = () =>
  z
    .string()
    .min(3)
    .max(141)
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/)
    .describe('The repository as "owner/name"')
    .meta({ examples: ["octocat/Hello-World"] });
