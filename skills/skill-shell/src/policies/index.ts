import path from "node:path";
import { SkillError } from "@skillport/core";
import type { ShellConfig } from "../config.js";
import type { OptionSpec } from "./options.js";
import { deny, optionTable, parseArgs } from "./options.js";
import type { Checked, PolicyExtension, ProgramPolicy } from "./policy.js";
import { allPaths, pathsOf } from "./policy.js";
import { AWK } from "./programs/awk.js";
import { COREUTILS } from "./programs/coreutils.js";
import { EXEC_WRAPPERS } from "./programs/exec-wrappers.js";
import { FIND } from "./programs/find.js";
import { checkGit, GIT } from "./programs/git.js";
import { SEARCH } from "./programs/search.js";
import { SED } from "./programs/sed.js";
import { TAR } from "./programs/tar.js";

/** The programs with a built-in argument policy, by name (a command's base name: `/usr/bin/git` is git). */
export const BUILTIN_POLICIES: Readonly<Record<string, ProgramPolicy>> = {
  ...COREUTILS,
  ...SEARCH,
  ...SED,
  ...AWK,
  ...FIND,
  ...TAR,
  ...EXEC_WRAPPERS,
  ...GIT,
};

/** How an allowlisted command's arguments are checked. */
export type PolicyMode = "builtin" | "paths" | "any";

/** What `checkArguments` decided: the arguments to run, the paths to confine, and for git its repository options. */
export interface ArgumentDecision extends Checked {
  /** The policy that applied. */
  mode: PolicyMode;
  /** For git: the options that choose the repository, to check its config before running. */
  git?: { repository: string[] };
}

/** The built-in policy of a command, by its base name; undefined when there is none. */
export function builtinPolicy(command: string): ProgramPolicy | undefined {
  const name = path.posix.basename(command);
  return Object.hasOwn(BUILTIN_POLICIES, name) ? BUILTIN_POLICIES[name] : undefined;
}

/** The mode that applies to a command: the manifest's choice, else its built-in policy, else none (refused). */
export function policyMode(config: ShellConfig, command: string): PolicyMode | undefined {
  const chosen = config.policies?.[command]?.arguments; // a config the host validated may lack defaults inside records
  if (chosen !== undefined && chosen !== "builtin") return chosen;
  return builtinPolicy(command) === undefined ? undefined : "builtin";
}

/**
 * Checks a call's arguments against the command's policy. Throws PERMISSION_DENIED with `field: "/args/N"` naming
 * the first refused argument and why; a command with neither a built-in policy nor a manifest choice is refused
 * (`field: "/command"`), since nothing says which of its options are safe.
 */
export function checkArguments(config: ShellConfig, command: string, args: readonly string[]): ArgumentDecision {
  const mode = policyMode(config, command);
  if (mode === undefined) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/command",
      message: `${command} has no built-in argument policy, so this server does not know which of its options are safe; the manifest must choose one in "policies": { "${command}": { "arguments": "paths" } } (arguments that look like paths must stay in the roots) or "any" (no check)`,
    });
  }
  const extension = compileExtension(config.policies?.[command]?.deny ?? []);
  if (mode === "any") return { mode, args: [...args], paths: [], tokens: [] };
  if (mode === "paths") {
    const tokens = parseArgs(args, 0, optionTable(extension.options), { program: command });
    const decision: ArgumentDecision = { mode, args: [...args], paths: pathsOf(tokens, allPaths), tokens };
    applyExtension(decision, extension, command);
    return decision;
  }
  const name = path.posix.basename(command);
  const decision: ArgumentDecision =
    name === "git"
      ? { mode, ...checkGit(args, extension) }
      : { mode, ...(builtinPolicy(command) as ProgramPolicy).check(args, extension) };
  applyExtension(decision, extension, command);
  return decision;
}

// --- internal ---

function compileExtension(entries: readonly string[]): PolicyExtension {
  const options: OptionSpec[] = [];
  const words = new Set<string>();
  for (const entry of entries) {
    if (entry.startsWith("-")) {
      options.push({ names: [entry], value: "optional", deny: "this server's policy refuses it" });
    } else words.add(entry);
  }
  return { options, words };
}

/** Manifest words are refused as operands wherever they appear (options were merged into the tables). */
function applyExtension(decision: Checked, extension: PolicyExtension, command: string): void {
  for (const token of decision.tokens) {
    if (token.type === "operand" && extension.words.has(token.value)) {
      throw deny(token.index, `${command} ${token.value} is refused by this server's policy for ${command}`);
    }
  }
}
