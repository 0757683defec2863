import type {
  PromptEntry,
  PromptListing,
  ResourceEntry,
  ResourceListing,
  ResourceTemplateEntry,
  ResourceTemplateListing,
} from "../entries/resource-entry.js";
import type { SkillInstance } from "../entries/skill-instance.js";
import { skillPromptEntry, skillResourceEntry, skillTemplateEntry } from "../entries/skill-resource.js";
import type { Isolates } from "../entries/skill-tool.js";
import { compileUriTemplate, instanceMount } from "../entries/uri-template.js";
import type { HostErrorCode } from "../errors/host-error.js";
import type { LoadedManifest, SkillEntry } from "../manifest/manifest.js";
import { ownValue } from "./own-value.js";
import type { ScopeGap } from "./scope-keys.js";
import { PROMPTS_KEY, RESOURCES_KEY, scopeGapOf, surfaceScopes } from "./scope-keys.js";
import type { SkillDoc } from "./skill-docs.js";
import { SKILL_FILE } from "./skill-docs.js";

/** A problem that stops the host, with its code. */
interface Problem {
  code: HostErrorCode;
  message: string;
}

/** Finds the template entry that serves a URI: looked up by the URI's `scheme://<mcp>/` first, without a scan. */
export interface TemplateIndex {
  /** Every template, in manifest order. */
  readonly entries: readonly ResourceTemplateEntry[];
  find(uri: string): { entry: ResourceTemplateEntry; params: Record<string, string> } | undefined;
}

/** The resources, templates, prompts and skill documents of a manifest's instances. */
export interface ResourceTables {
  resources: ReadonlyMap<string, ResourceEntry>;
  templates: TemplateIndex;
  prompts: ReadonlyMap<string, PromptEntry>;
  resourceListings: readonly ResourceListing[];
  templateListings: readonly ResourceTemplateListing[];
  promptListings: readonly PromptListing[];
  skillDocs: readonly SkillDoc[];
  /** Instances whose resources or prompts fail closed over HTTP for want of a scope key. */
  scopeGaps: readonly ScopeGap[];
}

/** What each instance brings besides its surface: its SKILL.md's name and where its package is. */
export interface InstanceDoc {
  name: string;
  description: string | undefined;
  dir: string;
}

/**
 * Builds the namespaced tables of resources, templates and prompts, like the tool table: from each instance's
 * surface (the lock's, or the imported skill's), filtered and renamed by the manifest. A URI, template, prompt
 * name or SKILL.md URI served by two instances is a problem naming both.
 */
