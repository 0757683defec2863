import { randomUUID } from "node:crypto";
import type { ErrorCode } from "@skillport/core";
import { isSkillError } from "@skillport/core";
import { refusalOf } from "../entries/check-scopes.js";
import type {
  PromptEntry,
  PromptListing,
  PromptRunnable,
  ReadRunnable,
  ResourceEntry,
  ResourceListing,
  ResourceTemplateEntry,
  ResourceTemplateListing,
} from "../entries/resource-entry.js";
import type { InputRequest, RunCall } from "../entries/tool-entry.js";
import { messageOf } from "../errors/host-error.js";
import type { Logger } from "../logging/logger.js";
import type { Redactor } from "../redaction/redactor.js";
import type { Registry } from "../registry/registry.js";
import type { Audit } from "./audit.js";
import type { BoundedRun, RunSubject } from "./bounded-run.js";
import type { CallOptions } from "./call.js";
import type { Confirmations, InputRound } from "./confirmations.js";
import { INPUT_STATE_PREFIX, unlessUnavailable } from "./confirmations.js";
import type { RenderedPrompt, ResourceBlock } from "./content-blocks.js";
import { ContentError, renderedPrompt, resourceBlocks } from "./content-blocks.js";
import { QueueFullError } from "./limiter.js";
import { WHY } from "./stages/resume.js";
import type { Validators } from "./validators.js";

/** How a read, render or completion ended. */
export type RequestOutcome<T> =
  | { status: "ok"; value: T }
  | {
      status: "failed";
      code: ErrorCode;
      message: string;
      field?: string;
      /**
       * `not-found`: no such resource or prompt (the protocol's invalid params, with the URI); `invalid`: bad
       * arguments, or round state refused (invalid params); `error`: everything else (internal error).
       */
      kind: "not-found" | "invalid" | "error";
    }
  /** The capability asked the client something: send these questions with `state`, and call again with the answers. */
  | { status: "input"; requests: Record<string, InputRequest>; state: string };

/** A reference completion/complete names: a prompt, or a resource template by its URI template. */
type CompletionRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/** What completion/complete answers. */
type Completion = {
  values: string[];
  total?: number;
  hasMore: boolean;
};

/**
 * The non-tool requests over the table: reads, renders, completions and the lists. Each runs the way a tool call
 * does: looked up, authorized (the caller's scopes, the instance's credentials), loaded once, its arguments checked
 * against the published schema, run within the instance's bounds (timeout, cancel, concurrency; in the instance's
 * isolate), its answer checked, redacted and audited. A list leaves out what its caller may not use.
 */
export interface Requests {
  /** resources/list: the fixed resources and those each listing template names, in manifest order. */
  listResources(options?: CallOptions): Promise<ResourceListing[]>;
  /** resources/templates/list: the templates the caller may use; the registry's own list for local calls. */
  listTemplates(options?: CallOptions): readonly ResourceTemplateListing[];
  /** prompts/list: the prompts the caller may use; the registry's own list for local calls. */
  listPrompts(options?: CallOptions): readonly PromptListing[];
  read(uri: string, options?: CallOptions): Promise<RequestOutcome<{ contents: ResourceBlock[] }>>;
  render(name: string, args: unknown, options?: CallOptions): Promise<RequestOutcome<RenderedPrompt>>;
  complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context: Readonly<Record<string, string>>,
    options?: CallOptions,
  ): Promise<RequestOutcome<Completion>>;
}

/** What the requests need besides the registry. */
export interface RequestsDeps {
  logger: Logger;
  redactor: Redactor;
  audit: Audit;
  confirmations: Confirmations;
  validators: Validators;
  run: BoundedRun;
}

/** The most values completion/complete answers (MCP's limit). */
const MAX_COMPLETIONS = 100;
/** The most resources one template's `list` adds to resources/list. */
const MAX_LISTED = 1000;

