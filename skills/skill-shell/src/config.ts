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
        "The allowlist: only these commands run, matched exactly. Each can do whatever its own options allow, so list only commands whose every option is safe here (an interpreter such as sh, node or python allows anything)",
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
  })
  .strict();

export type ShellConfig = z.output<typeof ShellConfig>;
