import type { RegisteredSkill, RegisterSkill } from "@skillport/core";
import { HostError, messageOf } from "../errors/host-error.js";

/** Imports a skill package's entry and registers it, with the checks of {@link registerOf}. */
export async function importSkill(entryUrl: string, where: string): Promise<RegisteredSkill> {
  let module: { register?: unknown; default?: unknown };
  try {
    module = (await import(entryUrl)) as typeof module;
  } catch (error) {
    throw new HostError("SKILL_INVALID", `[skillport] ${where}: importing ${entryUrl} failed: ${messageOf(error)}`);
  }
  return registerOf(module, where);
}

/**
 * The skill a module registers: its `register` export (or default export) called once, and checked to be a skill
 * made with defineSkill(). The host and every isolate read a skill module through this one function.
 */
export function registerOf(module: { register?: unknown; default?: unknown }, where: string): RegisteredSkill {
  const register = (typeof module.register === "function" ? module.register : module.default) as
    | RegisterSkill
    | undefined;
  if (typeof register !== "function") {
    throw new HostError(
      "SKILL_INVALID",
      `[skillport] ${where}: the module exports no register() function; export one made with defineSkill() from @skillport/core`,
    );
  }
  let skill: RegisteredSkill;
  try {
    skill = register();
  } catch (error) {
    throw new HostError("SKILL_INVALID", `[skillport] ${where}: register() failed: ${messageOf(error)}`);
  }
  if (typeof skill?.name !== "string" || !Array.isArray(skill.tools)) {
    throw new HostError(
      "SKILL_INVALID",
      `[skillport] ${where}: register() must return a skill made with defineSkill()`,
    );
  }
  return skill;
}