export function createRequests(registry: Registry, deps: RequestsDeps): Requests {
  const { logger, redactor, audit, confirmations, validators, run } = deps;
  // Whether any template or prompt asks anything of a caller: when none does, every caller gets the registry's lists.
  const guarded = (e: { scopes: readonly string[]; closed: string | undefined }) =>
    e.scopes.length > 0 || e.closed !== undefined;
  const restricted = {
    templates: registry.templates.entries.some(guarded),
    prompts: [...registry.prompts.values()].some(guarded),
  };

  /** Authorizes, loads and runs one capability of an entry; the rest of a request is its own. */
  async function through<R, T>(
    entry: ResourceEntry | ResourceTemplateEntry | PromptEntry,
    what: string,
    options: CallOptions,
    subject: { tool: string; args: unknown } | undefined,
    prepare: (runnable: R) => RequestOutcome<never> | undefined,
    execute: (runnable: R, call: RunCall) => Promise<unknown>,
    shape: (value: unknown) => T,
  ): Promise<RequestOutcome<T>> {
    const traceId = randomUUID();
    const startedAt = performance.now();
    const outcome = await answerOf();
    const redacted = redactor.active ? redactor.value(outcome) : outcome;
    audit({
      traceId,
      tool: what,
      instance: entry.instance.id,
      skill: `${entry.instance.packageName}@${entry.instance.version}`,
      risk: "read_only",
      brief: undefined,
      outcome: redacted.status === "ok" ? "OK" : redacted.status === "input" ? "INPUT_REQUIRED" : redacted.code,
      durationMs: Math.round((performance.now() - startedAt) * 1000) / 1000,
      caller: options.caller?.id,
      arguments: subject?.args,
    });
    return redacted;

    async function answerOf(): Promise<RequestOutcome<T>> {
      const refused = refusalOf(entry, options.caller, what);
      if (refused !== undefined) return failed("PERMISSION_DENIED", refused);
      if (entry.instance.missingCredentials.length > 0) {
        return failed("CREDENTIALS_MISSING", `${what} cannot run: ${entry.instance.missingCredentials.join("; ")}`);
      }
      let runnable: R;
      try {
        runnable = (await entry.resolve()) as R;
      } catch (error) {
        logger.error({ instance: entry.instance.id, err: error }, "a skill could not be loaded");
        return failed("UNAVAILABLE", `${entry.instance.id} could not be loaded (${messageOf(error)})`);
      }
      const invalid = prepare(runnable);
      if (invalid !== undefined) return invalid;
      let prior: InputRound | undefined;
      const state = options.input?.state;
      if (subject !== undefined && state?.startsWith(INPUT_STATE_PREFIX) === true) {
        const resumed = await confirmations.resume(state, { ...subject, caller: options.caller?.id });
        if (resumed.verdict === "unavailable") {
          return failed("UNAVAILABLE", `${what} did not run: requestState ${WHY.unavailable}; retry shortly`);
        }
        if (resumed.round === undefined) {
          return {
            status: "failed",
            code: "ARGUMENT_INVALID",
            message: `requestState ${WHY[resumed.verdict]}`,
            kind: "invalid",
          };
        }
        prior = resumed.round;
      }
      const bounds: RunSubject = { instance: entry.instance, name: what, timeoutMs: entry.timeoutMs };
      const result = await run(bounds, options, traceId, prior, (call) => execute(runnable, call));
      if (result.status === "input") {
        if (subject === undefined) {
          return failed("INTERNAL", `${what} asked the client a question, which completions cannot`);
        }
        const state = await unlessUnavailable(
          confirmations.carry({ ...subject, caller: options.caller?.id }, result.round.next(false)),
        );
        if (state === undefined) {
          return failed(
            "UNAVAILABLE",
            `${what} asked the client a question, whose state cannot be kept while the shared state store cannot be reached; retry shortly`,
          );
        }
        return { status: "input", requests: { ...result.round.questions }, state };
      }
      if (result.status === "failed") {
        const { error } = result;
        if (error instanceof QueueFullError)
          return failed("RATE_LIMITED", `${entry.instance.id} is busy (${error.message})`);
        if (result.timedOut) return failed("TIMEOUT", `${what} did not finish within ${entry.timeoutMs} ms`);
        if (isSkillError(error)) {
          return {
            status: "failed",
            code: error.code,
            message: error.message,
            ...(error.field === undefined ? {} : { field: error.field }),
            kind: error.code === "NOT_FOUND" ? "not-found" : error.code === "ARGUMENT_INVALID" ? "invalid" : "error",
          };
        }
        if (result.stop.aborted) return failed("CANCELLED", `${what} was cancelled before it finished`);
        logger.error({ err: error, traceId, tool: what }, "a skill's read, render or completion threw");
        return failed(
          "INTERNAL",
          `${what} failed with an internal error; the server log has the details under traceId ${traceId}`,
        );
      }
      try {
        return { status: "ok", value: shape(result.value) };
      } catch (error) {
        if (!(error instanceof ContentError)) throw error;
        logger.error(
          { traceId, tool: what, problem: error.message },
          "a skill answered with content that is not MCP's",
        );
        return failed(
          "INTERNAL",
          `${what} answered with something that is not MCP content; the server log has the details under traceId ${traceId}`,
        );
      }
    }
  }

  return {
    async listResources(options = {}) {
      const listings: ResourceListing[] =
        options.caller === undefined
          ? [...registry.resourceListings]
          : [...registry.resources.values()].filter((e) => usable(e, options)).map((e) => e.listing);
      for (const entry of registry.templates.entries) {
        // A template the caller may not use does not run its list: nothing to refuse, audit or warn about.
        if (!entry.lists || !usable(entry, options)) continue;
        const outcome = await through<ReadRunnable, ResourceListing[]>(
          entry,
          `resources/list ${entry.listing.uriTemplate}`,
          options,
          undefined,
          () => undefined,
          (runnable, call) => runnable.list(call),
          (value) => listedResources(entry, value),
        );
        if (outcome.status === "ok") listings.push(...outcome.value);
        else if (outcome.status === "failed") {
          logger.warn(
            { template: entry.listing.uriTemplate, code: outcome.code },
            `a template's list failed: ${outcome.message}`,
          );
        }
      }
      return listings;
    },

    listTemplates(options = {}) {
      if (options.caller === undefined || !restricted.templates) return registry.templateListings;
      return registry.templates.entries.filter((e) => usable(e, options)).map((e) => e.listing);
    },

    listPrompts(options = {}) {
      if (options.caller === undefined || !restricted.prompts) return registry.promptListings;
      return [...registry.prompts.values()].filter((e) => usable(e, options)).map((e) => e.listing);
    },

    async read(uri, options = {}) {
      const fixed = registry.resources.get(uri);
      const found = fixed === undefined ? registry.templates.find(uri) : { entry: fixed, params: {} };
      if (found === undefined) {
        return {
          status: "failed",
          code: "NOT_FOUND",
          message: `no resource "${uri}"; resources/list and resources/templates/list name what this server has`,
          kind: "not-found",
        };
      }
      const { entry, params } = found;
      return through<ReadRunnable, { contents: ResourceBlock[] }>(
        entry,
        `resource ${uri}`,
        options,
        { tool: `resource:${uri}`, args: params },
        (runnable) => (runnable.paramsSchema === undefined ? undefined : checked(runnable.paramsSchema, params, uri)),
        (runnable, call) => runnable.read(params, call),
        (value) => ({ contents: resourceBlocks(value, uri, entry.listing.mimeType, entry.mount) }),
      );
    },

    async render(name, args, options = {}) {
      const entry = registry.prompts.get(name);
      if (entry === undefined) {
        return {
          status: "failed",
          code: "NOT_FOUND",
          message: `unknown prompt "${name}"; prompts/list names the prompts this server has`,
          kind: "not-found",
        };
      }
      const given = args === undefined ? {} : args;
      return through<PromptRunnable, RenderedPrompt>(
        entry,
        `prompt ${name}`,
        options,
        { tool: `prompt:${name}`, args: given },
        (runnable) => checked(runnable.argumentsSchema, given, name),
        (runnable, call) => runnable.render(given as Record<string, unknown>, call),
        (value) => renderedPrompt(value, entry.mount),
      );
    },

    async complete(ref, argument, context, options = {}) {
      const entry =
        ref.type === "ref/prompt"
          ? registry.prompts.get(ref.name)
          : registry.templates.entries.find((t) => t.listing.uriTemplate === ref.uri);
      const empty: RequestOutcome<Completion> = { status: "ok", value: { values: [], total: 0, hasMore: false } };
      if (entry === undefined) {
        const what = ref.type === "ref/prompt" ? `prompt "${ref.name}"` : `resource template "${ref.uri}"`;
        return { status: "failed", code: "NOT_FOUND", message: `unknown ${what}`, kind: "invalid" };
      }
      // An argument without completions answers none, once the caller may use the entry at all.
      if (!entry.completes.includes(argument.name) && usable(entry, options)) return empty;
      return through<ReadRunnable | PromptRunnable, Completion>(
        entry,
        `completion ${entry.kind === "prompt" ? entry.fullName : entry.listing.uriTemplate} ${argument.name}`,
        options,
        undefined,
        () => undefined,
        (runnable, call) => runnable.complete(argument.name, argument.value, { ...context }, call),
        completionOf,
      );
    },
  };

  /** Whether the caller may use the entry: what its lists show. */
  function usable(entry: ResourceEntry | ResourceTemplateEntry | PromptEntry, options: CallOptions): boolean {
    return refusalOf(entry, options.caller, "") === undefined;
  }

  /** Arguments that fail the published schema, as an invalid-params outcome naming the field. */
  function checked(schema: Record<string, unknown>, value: unknown, name: string): RequestOutcome<never> | undefined {
    const problem = validators.schema(schema, `${name} arguments`)(value);
    if (problem === undefined) return undefined;
    const what = problem.where === "/" ? "the arguments" : problem.where.slice(1);
    return {
      status: "failed",
      code: "ARGUMENT_INVALID",
      message: `invalid arguments for ${name}: ${what} ${problem.message}`,
      field: problem.where,
      kind: "invalid",
    };
  }
}

