import { deeperThan } from "../../json/json-pointer.js";
import type { Logger } from "../../logging/logger.js";
import type { Answered, LoadedCall, MigratedCall } from "../call.js";
import { answer, passOn } from "../call.js";
import { failureOutcome } from "../envelope.js";
import type { Validators } from "../validators.js";
import { schemaFailure } from "./schema-failure.js";

/** The argument a dangerous tool's call carries to confirm an operation id. Advertised where the manifest takes them. */
export const CONFIRM_ARGUMENT = "_confirm";

/** How deeply call arguments may nest: far beyond any tool's schema, far below a stack overflow. */
const MAX_ARGUMENT_DEPTH = 64;

/**
 * Arguments in the current shape: an object, no deeper than MAX_ARGUMENT_DEPTH (checked before anything recursive
 * sees them), the host's `_confirm` split off a dangerous call's, and a call in one of the tool's legacy shapes
 * migrated, with the shape's note as a warning. Validation against the current schema is the next stage's.
 */
export function createMigrate(validators: Validators, logger: Logger) {
  return function migrate(call: LoadedCall): MigratedCall | Answered {
    const { entry, runnable } = call;
    const input = call.input ?? {};
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return refuse(call, "/", "arguments must be a JSON object");
    }
    const deep = deeperThan(input, MAX_ARGUMENT_DEPTH);
    if (deep !== undefined) {
      return refuse(
        call,
        deep,
        `invalid arguments for ${entry.fullName}: they nest deeper than ${MAX_ARGUMENT_DEPTH} levels (at ${deep}); flatten them`,
      );
    }
    let args = input as Record<string, unknown>;
    let operationId: unknown;
    if (runnable.risk === "dangerous" && Object.hasOwn(args, CONFIRM_ARGUMENT)) {
      const { [CONFIRM_ARGUMENT]: given, ...rest } = args;
      operationId = given;
      args = rest;
    }
    if (runnable.legacy.length === 0) return passOn.migrated(call, args, operationId, []);
    try {
      // Checked on copies: validation fills in defaults, and a legacy shape may not allow them.
      if (validators.input(runnable)(structuredClone(args)) === undefined) {
        return passOn.migrated(call, args, operationId, []);
      }
      for (const [index, matches] of validators.legacy(runnable).entries()) {
        const shape = runnable.legacy[index];
        const candidate = structuredClone(args);
        if (shape === undefined || matches(candidate) !== undefined) continue;
        return passOn.migrated(call, shape.migrate(candidate), operationId, [shape.note]);
      }
    } catch (error) {
      return schemaFailure(call, "migrate", error, logger);
    }
    return passOn.migrated(call, args, operationId, []);
  };
}

// --- internal ---

function refuse(call: LoadedCall, field: string, message: string): Answered {
  return answer(call, "migrate", failureOutcome(call, "ARGUMENT_INVALID", message, { field, retryable: true }));
}
