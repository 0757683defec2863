/** Codes of errors the host reports to the person running it (never sent to a client as a tool result). */
export type SkillportErrorCode =
  | "MANIFEST_NOT_FOUND"
  | "MANIFEST_INVALID"
  | "SKILL_NOT_FOUND"
  | "SKILL_INVALID"
  | "VERSION_MISMATCH"
  | "CONFIG_INVALID"
  | "TOOL_CONFLICT"
  | "UNKNOWN_TOOL"
  | "HTTP_CONFIG_INVALID"
  | "HTTP_LISTEN_FAILED"
  | "LOCK_STALE";

/**
 * A local error: the manifest, a skill package or a name conflict stops the host. `problems` lists every
 * problem found, each naming where it is (a manifest path such as `skills[1].mcp`) and what to do.
 */
export class SkillportError extends Error {
  override readonly name = "SkillportError";
  readonly code: SkillportErrorCode;
  readonly problems: readonly string[];

  constructor(code: SkillportErrorCode, summary: string, problems: readonly string[] = [], options?: ErrorOptions) {
    super(problems.length === 0 ? summary : `${summary}\n${problems.map((p) => `  - ${p}`).join("\n")}`, options);
    this.code = code;
    this.problems = problems;
  }
}

/** The message of anything thrown: an Error's own, else the value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
