import { isSkillError } from "@skillport/core";
import type { Confinement } from "@skillport/core/confine";
import type { PathArg } from "./policies/policy.js";

/**
 * Every argument a policy says names a file must resolve inside the roots: relative ones from the command's cwd,
 * absolute ones as given, `file://` URLs by their path, each with its links resolved (a link inside a root that
 * leads out is refused). Refusals are PERMISSION_DENIED with `field: "/args/N"`.
 *
 * This checks names before the program runs; the program opens them later, so a folder swapped for a link in
 * between is not caught here. Under the sandbox nothing outside the roots is mounted, which closes that gap.
 *
 * @param jail the roots, with relative paths starting at the command's cwd
 * @param lenient when true (the manifest's `"arguments": "paths"`), an argument that cannot be a path at all
 * (control characters, longer than a path) is taken as text instead of refused.
 */
export async function confineArguments(jail: Confinement, paths: readonly PathArg[], lenient: boolean): Promise<void> {
  for (const arg of paths) {
    const requested = fileUrlPath(arg.path);
    if (requested === "" || requested === ".") continue;
    try {
      await jail.resolve(requested, `/args/${arg.index}`);
    } catch (error) {
      if (lenient && isSkillError(error) && error.code === "ARGUMENT_INVALID") continue;
      throw error;
    }
  }
}

// --- internal ---

/** `file:///srv/repo` names /srv/repo; anything else is taken as written. */
function fileUrlPath(value: string): string {
  const match = /^file:\/\/[^/]*(\/.*)$/i.exec(value);
  if (match === null) return value;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return match[1] as string;
  }
}
