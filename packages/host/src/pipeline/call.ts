import type { Envelope, Risk, SkillLogger } from "@skillport/core";
import type { Caller } from "../entries/check-scopes.js";
import type { InputRequest, Runnable, ToolEntry, ToolListing } from "../entries/tool-entry.js";
import type { CallTrace } from "../tracing/tracing.js";
import type { CallStop } from "./call-stop.js";
import type { InputRound } from "./confirmations.js";
import type { ContentBlock } from "./content-blocks.js";
import type { CallInput } from "./input.js";
import type { SendProgress } from "./throttle-progress.js";

/** Options for one call. */
export interface CallOptions {
  /** Aborted when the client cancels; the capability's `ctx.signal` follows it. */
  signal?: AbortSignal;
  /**
   * The call's own stop, for a caller that cancels through it instead of a signal (the fast paths): the run uses it
   * as its stop, so it also aborts at the tool's timeout or when the run asks the client something. Cheaper than a
   * signal, which Node makes slowly; a caller that needs to tell its own cancel apart keeps note of it.
   */
  stop?: CallStop;
  /** Receives `ctx.progress` reports, throttled; set when the client asked for progress. */
  onProgress?: SendProgress;
  /**
   * Who is calling over an authenticated transport; the tool's scopes are checked against it and it reaches the
   * capability as `ctx.auth`. Unset for local calls (stdio, `skillport call`), which are not checked.
   */
  caller?: Caller;
  /** How a dangerous call can be confirmed by its user; without it only the operation-id fallback can apply. */
  confirmation?: CallConfirmation;
  /**
   * What the client can answer when a capability asks (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`), and its
   * answers with the state of the round they answer. Without it, a capability that asks is told the client cannot.
   */
  input?: CallInput;
  /**
   * Receives the capability's log lines (already redacted), for the client: MCP logging notifications. The host's
   * own log gets them either way.
   */
  onLog?: (level: keyof SkillLogger, message: string, data: Record<string, unknown> | undefined) => void;
  /**
   * The call's trace, when the host traces (OpenTelemetry) and the transport opened a span for its request: each
   * stage runs in a span under it, its decisions are events, and an upstream request carries its context on. The
   * envelope's `meta.traceId` is then the trace's id.
   */
  trace?: CallTrace;
  /**
   * Called once the call passed every check that comes before running it (scopes, loading, validation, the answers
   * of earlier rounds, confirmation), just before it runs; the run waits for it. A refusal answers the call with its
   * code instead (retryable), at the `execute` stage. The tools core creates a task here (SEP-2663), so a task never
   * exists for a call its checks refused.
   */
  beforeRun?: () => Promise<RunRefusal | undefined>;
}

