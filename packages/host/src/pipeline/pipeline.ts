import { randomUUID } from "node:crypto";
import type { SkillContext, SkillLogger } from "@skillport/core";
import { createAjv } from "../ajv.js";
import { SkillportError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Registry, ToolEntry } from "../registry/registry.js";
import type { Caller } from "./check-scopes.js";
import { missingScopes } from "./check-scopes.js";
import type { CallFacts, CallOutcome } from "./envelope.js";
import { failureOutcome, successOutcome, thrownOutcome } from "./envelope.js";
import { SchemaCompileError, validateArguments } from "./validate-arguments.js";

/** Options for one call. */
export interface CallOptions {
  /** Aborted when the client cancels; passed to the capability as `ctx.signal`. */
  signal?: AbortSignal;
  /** Receives `ctx.progress` reports; set when the client asked for progress. */
  onProgress?: (progress: number, total: number | undefined, message: string | undefined) => void;
  /**
   * Who is calling over an authenticated transport; the tool's scopes are checked against it and it reaches the
   * capability as `ctx.auth`. Unset for local calls, which are not checked.
   */
  caller?: Caller;
}

/** Runs calls through the stages: resolve → validate → inject → run → shape. */
export interface Pipeline {
  /** Throws SkillportError UNKNOWN_TOOL for a name not in the table; every other failure is an envelope. */
  call(fullName: string, args: unknown, options?: CallOptions): Promise<CallOutcome>;
}

/** Builds the call pipeline over a registry. Validators compile lazily, once per tool. */
export function createPipeline(registry: Registry, logger: Logger): Pipeline {
  const ajv = createAjv();
  const neverAborted = new AbortController().signal;

  return {
    async call(fullName, args, options = {}) {
      const entry = registry.tools.get(fullName);
      if (entry === undefined) {
        throw new SkillportError(
          "UNKNOWN_TOOL",
          `unknown tool "${fullName}"; tools/list names the tools this server has`,
        );
      }
      const facts: CallFacts = { entry, traceId: randomUUID(), startedAt: performance.now() };
      const signal = options.signal ?? neverAborted;
      const input = args ?? {};

      const missing = missingScopes(entry, options.caller);
      if (missing !== undefined) {
        return failureOutcome(
          facts,
          "PERMISSION_DENIED",
          `${fullName} requires the scope${missing.length === 1 ? "" : "s"} ${missing.join(", ")}, which caller "${options.caller?.id}" does not hold; ask for a token with ${missing.length === 1 ? "it" : "them"}`,
        );
      }

      let problem: ReturnType<typeof validateArguments>;
      try {
        problem = validateArguments(ajv, entry, input);
      } catch (error) {
        if (!(error instanceof SchemaCompileError)) throw error;
        logger.error({ err: error, traceId: facts.traceId, tool: fullName }, "input schema does not compile");
        return failureOutcome(
          facts,
          "INTERNAL",
          `${fullName} has an input schema the host cannot compile; tell the skill's author`,
        );
      }
      if (problem !== undefined) {
        return failureOutcome(facts, "ARGUMENT_INVALID", problem.message, { field: problem.field, retryable: true });
      }

      const ctx = contextFor(entry, facts, signal, options, logger);
      try {
        const value = await entry.tool.run(input as Record<string, unknown>, ctx);
        return successOutcome(value, facts);
      } catch (error) {
        const outcome = thrownOutcome(error, facts, signal);
        if (outcome.envelope.ok === false && outcome.envelope.error.code === "INTERNAL") {
          logger.error({ err: error, traceId: facts.traceId, tool: fullName }, "tool threw an unexpected error");
        }
        return outcome;
      }
    },
  };
}

// --- internal ---

function contextFor(
  entry: ToolEntry,
  facts: CallFacts,
  signal: AbortSignal,
  options: CallOptions,
  logger: Logger,
): SkillContext {
  let child: Logger | undefined;
  const log = (level: "debug" | "info" | "warn" | "error") => (message: string, data?: Record<string, unknown>) => {
    child ??= logger.child({ traceId: facts.traceId, tool: entry.fullName });
    child[level](data ?? {}, message);
  };
  const skillLog: SkillLogger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
  return {
    token: undefined,
    credentials: {},
    signal,
    config: entry.instance.config,
    traceId: facts.traceId,
    log: skillLog,
    progress: (done, total, message) => options.onProgress?.(done, total, message),
    ...(options.caller === undefined ? {} : { auth: { id: options.caller.id, scopes: options.caller.scopes } }),
  };
}
