// Any new export added here becomes public API. Use named exports, not wildcards.
import { defineSkill } from "@skillport/core";
import { ShellConfig } from "./config.js";
import { diagnoseShell } from "./diagnose.js";
import { runCommandTool } from "./run-command.js";

/**
 * The shell skill: run allowlisted programs without a shell, in folders inside the roots, with an explicit
 * environment, capped output and a timeout that kills the whole process group.
 *
 * @example
 * // skills.manifest.json
 * { "package": "@skillport/skill-shell", "mcp": "shell",
 *   "config": { "commands": ["git", "ls"], "roots": ["./workspace"], "env": { "PATH": "/usr/bin:/bin" } } }
 */
export const register = defineSkill({
  name: "shell",
  description: "Allowlisted programs, run without a shell inside allowed folders, with an explicit environment.",
  config: ShellConfig,
  tools: [runCommandTool],
  diagnose: (config) => diagnoseShell(ShellConfig.parse(config)),
});

export { ShellConfig } from "./config.js";
export type { PolicyMode } from "./policies/index.js";
export { BUILTIN_POLICIES } from "./policies/index.js";
export type { RunCommandData, RunCommandParams } from "./run-command.js";
export { RunCommandInput, RunCommandOutput, runCommand } from "./run-command.js";
