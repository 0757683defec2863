import { constants } from "node:fs";
import { access, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { SkillError } from "@skillport/core";

/** An allowlisted command found on disk. */
export interface Program {
  /** The absolute path that runs. */
  path: string;
  /** Its real path (links resolved), so a sandbox can show the folder it really lives in. */
  real: string;
}

/**
 * Finds the program a command names: an absolute path as written, a bare name on `PATH`. Relative PATH entries
 * (`.`, `bin`) are skipped, so a file written into a root can never stand in for an allowlisted name. Answers
 * NOT_FOUND naming the PATH searched.
 */
export async function findProgram(command: string, searchPath: string | undefined): Promise<Program> {
  const candidates = command.includes("/")
    ? [command]
    : (searchPath ?? "")
        .split(":")
        .filter((dir) => path.isAbsolute(dir))
        .map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    if (!path.isAbsolute(candidate)) continue;
    try {
      await access(candidate, constants.X_OK);
      if (!(await stat(candidate)).isFile()) continue;
      return { path: candidate, real: await realpath(candidate) };
    } catch {
      // not here
    }
  }
  throw new SkillError({
    code: "NOT_FOUND",
    field: "/command",
    message: `command ${JSON.stringify(command)} was not found${command.includes("/") ? "" : ` on the PATH this instance gives commands (${searchPath ?? "no PATH set"})`}; fix "commands" or "env" in the manifest config`,
  });
}
