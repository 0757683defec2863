import type { SkillLogger } from "@skillport/core";
import type { RunCall, ToolOwner } from "../entries/tool-entry.js";
import type { Logger } from "../logging/logger.js";
import type { Redactor } from "../redaction/redactor.js";
import { lazyAjv } from "../schema/ajv.js";
import type { CallOptions } from "./call.js";
import { CallStop } from "./call-stop.js";
import type { InputRound } from "./confirmations.js";
import type { OpenRound } from "./input.js";
import { InputNeeded, openRound } from "./input.js";
import { Limiter } from "./limiter.js";
import type { SendProgress } from "./throttle-progress.js";
import { throttleProgress } from "./throttle-progress.js";

/** What one bounded run is for: its instance (concurrency), how it is named in logs, its time limit. */
export interface RunSubject {
  instance: ToolOwner;
  /** How logs name it: the tool's full name, `resource <uri>`, `prompt <name>`. */
  name: string;
  timeoutMs: number;
}

/** How a bounded run ended. */
export type RunResult =
  | { status: "done"; value: unknown; round: OpenRound }
  /** The capability asked the client something it has not answered: ask, then run again. */
  | { status: "input"; round: OpenRound }
  | { status: "failed"; error: unknown; stop: CallStop; timedOut: boolean };

/** Runs capabilities within their bounds; shared by tool calls, reads, renders and completions. */
export type BoundedRun = (
  subject: RunSubject,
  options: CallOptions,
  traceId: string,
  prior: InputRound | undefined,
  run: (call: RunCall) => Promise<unknown>,
) => Promise<RunResult>;

/**
 * Runs one capability within its bounds: a slot of its instance's concurrency (or a place in the queue, else a
 * QueueFullError), its timeout and the client's cancel on one stop, progress throttled and redacted, log lines to the
 * host's log and (redacted) to the client, and its questions to the client collected: a question the client has not answered
 * ends the run (its stop aborts) with status "input". A capability that ignores its signal is answered for all
 * the same when the stop aborts. The concurrency slots are one per instance, whatever runs in them.
 */
export function createBoundedRun({ logger, redactor }: { logger: Logger; redactor: Redactor }): BoundedRun {
  const limiters = new Map<ToolOwner, Limiter>();
  const limiterOf = (instance: ToolOwner) => {
    let limiter = limiters.get(instance);
    if (limiter === undefined) {
      limiter = new Limiter(instance.concurrency, instance.queue);
      limiters.set(instance, limiter);
    }
    return limiter;
  };
  // Answers to questions are checked against the question's own schema: the client's answers are input.
  const ajv = lazyAjv({ firstError: true, fillDefaults: false });

  // Written with callbacks, not async/await: a call makes two promises here (the run's and one reaction to the
  // capability's) instead of five, and keeps no suspended async frame alive while the capability runs.
  return (subject, options, traceId, prior, execute) => {
    const bounds = callStop(options, subject.timeoutMs);
    const { stop } = bounds;
    const round = openRound(options.input, prior, ajv, stop);
    const progress =
      options.onProgress === undefined ? undefined : throttleProgress(redacted(options.onProgress, redactor));
    let release: (() => void) | undefined;
    let ended = false;
    const end = (result: RunResult): RunResult => {
      if (!ended) {
        ended = true;
        bounds.dispose();
        release?.();
        progress?.close();
      }
      return result;
    };
    const fail = (error: unknown): RunResult =>
      end(
        stop.reason instanceof InputNeeded
          ? { status: "input", round }
          : { status: "failed", error, stop, timedOut: bounds.timedOut },
      );
    const run = (slot: () => void) =>
      new Promise<RunResult>((resolve) => {
        release = slot;
        if (stop.aborted) return resolve(fail(stop.reason));
        const call = new BoundCall(stop, {
          traceId,
          caller: options.caller,
          input: round.channel,
          progress: (done, total, message) => progress?.report(done, total, message),
          findSecret: async (content) => redactor.find(content),
          makeLog: () => skillLogger(logger, redactor, subject.name, traceId, options.onLog),
        });
        // Answered when the stop aborts, even if the capability ignores its signal and never settles; whatever it
        // settles with after that is dropped (its rejection included: the reaction below handles it).
        const forget = stop.onAbort((reason) => resolve(fail(reason)));
        let running: Promise<unknown>;
        try {
          running = execute(call);
        } catch (error) {
          forget();
          return resolve(fail(error));
        }
        running.then(
          (value) => {
            forget();
            resolve(end({ status: "done", value, round }));
          },
          (error: unknown) => {
            forget();
            resolve(fail(error));
          },
        );
      });
    // acquire never throws: a full queue or a stopped call is a rejected promise.
    const slot = limiterOf(subject.instance).acquire(stop);
    return slot instanceof Promise ? slot.then(run, fail) : run(slot);
  };
}

