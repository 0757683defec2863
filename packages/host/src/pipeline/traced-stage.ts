import type { ErrorCode } from "@skillport/core";
import type { CallTrace, TraceSpan } from "../tracing/tracing.js";
import { TRACE_EVENTS } from "../tracing/tracing.js";
import type { Answered, Call } from "./call.js";
import { isAnswered } from "./call.js";

/** What the pipeline's spans are named after: its stages, and the redaction and audit every answer passes. */
export type TracedStageName =
  | "authorize"
  | "ensure-loaded"
  | "migrate"
  | "validate"
  | "resume"
  | "confirm"
  | "credentials"
  | "execute"
  | "shape"
  | "redact"
  | "audit";

/**
 * A stage that runs in a span of its own (`skillport.<stage>`) when its call is traced: the span is the trace's
 * current one while the stage runs (its decisions are events on it, an upstream request opens under it), and it
 * ends with the stage, marked with the code of a failure the stage answered. A pipeline built without tracing
 * does not wrap its stages at all; with tracing, an untraced call pays one branch.
 */
export function tracedStage<S extends (call: never) => Call | Answered | Promise<Call | Answered>>(
  name: TracedStageName,
  stage: S,
): S {
  const spanName = `skillport.${name}`;
  const run = stage as unknown as (call: Call) => Call | Answered | Promise<Call | Answered>;
  const traced = (call: Call) => {
    const trace = call.options.trace;
    if (trace === undefined) return run(call);
    const span = stageSpan(trace, spanName);
    let result: Call | Answered | Promise<Call | Answered>;
    try {
      result = run(call);
    } catch (error) {
      endStage(trace, span, undefined);
      throw error;
    }
    if (!(result instanceof Promise)) {
      endStage(trace, span, result);
      return result;
    }
    return result.then(
      (done) => {
        endStage(trace, span, done);
        return done;
      },
      (error: unknown) => {
        endStage(trace, span, undefined);
        throw error;
      },
    );
  };
  return traced as unknown as S;
}

/** Opens a stage's span under the call's request span and makes it the trace's current one. */
export function stageSpan(trace: CallTrace, name: string): TraceSpan {
  const span = trace.request.child(name);
  trace.current = span;
  return span;
}

/** Ends a stage's span; the request's span is current again. */
export function endStage(trace: CallTrace, span: TraceSpan, result: Call | Answered | undefined): void {
  if (result === undefined) span.fail("INTERNAL", "the stage threw");
  else if (isAnswered(result)) {
    const { envelope } = result.outcome;
    if (!envelope.ok) {
      const { code } = envelope.error;
      const event = DECISIONS[code];
      if (event !== undefined) span.event(event, { "skillport.stage": result.outcome.stage });
      span.fail(code);
    }
  }
  trace.current = trace.request;
  span.end();
}

// --- internal ---

/** The failures that are policy decisions, recorded as events where a stage answers them. */
const DECISIONS: Partial<Record<ErrorCode, string>> = {
  RATE_LIMITED: TRACE_EVENTS.rateLimited,
  TIMEOUT: TRACE_EVENTS.timeout,
  CANCELLED: TRACE_EVENTS.cancelled,
};
