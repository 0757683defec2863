import { randomUUID } from "node:crypto";
import type { CredentialResolver } from "../credentials/resolve-credentials.js";
import type { Caller } from "../entries/check-scopes.js";
import { missingScopes } from "../entries/check-scopes.js";
import { closestNames } from "../errors/closest-names.js";
import type { Logger } from "../logging/logger.js";
import type { Discovery, Separator } from "../manifest/manifest.js";
import type { Redactor } from "../redaction/redactor.js";
import { REDACTED } from "../redaction/redactor.js";
import type { Registry } from "../registry/registry.js";
import { lazyAjv } from "../schema/ajv.js";
import { TRACE_EVENTS } from "../tracing/tracing.js";
import type { Audit } from "./audit.js";
import type { BoundedRun } from "./bounded-run.js";
import { createBoundedRun } from "./bounded-run.js";
import type { Answered, Call, CallOptions, CallOutcome, LoadedCall, ResumedCall } from "./call.js";
import { answer, auditFacts, isAnswered } from "./call.js";
import type { Confirmations } from "./confirmations.js";
import { failureOutcome } from "./envelope.js";
import { authorize as authorizeStage } from "./stages/authorize.js";
import { createConfirm } from "./stages/confirm.js";
import { createCredentials } from "./stages/credentials.js";
import { createEnsureLoaded } from "./stages/ensure-loaded.js";
import { createExecute } from "./stages/execute.js";
import { createMigrate } from "./stages/migrate.js";
import { createResume } from "./stages/resume.js";
import { createShape } from "./stages/shape.js";
import { createValidate } from "./stages/validate.js";
import type { TracedStageName } from "./traced-stage.js";
import { endStage, stageSpan, tracedStage } from "./traced-stage.js";
import { createValidators } from "./validators.js";

/**
 * Runs calls through the stages, in order: lookup → authorize → ensure loaded → migrate → validate → resume →
 * confirm → credentials → execute → shape; then every answer, whichever stage gave it, is redacted and audited.
 */
export interface Pipeline {
  /**
   * Answers one call. A name the table does not have answers at the `lookup` stage (the MCP layer turns it into
   * the protocol's error); every other failure is an envelope.
   */
  call(fullName: string, args: unknown, options?: CallOptions): Promise<CallOutcome>;
  /** Resolves once no call is running (at once when none is): a swapped-out table closes then (Host.reload). */
  settled(): Promise<void>;
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
  /**
   * How the answer to an unknown name says where the tools are named: tools/list, or under discovery "search" the
   * search tool; and the separator its suggestions of close names are read with.
   * @default tools/list, "."
   */
  names?: { discovery: Pick<Discovery, "mode" | "searchTool">; separator: Separator };
  /**
   * Resolves the caller's own credentials for tools whose owner has per-caller slots (the manifest's `credentials`).
   * Without it such a tool answers CREDENTIALS_MISSING.
   */
  credentials?: CredentialResolver;
  /**
   * Whether calls may carry a trace (`CallOptions.trace`): each stage then runs in a span when its call does. Off,
   * the stages are not wrapped at all.
   * @default false
   */
  traced?: boolean;
}

