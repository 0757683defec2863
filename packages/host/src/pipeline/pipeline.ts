import { randomUUID } from "node:crypto";
import type { SkillContext, SkillLogger } from "@skillport/core";
import { sandboxAvailable } from "@skillport/core/sandbox";
import { createAjv } from "../ajv.js";
import { SkillportError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Registry, SkillInstance, ToolEntry } from "../registry/registry.js";
import { isPlaceholder } from "../registry/surface.js";
import type { Audit } from "./audit.js";
import type { Caller } from "./check-scopes.js";
import { missingScopes } from "./check-scopes.js";
import type { Confirmations } from "./confirmations.js";
import type { HeldCredential } from "./credential-fetch.js";
import { fetchWithCredentials, hasCredential, lazyHeldCredentials, skillCredentials } from "./credential-fetch.js";
import type { CallFacts, CallOutcome } from "./envelope.js";
import { failureOutcome, successOutcome, thrownOutcome } from "./envelope.js";
import { Limiter, QueueFullError } from "./limiter.js";
import { spawnProcess } from "./process-pool.js";
import type { Redactor } from "./redact.js";
import type { SendProgress } from "./throttle-progress.js";
import { throttleProgress } from "./throttle-progress.js";
import { SchemaCompileError, validateArguments } from "./validate-arguments.js";
import { spawnThread, WorkerPool } from "./worker-pool.js";

/** The argument a dangerous tool's call carries to confirm an operation id. Advertised in its input schema. */
export const CONFIRM_ARGUMENT = "_confirm";

/** Options for one call. */
export interface CallOptions {
  /** Aborted when the client cancels; the capability's `ctx.signal` follows it. */
  signal?: AbortSignal;
  /** Receives `ctx.progress` reports, throttled; set when the client asked for progress. */
  onProgress?: SendProgress;
  /**
   * Who is calling over an authenticated transport; the tool's scopes are checked against it and it reaches the
   * capability as `ctx.auth`. Unset for local calls (stdio, `skillport call`), which are not checked.
   */
  caller?: Caller;
  /** How a dangerous call can be confirmed by its user; without it only the operation-id fallback can apply. */
  confirmation?: CallConfirmation;
}

/** The ways a dangerous call can reach its user for confirmation. */
export interface CallConfirmation {
  /**
   * Asks the user in this process (a terminal prompt, a test double): resolves true to go ahead. Preferred when given.
   */
  ask?: (question: ConfirmationQuestion) => Promise<boolean>;
  /** The client can ask its user (MCP elicitation): the pipeline answers with `elicit`, and the answer comes back. */
  elicit?: boolean;
  /** The user's answer to a question, with the state this server minted for it (undefined if the client sent none). */
  answer?: { action: "accept" | "decline" | "cancel"; state: string | undefined };
}

/** What the user is asked before a dangerous call runs. */
export interface ConfirmationQuestion {
  tool: string;
  /** What the call will do, control and bidirectional characters shown escaped. */
  brief: string;
  /** The whole question, e.g. `files.delete_file wants to: Delete a.txt. Allow it?` */
  message: string;
}

/** Runs calls through the stages: resolve → credentials → validate (migrate) → confirm → bound → run → shape. */
export interface Pipeline {
  /** Throws SkillportError UNKNOWN_TOOL for a name not in the table; every other failure is an envelope. */
  call(fullName: string, args: unknown, options?: CallOptions): Promise<CallOutcome>;
  /** Stops the isolation workers. */
  close(): Promise<void>;
}

/** What the pipeline needs besides the registry. */
export interface PipelineDeps {
  logger: Logger;
  redactor: Redactor;
  audit: Audit;
  confirmations: Confirmations;
  /**
   * What a dangerous call answers when its client cannot ask the user: "refuse", or "operation-id" (a one-time id
   * the client repeats the call with; the client must show the brief to its user).
   * @default "refuse"
   */
  confirmationFallback?: "refuse" | "operation-id";
}