export function buildResourceTables(
  manifest: LoadedManifest,
  instances: readonly SkillInstance[],
  docs: ReadonlyMap<SkillInstance, InstanceDoc>,
  isolates: Isolates,
  problems: Problem[],
  defaultTimeoutMs: number,
): ResourceTables {
  const resources = new Map<string, ResourceEntry>();
  const byTemplate = new Map<string, ResourceTemplateEntry>();
  const prompts = new Map<string, PromptEntry>();
  const skillDocs = new Map<string, SkillDoc>();
  const resourceListings: ResourceListing[] = [];
  const templateListings: ResourceTemplateListing[] = [];
  const promptListings: PromptListing[] = [];
  const index = new Map<string, ResourceTemplateEntry[]>();
  const scopeGaps: ScopeGap[] = [];

  for (const instance of instances) {
    const entry = manifest.skills[instance.index] as SkillEntry;
    const { surface } = instance;
    const prefixed = entry.prefix !== false;
    const mount = instanceMount(instance.id, prefixed, surface);
    const resourceScopes = surfaceScopes(entry, instance.id, RESOURCES_KEY);
    const promptScopes = surfaceScopes(entry, instance.id, PROMPTS_KEY);
    const served = { resources: 0, prompts: 0 };
    const timeoutOf = (own: number | undefined) => instance.timeoutMs ?? own ?? defaultTimeoutMs;

    const resourceNames = [
      ...(surface.resources ?? []).map((r) => r.name),
      ...(surface.resourceTemplates ?? []).map((t) => t.name),
    ];
    const keepResource = selection(instance, entry.resources, resourceNames, "resources", "resource", problems);
    for (const resource of surface.resources ?? []) {
      if (!keepResource(resource.name)) continue;
      const uri = mount.served(resource.uri);
      const taken = resources.get(uri);
      if (taken !== undefined) {
        problems.push({
          code: "RESOURCE_CONFLICT",
          message: `resource "${uri}" is served by both ${describe(taken.instance, "resource", taken.resourceName)} and ${describe(instance, "resource", resource.name)}; give one of them another "mcp" id, or leave prefix on`,
        });
        continue;
      }
      const listing: ResourceListing = {
        uri,
        name: ownValue(entry.resources?.rename, resource.name) ?? resource.name,
        ...optional({ title: resource.title, description: resource.description, mimeType: resource.mimeType }),
      };
      resources.set(
        uri,
        skillResourceEntry(
          instance,
          {
            uri,
            resourceName: resource.name,
            listing,
            ...resourceScopes,
            timeoutMs: timeoutOf(resource.timeoutMs),
            mount,
          },
          isolates,
        ),
      );
      resourceListings.push(listing);
      served.resources++;
    }
    for (const template of surface.resourceTemplates ?? []) {
      if (!keepResource(template.name)) continue;
      const uriTemplate = mount.served(template.uriTemplate);
      const taken = byTemplate.get(uriTemplate);
      if (taken !== undefined) {
        problems.push({
          code: "RESOURCE_CONFLICT",
          message: `resource template "${uriTemplate}" is served by both ${describe(taken.instance, "resource", taken.resourceName)} and ${describe(instance, "resource", template.name)}; give one of them another "mcp" id, or leave prefix on`,
        });
        continue;
      }
      const listing: ResourceTemplateListing = {
        uriTemplate,
        name: ownValue(entry.resources?.rename, template.name) ?? template.name,
        ...optional({ title: template.title, description: template.description, mimeType: template.mimeType }),
      };
      const templateEntry = skillTemplateEntry(
        instance,
        {
          resourceName: template.name,
          listing,
          template: compileUriTemplate(uriTemplate),
          completes: template.completes,
          lists: template.lists,
          ...resourceScopes,
          timeoutMs: timeoutOf(template.timeoutMs),
          mount,
        },
        isolates,
      );
      byTemplate.set(uriTemplate, templateEntry);
      const key = indexKey(uriTemplate, prefixed);
      index.set(key, [...(index.get(key) ?? []), templateEntry]);
      templateListings.push(listing);
      served.resources++;
    }

    const promptNames = (surface.prompts ?? []).map((p) => p.name);
    const keepPrompt = selection(instance, entry.prompts, promptNames, "prompts", "prompt", problems);
    for (const prompt of surface.prompts ?? []) {
      if (!keepPrompt(prompt.name)) continue;
      const name = ownValue(entry.prompts?.rename, prompt.name) ?? prompt.name;
      const fullName = prefixed ? `${instance.id}${manifest.separator}${name}` : name;
      const taken = prompts.get(fullName);
      if (taken !== undefined) {
        problems.push({
          code: "PROMPT_CONFLICT",
          message: `prompt "${fullName}" is defined by both ${describe(taken.instance, "prompt", taken.promptName)} and ${describe(instance, "prompt", prompt.name)}; give one of them another "mcp" id, or rename one in prompts.rename`,
        });
        continue;
      }
      const listing: PromptListing = {
        name: fullName,
        ...optional({ title: prompt.title, description: prompt.description }),
        arguments: argumentsOf(prompt.argumentsSchema),
      };
      prompts.set(
        fullName,
        skillPromptEntry(
          instance,
          {
            fullName,
            promptName: prompt.name,
            listing,
            completes: prompt.completes,
            ...promptScopes,
            timeoutMs: timeoutOf(prompt.timeoutMs),
            mount,
          },
          isolates,
        ),
      );
      promptListings.push(listing);
      served.prompts++;
    }
    if (resourceScopes.closed !== undefined && served.resources > 0) {
      scopeGaps.push(scopeGapOf(instance, entry, RESOURCES_KEY));
    }
    if (promptScopes.closed !== undefined && served.prompts > 0)
      scopeGaps.push(scopeGapOf(instance, entry, PROMPTS_KEY));

    const doc = docs.get(instance);
    if (doc !== undefined) {
      const base = prefixed ? `skill://${instance.id}/` : "skill://";
      const uri = `${base}${doc.name}/${SKILL_FILE}`;
      const taken = skillDocs.get(uri);
      if (taken !== undefined) {
        problems.push({
          code: "SKILL_CONFLICT",
          message: `skill "${uri}" is served by both ${taken.instance.source} and ${instance.source}; give one of them another "mcp" id, or leave prefix on`,
        });
      } else {
        skillDocs.set(uri, { instance, base, name: doc.name, description: doc.description, uri, dir: doc.dir });
      }
    }
  }

  const templates: TemplateIndex = {
    entries: [...byTemplate.values()],
    find(uri) {
      const at = uri.indexOf("://");
      if (at <= 0) return undefined;
      const scheme = uri.slice(0, at);
      const segment = uri.slice(at + 3).split("/", 1)[0];
      for (const key of [`${scheme}://${segment}/`, `${scheme}://`]) {
        for (const entry of index.get(key) ?? []) {
          const params = entry.match(uri);
          if (params !== undefined) return { entry, params };
        }
      }
      return undefined;
    },
  };
  return {
    resources,
    templates,
    prompts,
    resourceListings,
    templateListings,
    promptListings,
    skillDocs: [...skillDocs.values()],
    scopeGaps,
  };
}

