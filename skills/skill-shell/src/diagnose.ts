import path from "node:path";
import type { SkillDiagnostic } from "@skillport/core";
import { sandboxAvailable } from "@skillport/core/sandbox";
import type { ShellConfig } from "./config.js";
import { builtinPolicy, policyMode } from "./policies/index.js";

const WITHOUT =
  "a command can read every file the host's user can (the host's own /proc/<pid>/environ and its credentials included), use the network, and leave detached processes running after the call";

/**
 * What `skillport check` reports about a shell instance: running without the sandbox (and why), commands that
 * will be refused for want of a policy, commands that run with any arguments, and PATH entries that are skipped.
 */
export async function diagnoseShell(config: ShellConfig): Promise<SkillDiagnostic[]> {
  const found: SkillDiagnostic[] = [];
  const sandbox = (severity: SkillDiagnostic["severity"], message: string) =>
    found.push({ severity, rule: "shell-sandbox", message });
  if (config.sandbox === "off") {
    sandbox("warning", `commands run without the sandbox (sandbox: "off"): ${WITHOUT}; set sandbox to "auto"`);
  } else {
    const status = await sandboxAvailable();
    if (!status.available && config.sandbox === "required") {
      sandbox("error", `sandbox is "required" but ${status.reason}: every call will answer UNAVAILABLE`);
    } else if (!status.available) {
      sandbox(
        "warning",
        `commands run without the sandbox because ${status.reason}: ${WITHOUT}. Install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap), or set sandbox to "required" to refuse commands instead`,
      );
    }
  }
  for (const command of config.commands) {
    const mode = policyMode(config, command);
    if (mode === undefined) {
      found.push({
        severity: "warning",
        rule: "shell-policy",
        message: `${command} has no built-in argument policy, so every call to it is refused; choose one in "policies": { "${command}": { "arguments": "paths" } } (or "any")`,
      });
    } else if (mode === "any") {
      found.push({
        severity: "warning",
        rule: "shell-policy",
        message: `${command} runs with any arguments (policies.${command}.arguments is "any"): it can do whatever its options allow${builtinPolicy(command) === undefined ? "" : ", its built-in policy switched off"}`,
      });
    }
  }
  for (const command of Object.keys(config.policies)) {
    if (!config.commands.includes(command)) {
      found.push({
        severity: "warning",
        rule: "shell-policy",
        message: `policies names ${command}, which is not in commands; it has no effect`,
      });
    }
  }
  const relative = (config.env.PATH ?? "").split(":").filter((dir) => dir !== "" && !path.isAbsolute(dir));
  if (relative.length > 0) {
    found.push({
      severity: "warning",
      rule: "shell-path",
      message: `env.PATH entries ${relative.map((d) => JSON.stringify(d)).join(", ")} are relative and skipped: a program is only looked up in absolute folders`,
    });
  }
  return found;
}
