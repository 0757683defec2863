import type { SkillLogger } from "@skillport/core";
import type { RunCall, ToolOwner } from "../../entries/tool-entry.js";
import type { Logger } from "../../log.js";
import type { Answered, ExecutedCall, ValidatedCall } from "../call.js";
import { answer } from "../call.js";
import type { Outcome } from "../envelope.js";
import { failureOutcome, thrownOutcome } from "../envelope.js";
import { Limiter, QueueFullError } from "../limiter.js";
import type { Redactor } from "../redact.js";
import { throttleProgress } from "../throttle-progress.js";

/** What running calls needs. */
export interface ExecuteOptions {
  logger: Logger;
  redactor: Redactor;
}

/**
 * Runs the call within its bounds: a slot of the instance's concurrency (or a place in its queue, else
 * RATE_LIMITED), the tool's timeout (TIMEOUT) and the client's cancel (CANCELLED), one signal for both; progress
 * throttled. A capability that ignores its signal is answered for all the same when the signal aborts.
 */
export function createExecute({ logger, redactor }: ExecuteOptions) {
  const limiters = new Map<ToolOwner, Limiter>();
  const limiterOf = (instance: ToolOwner) => {
    let limiter = limiters.get(instance);
    if (limiter === undefined) {
      limiter = new Limiter(instance.concurrency, instance.queue);
      limiters.set(instance, limiter);
    }
    return limiter;
  };

  return async function execute(call: ValidatedCall): Promise<ExecutedCall | Answered> {
    const { entry, options } = call;
    const bounds = callSignal(options.signal, entry.timeoutMs);
    const { signal } = bounds;
    const progress = options.onProgress === undefined ? undefined : throttleProgress(options.onProgress);
    let release: (() => void) | undefined;
    try {
      release = await limiterOf(entry.instance).acquire(signal);
      const run: RunCall = {
        signal,
        traceId: call.traceId,
        caller: options.caller,
        progress: (done, total, message) => progress?.report(done, total, message),
        log: skillLogger(logger, call),
        findSecret: async (content) => redactor.find(content),
      };
      const running = call.runnable.run(call.args, run);
      running.catch(() => undefined); // answered below; a late rejection after an abort is expected
      return { ...call, value: await untilAborted(running, signal) };
    } catch (error) {
      return answer(call, "execute", failed(call, error, signal, bounds.timedOut));
    } finally {
      bounds.dispose();
      release?.();
      progress?.close();
    }
  };

  function failed(call: ValidatedCall, error: unknown, signal: AbortSignal, timedOut: boolean): Outcome {
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
    const outcome = thrownOutcome(call, error, signal);
    if (outcome.envelope.ok === false && outcome.envelope.error.code === "INTERNAL") {
      logger.error({ err: error, traceId: call.traceId, tool: entry.fullName }, "tool threw an unexpected error");
    }
    return outcome;
  }
}

// --- internal ---

/**
 * The one signal a call runs under: aborted by the client's cancel (with its reason) or at the tool's timeout (a
 * TimeoutError, as AbortSignal.timeout gives). One controller and one timer per call, both released when it ends:
 * cheaper than AbortSignal.timeout + AbortSignal.any, whose signals Node tracks until they are collected.
 */
function callSignal(client: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const onClientAbort = () => controller.abort(client?.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
  }, timeoutMs);
  timer.unref();
  if (client?.aborted) controller.abort(client.reason);
  else client?.addEventListener("abort", onClientAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      client?.removeEventListener("abort", onClientAbort);
    },
  };
}

/** A capability's log lines, bound to the call (the host's logger redacts every line). */
function skillLogger(logger: Logger, call: ValidatedCall): SkillLogger {
  let child: Logger | undefined;
  const at = (level: "debug" | "info" | "warn" | "error") => (message: string, data?: Record<string, unknown>) => {
    child ??= logger.child({ traceId: call.traceId, tool: call.entry.fullName });
    child[level](data ?? {}, message);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Settles with the work, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
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
