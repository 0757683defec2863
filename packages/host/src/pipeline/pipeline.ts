import { randomUUID } from "node:crypto";
import type { Logger } from "../logging/logger.js";
import type { Redactor } from "../redaction/redactor.js";
import type { Registry } from "../registry/registry.js";
import { lazyAjv } from "../schema/ajv.js";
import type { Audit } from "./audit.js";
import type { BoundedRun } from "./bounded-run.js";
import { createBoundedRun } from "./bounded-run.js";
import type { Answered, Call, CallOptions, CallOutcome, LoadedCall, ResumedCall } from "./call.js";
import { auditFacts, isAnswered } from "./call.js";
import type { Confirmations } from "./confirmations.js";
import { authorize } from "./stages/authorize.js";
import { createConfirm } from "./stages/confirm.js";
import { createEnsureLoaded } from "./stages/ensure-loaded.js";
import { createExecute } from "./stages/execute.js";
import { createMigrate } from "./stages/migrate.js";
import { createResume } from "./stages/resume.js";
import { createShape } from "./stages/shape.js";
import { createValidate } from "./stages/validate.js";
import { createValidators } from "./validators.js";

/**
 * Runs calls through the stages, in order: lookup → authorize → ensure loaded → migrate → validate → resume →
 * confirm → execute → shape; then every answer, whichever stage gave it, is redacted and audited.
 */
export interface Pipeline {
  /**
   * Answers one call. A name the table does not have answers at the `lookup` stage (the MCP layer turns it into
   * the protocol's error); every other failure is an envelope.
   */
  call(fullName: string, args: unknown, options?: CallOptions): Promise<CallOutcome>;
  /** Stops the isolates (worker threads, child processes) of the registry's instances. */
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
  /**
   * Runs capabilities within their bounds; share one with reads, renders and completions (one limit per instance).
   * @default a runner of its own
   */
  run?: BoundedRun;
}

/** Builds the call pipeline over a registry. Validators compile lazily, once per tool. */
export function createPipeline(registry: Registry, deps: PipelineDeps): Pipeline {
  const { logger, redactor, audit } = deps;
  const validators = createValidators(
    lazyAjv({ firstError: true }),
    lazyAjv({ firstError: true, fillDefaults: false }),
  );
  const ensureLoaded = createEnsureLoaded(logger);
  const migrate = createMigrate(validators, logger);
  const validate = createValidate(validators, logger);
  const resume = createResume(deps.confirmations);
  const confirm = createConfirm({ confirmations: deps.confirmations, fallback: deps.confirmationFallback ?? "refuse" });
  const execute = createExecute({
    logger,
    redactor,
    run: deps.run ?? createBoundedRun({ logger, redactor }),
    carry: deps.confirmations.carry,
  });
  const shape = createShape(validators, logger);

  /**
   * One call through the stages, top to bottom: each passes it on, enriched, or answers it. Written as a chain, not
   * an async function: a stage that nearly always goes on at once answers a promise only when it must wait, and the
   * chain waits only on those (and on the run), instead of a promise per async frame and per await, each a turn of
   * the microtask queue and, in an application with an AsyncLocalStorage, a hook's run.
   */
  function through(call: Call): Answered | Promise<Answered> {
    const authorized = authorize(call);
    if (isAnswered(authorized)) return authorized;
    const loading = ensureLoaded(authorized);
    return loading instanceof Promise ? loading.then(loaded) : loaded(loading);
  }

  function loaded(call: LoadedCall | Answered): Answered | Promise<Answered> {
    if (isAnswered(call)) return call;
    const migrated = migrate(call);
    if (isAnswered(migrated)) return migrated;
    const validated = validate(migrated);
    if (isAnswered(validated)) return validated;
    const resuming = resume(validated);
    return resuming instanceof Promise ? resuming.then(resumed) : resumed(resuming);
  }

  function resumed(call: ResumedCall | Answered): Answered | Promise<Answered> {
    if (isAnswered(call)) return call;
    const confirming = confirm(call);
    return confirming instanceof Promise ? confirming.then(confirmed) : confirmed(confirming);
  }

  function confirmed(call: ResumedCall | Answered): Answered | Promise<Answered> {
    if (isAnswered(call)) return call;
    return execute(call).then((executed) => (isAnswered(executed) ? executed : shape(executed)));
  }

  /**
   * The answer as the client gets it (redacted) after its audit line is written. `input` is the arguments as the
   * client sent them: the stages carry them on migrated and with defaults filled in.
   */
  function finished(answered: Answered, input: unknown): CallOutcome {
    const { call, outcome } = answered;
    const { entry, options } = call;
    const redacted = redactor.active
      ? {
          ...outcome,
          envelope: redactor.value(outcome.envelope),
          ...(outcome.content === undefined ? {} : { content: redactor.value(outcome.content) }),
          ...(outcome.input === undefined ? {} : { input: redactor.value(outcome.input) }),
          // The user's question holds the brief, made from the client's arguments.
          ...(outcome.elicit === undefined
            ? {}
            : { elicit: { message: redactor.string(outcome.elicit.message), state: outcome.elicit.state } }),
        }
      : outcome;
    const { risk, brief } = auditFacts(call);
    audit({
      traceId: call.traceId,
      tool: entry.fullName,
      instance: entry.instance.id,
      skill: `${entry.instance.packageName}@${entry.instance.version}`,
      risk,
      brief,
      outcome: redacted.envelope.ok ? "OK" : redacted.envelope.error.code,
      durationMs: redacted.envelope.meta.durationMs,
      caller: options.caller?.id,
      arguments: input,
    });
    return redacted;
  }

  return {
    // Not an async function either (see through): one promise for the call's answer, chained on the run's.
    call(fullName, input, options = {}) {
      try {
        const traceId = randomUUID();
        const startedAt = performance.now();
        const entry = registry.tools.get(fullName);
        if (entry === undefined) {
          // Its message names what the client sent, which may be a secret the host knows.
          const unknown = unknownTool(fullName, traceId, startedAt);
          return Promise.resolve(redactor.active ? redactor.value(unknown) : unknown);
        }
        const answered = through({ entry, traceId, startedAt, options, input });
        return answered instanceof Promise
          ? answered.then((done) => finished(done, input))
          : Promise.resolve(finished(answered, input));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    close: () => registry.close(),
  };
}

// --- internal ---

/** The answer for a name the table does not have: not a tool's failure, so nothing is audited. */
function unknownTool(fullName: string, traceId: string, startedAt: number): CallOutcome {
  const message = `unknown tool "${fullName}"; tools/list names the tools this server has`;
  return {
    stage: "lookup",
    tool: undefined,
    isError: true,
    envelope: {
      ok: false,
      message,
      error: { code: "NOT_FOUND", retryable: false, traceId },
      warnings: [],
      meta: {
        traceId,
        durationMs: Math.round((performance.now() - startedAt) * 1000) / 1000,
        tool: fullName,
        toolVersion: "",
      },
    },
  };
}
