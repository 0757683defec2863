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
 * problem found, each naming where it is (a manifest path such as `skills[1].mcp`) and what to do.
 */
export class HostError extends Error {
  override readonly name = "HostError";
  readonly code: HostErrorCode;
  readonly problems: readonly string[];

  constructor(code: HostErrorCode, summary: string, problems: readonly string[] = [], options?: ErrorOptions) {
    super(problems.length === 0 ? summary : `${summary}\n${problems.map((p) => `  - ${p}`).join("\n")}`, options);
    this.code = code;
    this.problems = problems;
  }
}

/** The message of anything thrown: an Error's own, else the value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
