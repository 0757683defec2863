import type { InputRequest } from "../../entries/tool-entry.js";
import type { Logger } from "../../logging/logger.js";
import type { Redactor } from "../../redaction/redactor.js";
import type { BoundedRun, RunResult } from "../bounded-run.js";
import { createBoundedRun } from "../bounded-run.js";
import type { Answered, ExecutedCall, ResumedCall } from "../call.js";
import { answer, passOn } from "../call.js";
import type { ConfirmationSubject, InputRound } from "../confirmations.js";
import { createConfirmations, unlessUnavailable } from "../confirmations.js";
import type { Outcome } from "../envelope.js";
import { failureOutcome, thrownOutcome } from "../envelope.js";
import type { OpenRound } from "../input.js";
import { QueueFullError } from "../limiter.js";

/** What running calls needs. */
export interface ExecuteOptions {
  logger: Logger;
  redactor: Redactor;
  /**
   * Runs the capability within its bounds; share one with reads and renders so an instance has one concurrency limit.
   * @default a runner of its own
   */
  run?: BoundedRun;
  /**
   * Mints the state of a round of questions the capability asked the client.
   * @default per-process confirmations with a random secret
   */
  carry?: (subject: ConfirmationSubject, round: InputRound) => Promise<string>;
}

/**
 * Runs the call within its bounds (see {@link BoundedRun}): a slot of the instance's concurrency (or a place in its
 * queue, else RATE_LIMITED), the tool's timeout (TIMEOUT) and the client's cancel (CANCELLED), one signal for both;
 * progress throttled. A capability that ignores its signal is answered for all the same when the signal aborts. A
 * capability that asked the client something (`ctx.elicit`, …) ends here with the questions, to run again with
 * the answers.
 */
export function createExecute(options: ExecuteOptions) {
  const { logger } = options;
  const run = options.run ?? createBoundedRun(options);
  const carry = options.carry ?? createConfirmations().carry;
  // A function returning the run's promise chained once, not an async function: one promise a call instead of two.
  return function execute(call: ResumedCall): Promise<ExecutedCall | Answered> {
    const { entry, options } = call;
    return run(
      { instance: entry.instance, name: entry.fullName, timeoutMs: entry.timeoutMs },
      options,
      call.traceId,
      call.round,
      call.credentials === undefined
        ? (runCall) => call.runnable.run(call.args, runCall)
        : (runCall) => {
            runCall.credentials = call.credentials;
            return call.runnable.run(call.args, runCall);
          },
    ).then((result) => settled(call, result));
  };

  function settled(call: ResumedCall, result: RunResult): ExecutedCall | Answered | Promise<Answered> {
    if (result.status === "done") return passOn.executed(call, result.value);
    if (result.status === "input") return asking(call, result.round);
    return answer(call, "execute", failed(call, result.error, result.stop, result.timedOut));
  }

  /** The capability asked the client something: the questions, with the round's state to come back with. */
  async function asking(call: ResumedCall, round: OpenRound): Promise<Answered> {
    const { entry, options } = call;
    const subject = { tool: entry.fullName, args: call.args, caller: options.caller?.id };
    // Reaching this stage, a dangerous call was confirmed: its next rounds are not asked about again.
    const state = await unlessUnavailable(carry(subject, round.next(call.runnable.risk === "dangerous")));
    if (state === undefined) {
      const message = `${entry.fullName} did not finish: it asks the client a question, whose state cannot be kept while the shared state store cannot be reached; retry shortly`;
      return answer(call, "execute", failureOutcome(call, "UNAVAILABLE", message, { retryable: true }));
    }
    const outcome = failureOutcome(
      call,
      "UNAVAILABLE",
      `${entry.fullName} needs an answer from the client first (${Object.keys(round.questions).join(", ")}); use a client that supports ${featuresOf(round.questions)}`,
      { retryable: true },
    );
    return answer(call, "execute", { ...outcome, input: { requests: { ...round.questions }, state } });
  }

  function failed(call: ResumedCall, error: unknown, stop: { aborted: boolean }, timedOut: boolean): Outcome {
    const { entry } = call;
    const place = entry.instance.where;
    if (error instanceof QueueFullError) {
      return failureOutcome(
        call,
        "RATE_LIMITED",
        `${entry.instance.id} is busy (${error.message}); try again shortly, or raise concurrency/queue for ${place}`,
        { retryable: true },
      );
    }
    if (timedOut) {
      return failureOutcome(
        call,
        "TIMEOUT",
        `${entry.fullName} did not finish within ${entry.timeoutMs} ms and was stopped; try narrower arguments, or raise timeoutMs for ${place}`,
        { retryable: true },
      );
    }
    const outcome = thrownOutcome(call, error, stop);
    if (outcome.envelope.ok === false && outcome.envelope.error.code === "INTERNAL") {
      logger.error({ err: error, traceId: call.traceId, tool: entry.fullName }, "tool threw an unexpected error");
    }
    return outcome;
  }
}

/** The MCP features a round's questions need, for a message. */
function featuresOf(questions: Readonly<Record<string, InputRequest>>): string {
  const names = { "elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots" };
  return [...new Set(Object.values(questions).map((q) => names[q.method]))].join(" and ");
}