/** Builds the call pipeline over a registry. Validators compile lazily, once per tool. */
export function createPipeline(registry: Registry, deps: PipelineDeps): Pipeline {
  const { logger, redactor, audit, confirmations } = deps;
  const fallback = deps.confirmationFallback ?? "refuse";
  const ajv = createAjv({ firstError: true });
  const neverAborted = new AbortController().signal;
  const limiters = new Map<SkillInstance, Limiter>(
    registry.instances.map((i) => [i, new Limiter(i.concurrency, i.queue)]),
  );
  const pools = new Map<SkillInstance, WorkerPool>();
  const loadFailuresLogged = new Set<SkillInstance>();
  const poolOf = (instance: SkillInstance) => {
    let pool = pools.get(instance);
    if (pool === undefined) {
      pool =
        instance.isolation === "process"
          ? new WorkerPool(instance, logger, spawnProcess, "child process")
          : new WorkerPool(instance, logger, spawnThread, "worker");
      pools.set(instance, pool);
    }
    return pool;
  };
  const unsandboxed = registry.instances.filter((i) => i.isolation === "process");
  if (unsandboxed.length > 0) {
    void sandboxAvailable().then((status) => {
      if (status.available) return;
      logger.warn(
        { instances: unsandboxed.map((i) => i.id), reason: status.reason },
        "isolation \"process\" runs without a sandbox here: the child processes have an empty environment, but they can read the host's files and /proc (the host's environment included) and use the network",
      );
    });
  }
  // What each loaded instance's skill reads of its credentials, and what the host holds for ctx.fetch.
  const access = new Map<
    SkillInstance,
    { credentials: Readonly<Record<string, string | undefined>>; held: () => HeldCredential[] }
  >();
  const accessOf = (instance: SkillInstance) => {
    let found = access.get(instance);
    if (found === undefined) {
      found = {
        credentials: skillCredentials(instance.skill, instance.credentials),
        held: lazyHeldCredentials(instance.skill, instance.credentials, instance.config),
      };
      access.set(instance, found);
    }
    return found;
  };

  async function stages(entry: ToolEntry, facts: CallFacts, raw: unknown, options: CallOptions): Promise<CallOutcome> {
    const { instance } = entry;
    const missing = missingScopes(entry, options.caller);
    if (missing !== undefined) {
      return failureOutcome(
        facts,
        "PERMISSION_DENIED",
        `${entry.fullName} requires the scope${missing.length === 1 ? "" : "s"} ${missing.join(", ")}, which caller "${options.caller?.id}" does not hold; ask for a token with ${missing.length === 1 ? "it" : "them"}`,
      );
    }
    if (instance.missingCredentials.length > 0) {
      return failureOutcome(
        facts,
        "CREDENTIALS_MISSING",
        `${entry.fullName} cannot run: ${instance.missingCredentials.join("; ")}`,
      );
    }

    if (isPlaceholder(entry.tool)) {
      const failure = await loadSkill(entry);
      if (failure !== undefined) return failureOutcome(facts, "UNAVAILABLE", failure, { retryable: false });
    }
    // Every decision from here on reads the loaded tool, never the surface the lock described.
    const tool = entry.tool;

    // The confirmation argument belongs to the host, not to the capability.
    let confirm: unknown;
    let input = raw ?? {};
    if (tool.risk === "dangerous" && typeof input === "object" && input !== null && CONFIRM_ARGUMENT in input) {
      const { [CONFIRM_ARGUMENT]: given, ...rest } = input as Record<string, unknown>;
      confirm = given;
      input = rest;
    }

    let validation: ReturnType<typeof validateArguments>;
    try {
      validation = validateArguments(ajv, entry, input);
    } catch (error) {
      if (!(error instanceof SchemaCompileError)) throw error;
      logger.error(
        { err: redactor.value(error), traceId: facts.traceId, tool: entry.fullName },
        "input schema does not compile",
      );
      return failureOutcome(
        facts,
        "INTERNAL",
        `${entry.fullName} has an input schema the host cannot compile; tell the skill's author`,
      );
    }
    if (!validation.ok) {
      return failureOutcome(facts, "ARGUMENT_INVALID", validation.message, {
        field: validation.field,
        retryable: true,
      });
    }
    const args = validation.args;
    facts.brief = briefOf(entry, args);

    if (tool.risk === "dangerous") {
      const refusal = await confirmDangerous(entry, facts, args, confirm, options);
      if (refusal !== undefined) return refusal;
    }

    return bound(entry, facts, args, validation.warnings, options);
  }

  /** Imports the entry's skill on its first call (once per instance) and swaps in the real tool. */
  async function loadSkill(entry: ToolEntry): Promise<string | undefined> {
    const { instance } = entry;
    try {
      const real = await instance.load();
      entry.tool = real.tools.find((t) => t.name === entry.tool.name) ?? entry.tool;
      if (isPlaceholder(entry.tool))
        return `${instance.id} no longer has the tool "${entry.tool.name}"; run skillport lock`;
      return undefined;
    } catch (error) {
      if (!loadFailuresLogged.has(instance)) {
        loadFailuresLogged.add(instance);
        logger.error(
          { instance: instance.id, err: redactor.value(error) },
          "a skill could not be loaded; its tools answer UNAVAILABLE",
        );
      }
      return `${instance.id} could not be loaded (${(error as Error).message}); its tools are unavailable, every other tool keeps working`;
    }
  }

  /**
   * A dangerous call runs only when the manifest allows it and its user confirmed these exact arguments: asked in
   * process, or through the client (an answer counts only with the state this server minted for the question, for
   * this tool, these arguments and this caller, once), or, where the manifest opts in, with a one-time operation id.
   */
  async function confirmDangerous(
    entry: ToolEntry,
    facts: CallFacts,
    args: Record<string, unknown>,
    confirm: unknown,
    options: CallOptions,
  ): Promise<CallOutcome | undefined> {
    const { instance, tool } = entry;
    const brief = facts.brief ?? `Run ${entry.fullName}`;
    if (!instance.allow.has(tool.name)) {
      return failureOutcome(
        facts,
        "PERMISSION_DENIED",
        `${entry.fullName} is dangerous and this server does not allow it; to enable it add "${tool.name}" to ${placeOf(instance)}.allow in the manifest`,
      );
    }
    const subject = { tool: entry.fullName, args, caller: options.caller?.id };
    if (confirm !== undefined) return redeemOperationId(entry, facts, subject, confirm);
    const question: ConfirmationQuestion = {
      tool: entry.fullName,
      brief,
      message: `${entry.fullName} wants to: ${brief}. Allow it?`,
    };
    const how = options.confirmation ?? {};
    if (how.ask !== undefined) {
      return (await how.ask(question))
        ? undefined
        : failureOutcome(facts, "PERMISSION_DENIED", `the user declined: ${brief}`);
    }
    const answer = how.answer;
    if (answer !== undefined && answer.action !== "accept") {
      return failureOutcome(facts, "PERMISSION_DENIED", `the user declined: ${brief}`);
    }
    if (answer?.state !== undefined) {
      const verdict = confirmations.answer(answer.state, subject);
      if (verdict === "ok") return undefined;
      if (verdict === "reused") {
        return failureOutcome(
          facts,
          "PERMISSION_DENIED",
          `this confirmation was already used; call ${entry.fullName} again to ask the user anew`,
          { retryable: true },
        );
      }
      // Any other answer (expired, for other arguments or another caller, not minted here) asks again: the user
      // must see what will run now.
    }
    if (how.elicit === true) {
      const { state } = confirmations.ask(subject);
      const outcome = failureOutcome(facts, "CONFIRMATION_REQUIRED", `Confirm: ${brief}`, { retryable: true });
      return { ...outcome, elicit: { message: question.message, state } };
    }
    if (fallback === "refuse") {
      return failureOutcome(
        facts,
        "CONFIRMATION_REQUIRED",
        `${entry.fullName} is dangerous and runs only after its user confirms it (${brief}), but this client cannot ask its user (MCP elicitation); use a client that can, or, as the server's operator, set confirmation.fallback to "operation-id" in the manifest`,
        { retryable: false },
      );
    }
    const { operationId, expiresAt } = confirmations.issue(subject);
    return failureOutcome(
      facts,
      "CONFIRMATION_REQUIRED",
      `Confirm: ${brief}. Ask the user; to run it, repeat the same call with "${CONFIRM_ARGUMENT}": "${operationId}" before ${expiresAt.toISOString()}`,
      { retryable: true, operationId, expiresAt: expiresAt.toISOString() },
    );
  }

  function redeemOperationId(
    entry: ToolEntry,
    facts: CallFacts,
    subject: { tool: string; args: Record<string, unknown>; caller: string | undefined },
    confirm: unknown,
  ): CallOutcome | undefined {
    const field = `/${CONFIRM_ARGUMENT}`;
    if (fallback !== "operation-id") {
      return failureOutcome(
        facts,
        "PERMISSION_DENIED",
        `this server does not take operation ids (confirmation.fallback is "refuse"); leave out ${CONFIRM_ARGUMENT} and confirm through a client that can ask its user`,
        { field },
      );
    }
    const verdict = typeof confirm === "string" ? confirmations.redeem(confirm, subject) : "invalid";
    if (verdict === "ok") return undefined;
    const why = {
      invalid: "is not an operation id this server issued",
      expired: "has expired",
      mismatch: "was issued for other arguments",
      "other-caller": "was issued to another caller",
      reused: "was already used",
    }[verdict];
    return failureOutcome(
      facts,
      "PERMISSION_DENIED",
      `the ${CONFIRM_ARGUMENT} operation id ${why}; call ${entry.fullName} again without ${CONFIRM_ARGUMENT} to get a new one`,
      { field, retryable: true },
    );
  }

  /** Runs the capability within its limits: a concurrency slot, the timeout, and the client's cancel. */
  async function bound(
    entry: ToolEntry,
    facts: CallFacts,
    args: Record<string, unknown>,
    warnings: string[],
    options: CallOptions,
  ) {
    const controller = new AbortController();
    const clientSignal = options.signal ?? neverAborted;
    const onCancel = () => controller.abort(new DOMException("the client cancelled the call", "AbortError"));
    if (clientSignal.aborted) onCancel();
    else clientSignal.addEventListener("abort", onCancel, { once: true });
    const timer = setTimeout(
      () => controller.abort(new DOMException(`no answer within ${entry.timeoutMs} ms`, "TimeoutError")),
      entry.timeoutMs,
    );
    const progress = options.onProgress === undefined ? undefined : throttleProgress(options.onProgress);
    let release: (() => void) | undefined;
    try {
      release = await (limiters.get(entry.instance) as Limiter).acquire(controller.signal);
      const ctx = contextFor(entry, facts, controller.signal, progress?.report, options.caller);
      const running =
        entry.instance.isolation !== "in-process"
          ? poolOf(entry.instance).run(entry.tool.name, args, ctx)
          : Promise.resolve().then(() => entry.tool.run(args, ctx));
      running.catch(() => undefined); // answered below; a late rejection after an abort is expected
      const value = await raceAbort(running, controller.signal);
      const outcome = successOutcome(value, facts);
      if (warnings.length > 0) outcome.envelope.warnings.unshift(...warnings);
      return outcome;
    } catch (error) {
      return failureOf(error, entry, facts, controller.signal);
    } finally {
      release?.();
      clearTimeout(timer);
      clientSignal.removeEventListener("abort", onCancel);
      progress?.close();
    }
  }

  function failureOf(error: unknown, entry: ToolEntry, facts: CallFacts, signal: AbortSignal): CallOutcome {
    if (error instanceof QueueFullError) {
      return failureOutcome(
        facts,
        "RATE_LIMITED",
        `${entry.instance.id} is busy (${error.message}); try again shortly, or raise concurrency/queue for ${placeOf(entry.instance)}`,
        { retryable: true },
      );
    }
    if (signal.aborted && (signal.reason as Error | undefined)?.name === "TimeoutError") {
      return failureOutcome(
        facts,
        "TIMEOUT",
        `${entry.fullName} did not finish within ${entry.timeoutMs} ms and was stopped; try narrower arguments, or raise timeoutMs for ${placeOf(entry.instance)}`,
        { retryable: true },
      );
    }
    const outcome = thrownOutcome(error, facts, signal);
    if (outcome.envelope.ok === false && outcome.envelope.error.code === "INTERNAL") {
      logger.error(
        { err: redactor.value(error), traceId: facts.traceId, tool: entry.fullName },
        "tool threw an unexpected error",
      );
    }
    return outcome;
  }

  function contextFor(
    entry: ToolEntry,
    facts: CallFacts,
    signal: AbortSignal,
    report: SendProgress | undefined,
    caller: Caller | undefined,
  ): SkillContext {
    let child: Logger | undefined;
    const log = (level: "debug" | "info" | "warn" | "error") => (message: string, data?: Record<string, unknown>) => {
      child ??= logger.child({ traceId: facts.traceId, tool: entry.fullName });
      child[level](redactor.value(data ?? {}), redactor.string(message));
    };
    const skillLog: SkillLogger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
    const { instance } = entry;
    const { credentials, held } = accessOf(instance);
    return {
      token: credentials.token,
      credentials,
      hasCredential: (name) => hasCredential(instance.credentials, name),
      ...(caller === undefined ? {} : { auth: { id: caller.id, scopes: caller.scopes } }),
      signal,
      config: entry.instance.config,
      traceId: facts.traceId,
      log: skillLog,
      progress: (done, total, message) => report?.(done, total, message),
      fetch: fetchWithCredentials(held, signal, (input, init) => fetch(input, init)),
      findSecret: async (content) => redactor.find(content),
    };
  }

  return {
    async call(fullName, args, options = {}) {
      const entry = registry.tools.get(fullName);
      if (entry === undefined) {
        throw new SkillportError(
          "UNKNOWN_TOOL",
          `unknown tool "${fullName}"; tools/list names the tools this server has`,
        );
      }
      const facts: CallFacts = { entry, traceId: randomUUID(), startedAt: performance.now(), brief: undefined };
      const raw = await stages(entry, facts, args, options);
      const outcome = redactor.active
        ? { ...raw, envelope: redactor.value(raw.envelope), text: redactor.string(raw.text) }
        : raw;
      audit({
        traceId: facts.traceId,
        tool: fullName,
        instance: entry.instance.id,
        skill: `${entry.instance.packageName}@${entry.instance.version}`,
        risk: entry.tool.risk,
        brief: facts.brief,
        outcome: outcome.envelope.ok ? "OK" : outcome.envelope.error.code,
        durationMs: outcome.envelope.meta.durationMs,
        caller: options.caller?.id,
        arguments: args,
      });
      return outcome;
    },
    async close() {
      await Promise.all([...pools.values()].map((p) => p.close()));
    },
  };
}

// --- internal ---

function briefOf(entry: ToolEntry, args: Record<string, unknown>): string | undefined {
  let brief: unknown;
  try {
    brief = entry.tool.buildBrief?.(args);
  } catch {
    return undefined; // a brief is a courtesy; a throwing one never fails the call
  }
  return typeof brief === "string" ? showInvisible(brief) : undefined;
}

/**
 * Characters that make a person read something other than what runs: controls (newlines, escapes), bidirectional
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069), marks and zero-width characters, line and paragraph
 * separators, and the invisible tag characters.
 */
const INVISIBLE = /[\p{Cc}\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF\u{E0000}-\u{E007F}]/gu;

/** A brief as the user must see it: every invisible or reordering character written as a visible `\u{…}` escape. */
export function showInvisible(text: string): string {
  return text.replace(
    INVISIBLE,
    (c) => `\\u{${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}}`,
  );
}

function placeOf(instance: SkillInstance): string {
  return `skills[${instance.index}]`;
}

/** Settles with the work, or rejects with the signal's reason as soon as it aborts. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
