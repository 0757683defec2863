import type { RegisteredSkill } from "@skillport/core";
import type { CompleteParams } from "./capability.js";
import type {
  PromptEntry,
  PromptListing,
  PromptRunnable,
  ReadRunnable,
  ResourceEntry,
  ResourceListing,
  ResourceTemplateEntry,
  ResourceTemplateListing,
} from "./resource-entry.js";
import type { SkillInstance } from "./skill-instance.js";
import type { Invoke, Isolates } from "./skill-tool.js";
import { invokerOf } from "./skill-tool.js";
import type { UriMount, UriTemplate } from "./uri-template.js";

/** What every skill resource, template or prompt entry is made of, besides its instance. */
interface SkillEntryInit {
  scopes: readonly string[];
  closed: string | undefined;
  timeoutMs: number;
  mount: UriMount;
}

/** A skill's resource with a fixed URI as a table entry; its code runs where the instance's isolation says. */
export function skillResourceEntry(
  instance: SkillInstance,
  init: SkillEntryInit & { uri: string; resourceName: string; listing: ResourceListing },
  isolates: Isolates,
): ResourceEntry {
  const resolve = loaded(instance, isolates, (skill, invoke): ReadRunnable => {
    if (!(skill.resources ?? []).some((r) => r.name === init.resourceName))
      gone(instance, "resource", init.resourceName);
    const target = { kind: "resource", name: init.resourceName, op: "read" } as const;
    return {
      paramsSchema: undefined,
      read: (params, call) => invoke(target, params, call),
      list: async () => [],
      complete: async () => [],
    };
  });
  return { kind: "resource", instance, ...init, resolve };
}

/** A skill's resource template as a table entry. */
export function skillTemplateEntry(
  instance: SkillInstance,
  init: SkillEntryInit & {
    resourceName: string;
    listing: ResourceTemplateListing;
    template: UriTemplate;
    completes: readonly string[];
    lists: boolean;
  },
  isolates: Isolates,
): ResourceTemplateEntry {
  const { template, ...rest } = init;
  const resolve = loaded(instance, isolates, (skill, invoke): ReadRunnable => {
    const registered = (skill.resourceTemplates ?? []).find((t) => t.name === init.resourceName);
    if (registered === undefined) gone(instance, "resource template", init.resourceName);
    const name = init.resourceName;
    return {
      paramsSchema: registered.paramsSchema,
      read: (params, call) => invoke({ kind: "template", name, op: "read" }, params, call),
      list: (call) => invoke({ kind: "template", name, op: "list" }, {}, call),
      complete: (variable, value, context, call) =>
        invoke({ kind: "template", name, op: "complete" }, completeParams(variable, value, context), call),
    };
  });
  return {
    kind: "template",
    instance,
    ...rest,
    match: (uri) => template.match(uri),
    expand: (params) => template.expand(params),
    resolve,
  };
}

/** A skill's prompt as a table entry. */
export function skillPromptEntry(
  instance: SkillInstance,
  init: SkillEntryInit & {
    fullName: string;
    promptName: string;
    listing: PromptListing;
    completes: readonly string[];
  },
  isolates: Isolates,
): PromptEntry {
  const resolve = loaded(instance, isolates, (skill, invoke): PromptRunnable => {
    const registered = (skill.prompts ?? []).find((p) => p.name === init.promptName);
    if (registered === undefined) gone(instance, "prompt", init.promptName);
    const name = init.promptName;
    return {
      argumentsSchema: registered.argumentsSchema,
      render: (args, call) => invoke({ kind: "prompt", name, op: "render" }, args, call),
      complete: (argument, value, context, call) =>
        invoke({ kind: "prompt", name, op: "complete" }, completeParams(argument, value, context), call),
    };
  });
  return { kind: "prompt", instance, ...init, resolve };
}

// --- internal ---

/** The runnable made from the instance's loaded skill, once (the skill imported on first use). */
function loaded<T>(
  instance: SkillInstance,
  isolates: Isolates,
  make: (skill: RegisteredSkill, invoke: Invoke) => T,
): () => Promise<T> {
  let runnable: Promise<T> | undefined;
  return () => {
    runnable ??= instance.load().then((skill) => make(skill, invokerOf(instance, skill, isolates)));
    return runnable;
  };
}

function gone(instance: SkillInstance, what: string, name: string): never {
  throw new Error(`${instance.id} no longer has the ${what} "${name}"; run skillport lock`);
}

function completeParams(name: string, value: string, context: Record<string, string>): Record<string, unknown> {
  const params: CompleteParams = { name, value, context };
  return params as unknown as Record<string, unknown>;
}
