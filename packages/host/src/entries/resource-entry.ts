import type { JsonSchema, PromptArgumentListing } from "@skillport/core";
import type { SkillInstance } from "./skill-instance.js";
import type { RunCall } from "./tool-entry.js";
import type { UriMount } from "./uri-template.js";

/** A resource as resources/list shows it. */
export interface ResourceListing {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** A resource template as resources/templates/list shows it. */
export interface ResourceTemplateListing {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** A prompt as prompts/list shows it. */
export interface PromptListing {
  name: string;
  title?: string;
  description?: string;
  arguments: PromptArgumentListing[];
}

/** What every entry of the table shares, whatever it serves: where it comes from, who may use it, its time limit. */
interface EntryBase {
  /** The manifest entry it comes from: its id, limits, credentials. */
  readonly instance: SkillInstance;
  /**
   * Scopes an HTTP caller must hold: the instance's `"*"` scopes and those of its `"resources:*"` (or `"prompts:*"`)
   * key; empty when none.
   */
  readonly scopes: readonly string[];
  /**
   * Why no HTTP caller may use it, whatever it holds (the instance scopes its tools one by one and has no key for
   * this kind); undefined when its scopes decide.
   */
  readonly closed: string | undefined;
  /** A read's, render's or completion's time limit. */
  readonly timeoutMs: number;
  readonly mount: UriMount;
}

/** A resource with a fixed URI: its listing is known at start-up; its code comes with `resolve()`. */
export interface ResourceEntry extends EntryBase {
  readonly kind: "resource";
  /** The URI clients read. */
  readonly uri: string;
  /** The resource's own name in its source. */
  readonly resourceName: string;
  readonly listing: ResourceListing;
  resolve(): Promise<ReadRunnable>;
}

/** A family of resources by URI template. */
export interface ResourceTemplateEntry extends EntryBase {
  readonly kind: "template";
  readonly resourceName: string;
  readonly listing: ResourceTemplateListing;
  /** The variables a served URI gives this template, or undefined when it does not match. */
  match(uri: string): Record<string, string> | undefined;
  /** The served URI of one resource of the template. */
  expand(params: Readonly<Record<string, string>>): string;
  /** The variables that have completions. */
  readonly completes: readonly string[];
  /** Whether the template names its resources for resources/list. */
  readonly lists: boolean;
  resolve(): Promise<ReadRunnable>;
}

/** A prompt. */
export interface PromptEntry extends EntryBase {
  readonly kind: "prompt";
  /** The name clients use, `<mcp><separator><prompt>` unless mounted without a prefix. */
  readonly fullName: string;
  readonly promptName: string;
  readonly listing: PromptListing;
  readonly completes: readonly string[];
  resolve(): Promise<PromptRunnable>;
}

/** What reads a resource (of a template, or a fixed one) and completes its variables. */
export interface ReadRunnable {
  /** The schema a template's variables are checked against; undefined for a fixed resource. */
  readonly paramsSchema: JsonSchema | undefined;
  read(params: Record<string, unknown>, call: RunCall): Promise<unknown>;
  /** The template's resources, as its `list` names them. */
  list(call: RunCall): Promise<unknown>;
  complete(name: string, value: string, context: Record<string, string>, call: RunCall): Promise<unknown>;
}

/** What renders a prompt and completes its arguments. */
export interface PromptRunnable {
  readonly argumentsSchema: JsonSchema;
  render(args: Record<string, unknown>, call: RunCall): Promise<unknown>;
  complete(name: string, value: string, context: Record<string, string>, call: RunCall): Promise<unknown>;
}