// --- internal ---

/** Names a resource or prompt and where it comes from: `skills[0] (@acme/skill-x as "x", prompt review)`. */
function describe(instance: SkillInstance, what: string, name: string): string {
  return `${instance.source.replace(/\)$/, "")}, ${what} ${name})`;
}

function schemeOf(uri: string): string {
  return uri.slice(0, Math.max(0, uri.indexOf("://")));
}

/** Where a template is indexed: under `scheme://<mcp>/` when prefixed, else under its scheme alone. */
function indexKey(servedTemplate: string, prefixed: boolean): string {
  const scheme = schemeOf(servedTemplate);
  if (!prefixed) return `${scheme}://`;
  const segment = servedTemplate.slice(scheme.length + 3).split("/", 1)[0];
  return `${scheme}://${segment}/`;
}

/** Which names a manifest's include/exclude keeps; a name the skill does not have is a problem. */
function selection(
  instance: SkillInstance,
  filter: { include?: string[]; exclude?: string[]; rename?: Record<string, string> } | undefined,
  names: readonly string[],
  field: "resources" | "prompts",
  what: string,
  problems: Problem[],
): (name: string) => boolean {
  const known = new Set(names);
  for (const [list, key] of [
    [filter?.include, "include"],
    [filter?.exclude, "exclude"],
    [Object.keys(filter?.rename ?? {}), "rename"],
  ] as const) {
    for (const name of list ?? []) {
      if (!known.has(name)) {
        problems.push({
          code: "MANIFEST_INVALID",
          message: `skills[${instance.index}].${field}.${key}: skill "${instance.surface.name}" has no ${what} "${name}"; ${names.length === 0 ? `it has no ${field}` : `its ${field} are ${names.join(", ")}`}`,
        });
      }
    }
  }
  return (name) =>
    (filter?.include === undefined || filter.include.includes(name)) && !(filter?.exclude ?? []).includes(name);
}

/** A prompt's arguments as prompts/list shows them, from its published schema. */
function argumentsOf(schema: { [key: string]: unknown }): PromptListing["arguments"] {
  const properties = (schema.properties ?? {}) as Record<string, { description?: unknown }>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    ...(typeof property.description === "string" ? { description: property.description } : {}),
    required: required.has(name),
  }));
}

/** The fields that are set. */
function optional<T extends Record<string, string | undefined>>(fields: T): Partial<Record<keyof T, string>> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<
    Record<keyof T, string>
  >;
}
