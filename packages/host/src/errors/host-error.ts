/** Codes of errors the host reports to the person running it (never sent to a client as a tool result). */
export type HostErrorCode =
  | "MANIFEST_NOT_FOUND"
  | "MANIFEST_INVALID"
  | "SKILL_NOT_FOUND"
  | "SKILL_INVALID"
  | "VERSION_MISMATCH"
  | "CONFIG_INVALID"
  | "TOOL_CONFLICT"
  | "RESOURCE_CONFLICT"
  | "PROMPT_CONFLICT"
  | "SKILL_CONFLICT"
  | "HTTP_CONFIG_INVALID"
  | "HTTP_LISTEN_FAILED"
  | "LOCK_STALE"
  | "LOCK_CONFLICT";

/**
 * A local error the host reports to the person running it (not to be confused with core's `SkillError`, which a
 * capability throws and a client reads in the envelope): the manifest, a skill package or a name conflict stops the
 * host. `problems` lists every
 * problem found, each naming where it is (a manifest path such as `skills[1].mcp`) and what to do; the lines after
 * the first of a problem (a syntax error's excerpt) are indented under it.
 */
export class HostError extends Error {
  override readonly name = "HostError";
  readonly code: HostErrorCode;
  readonly problems: readonly string[];

  constructor(code: HostErrorCode, summary: string, problems: readonly string[] = [], options?: ErrorOptions) {
    super(
      problems.length === 0
        ? summary
        : `${summary}\n${problems.map((p) => `  - ${p.replaceAll("\n", "\n    ")}`).join("\n")}`,
      options,
    );
    this.code = code;
    this.problems = problems;
  }
}

/**
 * The one way the host says it cannot start from a manifest: one header naming the file and how many problems it
 * has, then every problem, each naming its place and the fix.
 *
 * @example
 * cannotStart("MANIFEST_INVALID", "/app/skills.manifest.json", ["seperator: is not a known field; did you mean separator?"])
 */
export function cannotStart(code: HostErrorCode, file: string, problems: readonly string[]): HostError {
  const noun = problems.length === 1 ? "problem" : "problems";
  return new HostError(code, `[skillport] cannot start: ${problems.length} ${noun} in ${file}:`, problems);
}

/** The message of anything thrown: an Error's own, else the value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