// --- internal ---

/**
 * What a run is bounded by: one stop, aborted by the client's cancel (the caller's own stop, or `options.signal`
 * with its reason), by the run's own round when it asked the client something, or at the timeout (a TimeoutError, as
 * AbortSignal.timeout gives). One timer per run, released when it ends; an AbortSignal only if something reads one
 * (see {@link CallStop}).
 */
function callStop(options: CallOptions, timeoutMs: number) {
  const stop = options.stop ?? new CallStop();
  const source = options.signal;
  const onAbort = () => stop.abort(source?.reason);
  const timer = setTimeout(() => {
    bounds.timedOut = true;
    stop.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
  }, timeoutMs);
  timer.unref();
  if (source?.aborted) stop.abort(source.reason);
  else source?.addEventListener("abort", onAbort, { once: true });
  const bounds = {
    stop,
    timedOut: false,
    dispose() {
      clearTimeout(timer);
      source?.removeEventListener("abort", onAbort);
    },
  };
  return bounds;
}

/**
 * A run's {@link RunCall}: its signal and its log are made on first use (most capabilities read neither). A class,
 * not an object literal with getters: V8 (Node 20) makes such a literal in dictionary mode, which costs
 * microseconds a call and kept each call's objects alive into the old generation (see `ctx` in skill-context.ts).
 */
class BoundCall implements RunCall {
  readonly traceId: string;
  readonly caller: RunCall["caller"];
  readonly input: RunCall["input"];
  readonly progress: RunCall["progress"];
  readonly findSecret: RunCall["findSecret"];
  #stop: CallStop;
  #makeLog: () => SkillLogger;
  #log: SkillLogger | undefined;

  constructor(stop: CallStop, parts: Omit<RunCall, "signal" | "log"> & { makeLog: () => SkillLogger }) {
    this.traceId = parts.traceId;
    this.caller = parts.caller;
    this.input = parts.input;
    this.progress = parts.progress;
    this.findSecret = parts.findSecret;
    this.#stop = stop;
    this.#makeLog = parts.makeLog;
  }

  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  get log(): SkillLogger {
    this.#log ??= this.#makeLog();
    return this.#log;
  }
}

/**
 * A progress sender whose messages pass the redactor: the one place every progress notification of a tool call,
 * read, render or completion is made (a skill's `ctx.progress`, in process or isolated, and an upstream server's
 * progress relayed as the call's own), so none reaches the client unredacted. Only what the throttle lets through
 * is redacted. The numbers are numbers: only a message can carry a secret.
 */
function redacted(send: SendProgress, redactor: Redactor): SendProgress {
  return (done, total, message) =>
    send(done, total, message === undefined || !redactor.active ? message : redactor.string(String(message)));
}

const LEVELS = ["debug", "info", "warn", "error"] as const;

/** A capability's log lines, bound to the call: to the host's log (which redacts every line) and to the client. */
function skillLogger(
  logger: Logger,
  redactor: Redactor,
  name: string,
  traceId: string,
  onLog: CallOptions["onLog"],
): SkillLogger {
  let child: Logger | undefined;
  const at = (level: (typeof LEVELS)[number]) => (message: string, data?: Record<string, unknown>) => {
    child ??= logger.child({ traceId, tool: name });
    child[level](data ?? {}, message);
    if (onLog !== undefined) {
      const redacted = redactor.value({ message: String(message), data });
      onLog(level, redacted.message, redacted.data);
    }
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
