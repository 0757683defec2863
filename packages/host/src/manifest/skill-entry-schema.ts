// The manifest's section for one skill instance (`skills[]`).
import { z } from "zod";
import { PerCallerCredentialSchema } from "./credential-settings-schema.js";
import { SKILL_DEFAULTS } from "./defaults.js";
import {
  alwaysLoad,
  matching,
  SafeName,
  ScopeList,
  SecretSourceSchema,
  ToolOverride,
  unique,
} from "./schema-blocks.js";

export const SkillEntrySchema = z
  .strictObject({
    package: matching("^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$")
      .min(1)
      .max(214)
      .meta({
        description: "An installed npm package, resolved as Node resolves an import from the manifest's folder.",
        examples: ["@skillport/skill-notes"],
      })
      .optional(),
    path: z
      .string()
      .min(1)
      .meta({
        description: "A local skill package folder, relative to the manifest. Use instead of package.",
        examples: ["./skills/skill-notes"],
      })
      .optional(),
    version: z
      .string()
      .min(1)
      .meta({
        description: "A semver range the installed package must satisfy, or the host refuses to start.",
        examples: ["^0.1.0"],
      })
      .optional(),
    mcp: matching("^[A-Za-z][A-Za-z0-9-]{0,31}$")
      .meta({
        description: "This instance's id, the prefix of its tool names. Defaults to the skill's own name.",
        examples: ["notes", "work"],
      })
      .optional(),
    enabled: z
      .boolean()
      .default(SKILL_DEFAULTS.enabled)
      .describe("false keeps the instance in the manifest without loading it."),
    config: z
      .record(z.string(), z.unknown())
      .describe("The instance's config, validated against the skill's config schema.")
      .optional(),
    tools: z
      .strictObject({
        include: unique(z.string().min(1))
          .describe("Serve only these tools (names as the skill defines them).")
          .optional(),
        exclude: unique(z.string().min(1)).describe("Serve every tool but these.").optional(),
        rename: z
          .record(SafeName, matching("^[A-Za-z0-9_-]{1,64}$"))
          .meta({
            description: 'New names for tools, as { "old_name": "new_name" } (names as the skill defines them).',
            examples: [{ search_notes: "find_notes" }],
          })
          .optional(),
        override: z
          .record(SafeName, ToolOverride)
          .meta({
            description:
              "Per tool (as the skill names it): a title, description or annotation hints to show instead of the skill's own.",
            examples: [{ search_notes: { description: "Search the team handbook." } }],
          })
          .optional(),
      })
      .describe("Which of the skill's tools this instance serves.")
      .optional(),
    resources: z
      .strictObject({
        include: unique(z.string().min(1))
          .describe("Serve only these resources and resource templates (names as the skill defines them).")
          .optional(),
        exclude: unique(z.string().min(1)).describe("Serve every resource and template but these.").optional(),
        rename: z
          .record(SafeName, matching("^[A-Za-z0-9._-]{1,64}$"))
          .meta({
            description:
              'New names for resources and templates in resources/list, as { "old_name": "new_name" }; their URIs do not change.',
            examples: [{ note: "handbook_page" }],
          })
          .optional(),
      })
      .describe(
        "Which of the skill's resources and resource templates this instance serves. Their URIs are served under the instance's mcp id (scheme://<mcp>/…) unless prefix is false.",
      )
      .optional(),
    prompts: z
      .strictObject({
        include: unique(z.string().min(1))
          .describe("Serve only these prompts (names as the skill defines them).")
          .optional(),
        exclude: unique(z.string().min(1)).describe("Serve every prompt but these.").optional(),
        rename: z
          .record(SafeName, matching("^[A-Za-z0-9_-]{1,64}$"))
          .meta({
            description: 'New names for prompts, as { "old_name": "new_name" } (names as the skill defines them).',
            examples: [{ code_review: "review_pr" }],
          })
          .optional(),
      })
      .describe('Which of the skill\'s prompts this instance serves, named "<mcp><separator><prompt>" like tools.')
      .optional(),
    credentials: z
      .record(SafeName, z.xor([SecretSourceSchema, PerCallerCredentialSchema]))
      .meta({
        description:
          "Where each credential the skill declares comes from: the host's environment or a file, or `{ \"perCaller\": true }` for each caller's own (over HTTP). `token` reaches ctx.token; every one reaches ctx.credentials.<name>.",
        examples: [
          { token: { env: "GITHUB_TOKEN" } },
          { token: { perCaller: true, fallback: { env: "GITHUB_TOKEN" } } },
        ],
      })
      .optional(),
    timeoutMs: z
      .int()
      .min(1)
      .max(3_600_000)
      .meta({
        description: "Overrides every tool's timeout for this instance (default: the tool's own, else 30000).",
        examples: [10000],
      })
      .optional(),
    concurrency: z
      .int()
      .min(1)
      .max(1000)
      .default(SKILL_DEFAULTS.concurrency)
      .describe("Calls this instance runs at once; more wait in a queue."),
    queue: z
      .int()
      .min(0)
      .max(100_000)
      .default(SKILL_DEFAULTS.queue)
      .describe("Calls that may wait for a free slot; beyond it a call answers RATE_LIMITED."),
    isolation: z
      .enum(["in-process", "worker", "process"])
      .default(SKILL_DEFAULTS.isolation)
      .describe(
        "\"worker\" runs the instance's capabilities in worker threads: a stuck or runaway capability is terminated without harming the host (a thread shares the host's process and environment). \"process\" runs them in child processes with an empty environment, sandboxed with bubblewrap where it works (no network, only the skill's code and its config's paths): the instance cannot read the host's or another instance's credentials.",
      ),
    memoryMb: z
      .int()
      .min(16)
      .max(65_536)
      .meta({
        description: 'With isolation "worker" or "process": the heap limit of each worker or child process, in MiB.',
        examples: [128],
      })
      .optional(),
    alwaysLoad: alwaysLoad("this instance's tools", "them").default(SKILL_DEFAULTS.alwaysLoad),
    allow: unique(z.string().min(1))
      .meta({
        description:
          "Dangerous tools this instance may run (after confirmation). Every other dangerous tool is refused.",
        examples: [["run_command"]],
      })
      .optional(),
    scopes: z
      .record(z.string().min(1).max(128).and(SafeName), ScopeList)
      .meta({
        description:
          'OAuth-style scopes a caller over HTTP must hold to use this instance: tool name (as the skill defines it) → scopes, all required. "*" applies to everything the instance serves: tools, resources and prompts. "resources:*" adds scopes its resources and resource templates require (lists, reads, subscriptions, completions), "prompts:*" those its prompts require (lists, renders, completions); tool names never hold ":". An instance that gives any tool its own key and serves resources (or prompts) without "resources:*" (or "prompts:*") fails closed: they are refused to every caller over HTTP (`skillport check` warns); give the key [] when the "*" scopes are enough. What a caller lacks is left out of its lists, and a call answers PERMISSION_DENIED. Calls over stdio and `skillport call` are local and not checked. The SKILL.md files (skill://) are instructions, like the tool descriptions, and are not scoped.',
        examples: [
          { create_study_task: ["notes:write"], "*": ["notes:read"], "resources:*": [] },
          { read_note: ["notes:read"], search_notes: ["notes:read"], "resources:*": ["notes:read"] },
        ],
      })
      .optional(),
    prefix: z
      .boolean()
      .default(SKILL_DEFAULTS.prefix)
      .describe(
        'false mounts the tools and prompts without the "<mcp><separator>" prefix (search_notes instead of notes.search_notes), resources without their scheme://<mcp>/ prefix, and the SKILL.md at skill://<name>/SKILL.md instead of skill://<mcp>/<name>/SKILL.md.',
      ),
  })
  .meta({
    id: "skill",
    description: "One skill instance: a package (or local folder) with its own mcp id and config.",
  });
