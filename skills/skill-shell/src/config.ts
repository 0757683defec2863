import { z } from "zod";

/** The hard ceiling on a timeout, whatever an instance configures; the input schema uses it. */
export const MAX_TIMEOUT_LIMIT_MS = 60 * 60 * 1000;

export const ShellConfig = z
  .object({
    commands: z
      .array(
        z
          .string()
          .min(1)
          .max(4096)
          .describe("A command as calls must name it: a bare name looked up on env.PATH, or an absolute path")
          .meta({ examples: ["git", "/usr/bin/make"] }),
      )
      .min(1)
      .max(200)
      .describe(
        "The allowlist: only these commands run, matched exactly. Programs with a built-in argument policy (git, find, tar, grep, rg, sed, awk, ls, cat, …) run under it; any other needs a choice in policies",
      ),
    roots: z
      .array(
        z
          .string()
          .min(1)
          .max(4096)
          .meta({
            format: "path",
            description: "A folder commands may run in; relative to the manifest's folder, absolute, or under ~",
            examples: ["./workspace"],
          }),
      )
      .min(1)
      .max(20)
      .describe("The folders a call's cwd may be in; the first one is the default cwd"),
    env: z
      .record(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .max(128),
        z.string().max(32768),
      )
      .default({ PATH: "/usr/local/bin:/usr/bin:/bin" })
      .describe(
        "The child's whole environment, as explicit names and values; nothing comes from the host's own environment. PATH is where bare command names are looked up",
      )
      .meta({ examples: [{ PATH: "/usr/bin:/bin", LANG: "C.UTF-8" }] }),
    defaultTimeoutMs: z
      .number()
      .int()
      .min(100)
      .max(MAX_TIMEOUT_LIMIT_MS)
      .default(30_000)
      .describe("How long a command may run when a call gives no timeoutMs"),
    maxTimeoutMs: z
      .number()
      .int()
      .min(100)
      .max(MAX_TIMEOUT_LIMIT_MS)
      .default(10 * 60 * 1000)
      .describe("The longest timeoutMs a call may ask for"),
    maxOutputBytes: z
      .number()
      .int()
      .min(1)
      .max(16 * 1024 * 1024)
      .default(64 * 1024)
      .describe("How much of stdout, and of stderr, is kept; the rest is read and dropped, and flagged as truncated"),
    killGraceMs: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(2000)
      .describe("After a timeout or cancel, how long the process group has between SIGTERM and SIGKILL"),
    policies: z
      .record(
        z.string().min(1).max(4096).describe("A command as the allowlist names it"),
        z
          .object({
            arguments: z
              .enum(["builtin", "paths", "any"])
              .optional()
              .describe(
                'How arguments are checked: "builtin" (the program\'s built-in policy, the default where one exists), "paths" (no option is refused, but every argument that names a file must stay in the roots) or "any" (nothing is checked: for a program whose every option is safe here)',
              ),
            deny: z
              .array(z.string().min(1).max(256))
              .max(200)
              .default([])
              .describe(
                "More to refuse: options (--force, -f; matched with abbreviations, bundles and =value as the program reads them) and words (a git subcommand such as push, or any operand)",
              )
              .meta({ examples: [["push", "--force", "-f"]] }),
          })
          .strict(),
      )
      .default({})
      .describe(
        "Per command: how its arguments are checked, and what more to refuse. A command with no built-in policy is refused until it has one here",
      )
      .meta({ examples: [{ make: { arguments: "paths" }, git: { deny: ["push"] } }] }),
    sandbox: z
      .enum(["auto", "required", "off"])
      .default("auto")
      .describe(
        'Run each command under bubblewrap (only the roots and system folders visible, no network, its own process table): "auto" when bubblewrap works on this machine, "required" to refuse commands where it does not, "off" never',
      ),
    network: z
      .boolean()
      .default(false)
      .describe(
        "Whether sandboxed commands may use the network (git fetch, push). Without the sandbox nothing is blocked",
      ),
  })
  .strict();

export type ShellConfig = z.output<typeof ShellConfig>;