/** Builds the call pipeline over a registry. Validators compile lazily, once per tool. */
export function createPipeline(registry: Registry, deps: PipelineDeps): Pipeline {
  const { logger, redactor, audit } = deps;
  const validators = createValidators(
    lazyAjv({ firstError: true }),
    lazyAjv({ firstError: true, fillDefaults: false }),
  );
  // Traced, each stage opens a span when its call carries a trace; otherwise the stages are the functions themselves.
  const staged = deps.traced === true ? tracedStage : untraced;
  const authorize = staged("authorize", authorizeStage);
  const ensureLoaded = staged("ensure-loaded", createEnsureLoaded(logger));
  const migrate = staged("migrate", createMigrate(validators, logger));
  const validate = staged("validate", createValidate(validators, logger));
  const resume = staged("resume", createResume(deps.confirmations));
  const confirm = staged(
    "confirm",
    createConfirm({ confirmations: deps.confirmations, fallback: deps.confirmationFallback ?? "refuse" }),
  );
  const credentials = staged("credentials", createCredentials(deps.credentials));
  const execute = staged(
    "execute",
    createExecute({
      logger,
      redactor,
      run: deps.run ?? createBoundedRun({ logger, redactor }),
      carry: deps.confirmations.carry,
    }),
  );
  const shape = staged("shape", createShape(validators, logger));
  const { discovery, separator } = deps.names ?? { discovery: { mode: "all", searchTool: "" }, separator: "." };
  const finder =
    discovery.mode === "search"
      ? `${discovery.searchTool} finds the tools this server has`
      : "tools/list names the tools this server has";

  /** The names close to an unknown one among the tools this caller may call (none other is ever named to it). */
  function closeTo(name: string, caller: Caller | undefined): string[] {
    const names: string[] = [];
    for (const [full, entry] of registry.tools) if (missingScopes(entry, caller) === undefined) names.push(full);
    return closestNames(name, names, separator);
  }

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
    // Most tools' owners have no per-caller credential: they pass on without the stage (nor its span).
    if (call.entry.instance.perCaller.length === 0) return credentialed(call);
    const resolved = credentials(call);
    return resolved instanceof Promise ? resolved.then(credentialed) : credentialed(resolved);
  }

  function credentialed(call: ResumedCall | Answered): Answered | Promise<Answered> {
    if (isAnswered(call)) return call;
    const { beforeRun } = call.options;
    if (beforeRun !== undefined) {
      return beforeRun().then((refused) =>
        refused === undefined
          ? run(call)
          : answer(call, "execute", failureOutcome(call, refused.code, refused.message, { retryable: true })),
      );
    }
    return run(call);
  }

  function run(call: ResumedCall): Promise<Answered> {
    return execute(call).then((executed) => (isAnswered(executed) ? executed : shape(executed)));
  }

  /**
   * The answer as the client gets it (redacted) after its audit line is written. `input` is the arguments as the
   * client sent them: the stages carry them on migrated and with defaults filled in.
   */
  function finished(answered: Answered, input: unknown): CallOutcome {
    const { call, outcome } = answered;
    const { entry, options } = call;
    const { trace } = options;
    const redacting = trace === undefined ? undefined : stageSpan(trace, "skillport.redact");
    const redacted = redactor.active
      ? {
          ...outcome,
          envelope: redactor.value(outcome.envelope),
          ...(outcome.content === undefined ? {} : { content: redactor.value(outcome.content) }),
          ...(outcome.input === undefined ? {} : { input: redactor.value(outcome.input) }),
          ...(outcome.connect === undefined ? {} : { connect: redactor.value(outcome.connect) }),
          // The user's question holds the brief, made from the client's arguments.
          ...(outcome.elicit === undefined
            ? {}
            : { elicit: { message: redactor.string(outcome.elicit.message), state: outcome.elicit.state } }),
        }
      : outcome;
    if (trace !== undefined && redacting !== undefined) {
      // How many secrets the redactor replaced in the answer: a count, never what they were.
      const count = redactor.active ? redactionsIn(redacted) - redactionsIn(outcome) : 0;
      if (count > 0) redacting.event(TRACE_EVENTS.redacted, { "skillport.redactions": count });
      endStage(trace, redacting, call);
    }
    const auditing = trace === undefined ? undefined : stageSpan(trace, "skillport.audit");
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
    if (trace !== undefined && auditing !== undefined) endStage(trace, auditing, call);
    return redacted;
  }

  // The calls running, counted so that a table swapped out (Host.reload) closes only after its last call.
  let running = 0;
  const waiting: (() => void)[] = [];
  const ended = () => {
    running--;
    if (running > 0 || waiting.length === 0) return;
    for (const resolve of waiting.splice(0)) resolve();
  };
  const endedWith = (done: Answered, input: unknown) => {
    ended();
    return finished(done, input);
  };
  const failed = (error: unknown): never => {
    ended();
    throw error;
  };

  return {
    settled: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
    // Not an async function either (see through): one promise for the call's answer, chained on the run's.
    call(fullName, input, options = {}) {
      try {
        // A traced call's id is its trace's: the envelope then names the trace an operator finds it in.
        const traceId = options.trace === undefined ? randomUUID() : options.trace.request.traceId;
        const startedAt = performance.now();
        const entry = registry.tools.get(fullName);
        if (entry === undefined) {
          // Its message names what the client sent, which may be a secret the host knows.
          const unknown = unknownTool(fullName, traceId, startedAt, closeTo(fullName, options.caller), finder);
          return Promise.resolve(redactor.active ? redactor.value(unknown) : unknown);
        }
        running++;
        let answered: Answered | Promise<Answered>;
        try {
          answered = through({ entry, traceId, startedAt, options, input });
        } catch (error) {
          return failed(error);
        }
        return answered instanceof Promise
          ? answered.then((done) => endedWith(done, input), failed)
          : Promise.resolve(endedWith(answered, input));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    close: () => registry.close(),
  };
}

// --- internal ---

/** A stage as it is, for a pipeline that does not trace. */
function untraced<S>(_name: TracedStageName, stage: S): S {
  return stage;
}

/** How many `[REDACTED]` an outcome's envelope and content hold (traced calls only: it serialises them). */
function redactionsIn(outcome: CallOutcome): number {
  const text = JSON.stringify([outcome.envelope, outcome.content ?? null, outcome.elicit?.message ?? null]);
  return text.split(REDACTED).length - 1;
}

/**
 * The answer for a name the table does not have: not a tool's failure, so nothing is audited. It names the closest
 * names the caller may call, and where to find the others.
 */
function unknownTool(
  fullName: string,
  traceId: string,
  startedAt: number,
  close: readonly string[],
  finder: string,
): CallOutcome {
  const guess = close.length === 0 ? "" : ` did you mean ${close.map((name) => `"${name}"`).join(" or ")}?`;
  const message = `unknown tool "${fullName}";${guess} ${finder}`;
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