// --- internal ---

function failed(code: ErrorCode, message: string): RequestOutcome<never> {
  return { status: "failed", code, message, kind: "error" };
}

/** What a completer returned, as completion/complete answers it: strings only, at most 100. */
function completionOf(value: unknown): Completion {
  if (!Array.isArray(value)) throw new ContentError("a completer returns a list of strings");
  const values = value.filter((v): v is string => typeof v === "string");
  return { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: values.length > MAX_COMPLETIONS };
}

/** What a template's `list` returned, as resources/list shows it. */
function listedResources(entry: ResourceTemplateEntry, value: unknown): ResourceListing[] {
  if (!Array.isArray(value)) throw new ContentError("a template's list returns a list of resources");
  return value.slice(0, MAX_LISTED).map((item, index) => {
    const { params, name, title, description, mimeType } = (item ?? {}) as Record<string, unknown>;
    if (typeof params !== "object" || params === null || typeof name !== "string") {
      throw new ContentError(`list[${index}] needs params and a name`);
    }
    const strings = Object.entries(params as Record<string, unknown>);
    if (!strings.every(([, v]) => typeof v === "string")) throw new ContentError(`list[${index}].params must be text`);
    const listing: ResourceListing = { uri: entry.expand(Object.fromEntries(strings) as Record<string, string>), name };
    if (typeof title === "string") listing.title = title;
    if (typeof description === "string") listing.description = description;
    const mime = typeof mimeType === "string" ? mimeType : entry.listing.mimeType;
    if (mime !== undefined) listing.mimeType = mime;
    return listing;
  });
}