/** Why a call that passed its checks does not run now: see {@link CallOptions.beforeRun}. */
export interface RunRefusal {
  code: "RATE_LIMITED" | "UNAVAILABLE";
  message: string;
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

/** The stages a call goes through, in order; an outcome names the one that answered. */
const STAGES = [
  "lookup",
  "authorize",
  "ensure-loaded",
  "migrate",
  "validate",
  "resume",
  "confirm",
  "credentials",
  "execute",
  "shape",
] as const;

export type StageName = (typeof STAGES)[number];

/** What one call answers, once redacted: the envelope, and which stage answered. (`answer` copies each field.) */
export interface CallOutcome {
  envelope: Envelope;
  /** The tool that answered, as tools/list shows it, and its instance's id; undefined at the `lookup` stage. */
  tool: { listing: ToolListing; instance: string } | undefined;
  isError: boolean;
  /** The stage that answered: `lookup` for a name the table does not have, `execute`/`shape` when the tool ran. */
  stage: StageName;
  /**
   * Set when a dangerous call should be confirmed by asking the user (the client supports elicitation): the
   * transport asks with this message, sending `state` along, and calls again with the answer. The envelope is the
   * fallback answer.
   */
  elicit?: { message: string; state: string };
  /**
   * Set when the capability asked the client something it has not answered (`ctx.elicit`, …): the transport sends
   * these questions with `state`, and calls again with the answers. The envelope is the fallback answer.
   */
  input?: { requests: Record<string, InputRequest>; state: string };
  /**
   * Set when the call carried round state this server cannot accept (forged, expired, used, for another call): the
   * transport answers with a protocol error (invalid params) saying this.
   */
  rejected?: string;
  /** The capability's own content for the client (images, audio, resource links, …), after the envelope's text. */
  content?: ContentBlock[];
  /**
   * Set when the caller must connect a credential first (CREDENTIALS_MISSING with a link): a client that supports
   * URL-mode elicitation is sent this link that way; the envelope is the answer for any other.
   */
  connect?: { url: string; message: string; elicitationId: string };
}

/** A call as it enters the stages: found in the table, with a trace id and its start time. */
export interface Call {
  readonly entry: ToolEntry;
  readonly traceId: string;
  readonly startedAt: number;
  readonly options: CallOptions;
  /** The arguments as the client sent them. */
  readonly input: unknown;
}

/** After ensure-loaded: the code that answers it. */
export interface LoadedCall extends Call {
  readonly runnable: Runnable;
}

/** After migrate: arguments in the current shape (not yet validated), the host's own argument split off. */
export interface MigratedCall extends LoadedCall {
  readonly input: Record<string, unknown>;
  /** The `_confirm` operation id a dangerous call carried, if any. */
  readonly operationId: unknown;
  /** Said to the caller with the answer (a legacy shape's note). */
  readonly warnings: readonly string[];
}

/** After validate: arguments checked against the published schema, defaults filled in, and what they will do. */
export interface ValidatedCall extends MigratedCall {
  readonly args: Record<string, unknown>;
  readonly brief: string | undefined;
}

/** After resume: the earlier rounds of questions this call asked, when it carried their state. */
export interface ResumedCall extends ValidatedCall {
  readonly round?: InputRound | undefined;
  /** After the credentials stage: the caller's own credentials for its owner's per-caller slots, by name. */
  readonly credentials?: Readonly<Record<string, string>> | undefined;
}

/** After execute: what the capability returned. */
export interface ExecutedCall extends ResumedCall {
  readonly value: unknown;
}

/**
 * How each stage passes a call on, enriched: a new object (the call as far as it got stays as it was, for the audit
 * line), written out field by field. V8 copies a spread of this many fields about a microsecond each, against next
 * to nothing for a literal, and a call passes five stages; keep every field of the stage before in each.
 */
export const passOn = {
  loaded: (call: Call, runnable: Runnable): LoadedCall => ({
    entry: call.entry,
    traceId: call.traceId,
    startedAt: call.startedAt,
    options: call.options,
    input: call.input,
    runnable,
  }),
  migrated: (
    call: LoadedCall,
    input: Record<string, unknown>,
    operationId: unknown,
    warnings: readonly string[],
  ): MigratedCall => ({
    entry: call.entry,
    traceId: call.traceId,
    startedAt: call.startedAt,
    options: call.options,
    runnable: call.runnable,
    input,
    operationId,
    warnings,
  }),
  validated: (call: MigratedCall, args: Record<string, unknown>, brief: string | undefined): ValidatedCall => ({
    entry: call.entry,
    traceId: call.traceId,
    startedAt: call.startedAt,
    options: call.options,
    runnable: call.runnable,
    input: call.input,
    operationId: call.operationId,
    warnings: call.warnings,
    args,
    brief,
  }),
  resumed: (call: ValidatedCall, round: InputRound | undefined): ResumedCall => ({
    entry: call.entry,
    traceId: call.traceId,
    startedAt: call.startedAt,
    options: call.options,
    runnable: call.runnable,
    input: call.input,
    operationId: call.operationId,
    warnings: call.warnings,
    args: call.args,
    brief: call.brief,
    round,
  }),
  executed: (call: ResumedCall, value: unknown): ExecutedCall => ({
    entry: call.entry,
    traceId: call.traceId,
    startedAt: call.startedAt,
    options: call.options,
    runnable: call.runnable,
    input: call.input,
    operationId: call.operationId,
    warnings: call.warnings,
    args: call.args,
    brief: call.brief,
    round: call.round,
    credentials: call.credentials,
    value,
  }),
  credentialed: (call: ResumedCall, credentials: Readonly<Record<string, string>>): ResumedCall => ({
    entry: call.entry,
    traceId: call.traceId,
    startedAt: call.startedAt,
    options: call.options,
    runnable: call.runnable,
    input: call.input,
    operationId: call.operationId,
    warnings: call.warnings,
    args: call.args,
    brief: call.brief,
    round: call.round,
    credentials,
  }),
};

/** A stage's answer: the outcome, and the call as far as it got (for the audit line). */
export interface Answered {
  readonly answered: true;
  readonly call: Call;
  readonly outcome: CallOutcome;
}

/** Ends a call at `stage` with this outcome. */
export function answer(call: Call, stage: StageName, outcome: Omit<CallOutcome, "stage" | "tool">): Answered {
  const tool = { listing: call.entry.listing, instance: call.entry.instance.id };
  // Field by field, as passOn does: outcomes come in several shapes, and a spread of them is slow.
  const answered: CallOutcome = { envelope: outcome.envelope, isError: outcome.isError, stage, tool };
  if (outcome.elicit !== undefined) answered.elicit = outcome.elicit;
  if (outcome.input !== undefined) answered.input = outcome.input;
  if (outcome.rejected !== undefined) answered.rejected = outcome.rejected;
  if (outcome.content !== undefined) answered.content = outcome.content;
  if (outcome.connect !== undefined) answered.connect = outcome.connect;
  return new AnsweredCall(call, answered);
}

export function isAnswered(value: Call | Answered): value is Answered {
  // One prototype check, whatever the call's shape (each stage's call has its own: a property check would not be).
  return value instanceof AnsweredCall;
}

class AnsweredCall implements Answered {
  readonly answered = true as const;
  constructor(
    readonly call: Call,
    readonly outcome: CallOutcome,
  ) {}
}

/** What the audit line says of a call's risk and brief, as far as it got. */
export function auditFacts(call: Call): { risk: Risk; brief: string | undefined } {
  return {
    risk: "runnable" in call ? (call as LoadedCall).runnable.risk : call.entry.risk,
    brief: "brief" in call ? (call as ValidatedCall).brief : undefined,
  };
}
