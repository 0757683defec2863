import type { RegisteredSkill, SkillContext } from "@skillport/core";

/** Which of a skill's functions a call runs: a tool, a resource's read, a template's read/list/complete, a prompt's. */
export type CapabilityTarget =
  | { kind: "tool"; name: string }
  | { kind: "resource"; name: string; op: "read" }
  | { kind: "template"; name: string; op: "read" | "list" | "complete" }
  | { kind: "prompt"; name: string; op: "render" | "complete" };

/** What a `complete` target is called with. */
export interface CompleteParams {
  name: string;
  value: string;
  context: Record<string, string>;
}

/**
 * The function a target names in a registered skill, as `(params, ctx)`, or undefined when the skill has no such
 * thing. The host's process and every isolate find capabilities through this one function.
 */
export function capabilityOf(
  skill: RegisteredSkill,
  target: CapabilityTarget,
): ((params: Record<string, unknown>, ctx: SkillContext) => unknown) | undefined {
  switch (target.kind) {
    case "tool": {
      const tool = skill.tools.find((t) => t.name === target.name);
      return tool === undefined ? undefined : (params, ctx) => tool.run(params, ctx);
    }
    case "resource": {
      const resource = skill.resources?.find((r) => r.name === target.name);
      return resource === undefined ? undefined : (params, ctx) => resource.read(params, ctx);
    }
    case "template": {
      const template = skill.resourceTemplates?.find((t) => t.name === target.name);
      if (template === undefined) return undefined;
      if (target.op === "read") return (params, ctx) => template.read(params, ctx);
      if (target.op === "list") return (_params, ctx) => template.list?.(ctx) ?? [];
      return (params, ctx) => completeWith(template.complete, params as unknown as CompleteParams, ctx);
    }
    case "prompt": {
      const prompt = skill.prompts?.find((p) => p.name === target.name);
      if (prompt === undefined) return undefined;
      if (target.op === "render") return (params, ctx) => prompt.render(params, ctx);
      return (params, ctx) => completeWith(prompt.complete, params as unknown as CompleteParams, ctx);
    }
  }
}

/** How a target is named in messages: `tool search_notes`, `prompt code_review`. */
export function describeTarget(target: CapabilityTarget): string {
  return `${target.kind} ${target.name}`;
}

// --- internal ---

function completeWith(
  completers: Readonly<
    Record<string, (value: string, ctx: SkillContext, context: { arguments: Record<string, string> }) => unknown>
  >,
  { name, value, context }: CompleteParams,
  ctx: SkillContext,
): unknown {
  const completer = Object.hasOwn(completers, name) ? completers[name] : undefined;
  return completer === undefined ? [] : completer(value, ctx, { arguments: context });
}
