import { showInvisible } from "../../entries/show-invisible.js";
import type { Logger } from "../../logging/logger.js";
import type { Answered, MigratedCall, ValidatedCall } from "../call.js";
import { answer, passOn } from "../call.js";
import { failureOutcome } from "../envelope.js";
import type { Validators } from "../validators.js";
import { schemaFailure } from "./schema-failure.js";

/**
 * The arguments against the tool's published JSON Schema (compiled once, first error wins, defaults filled in), and
 * the brief of what they will do, every invisible or reordering character shown as an escape (a brief of several
 * lines keeps only the breaks between them).
 */
export function createValidate(validators: Validators, logger: Logger) {
  return function validate(call: MigratedCall): ValidatedCall | Answered {
    const { entry, runnable, input } = call;
    let problem: ReturnType<ReturnType<Validators["input"]>>;
    try {
      problem = validators.input(runnable)(input);
    } catch (error) {
      return schemaFailure(call, "validate", error, logger);
    }
    if (problem !== undefined) {
      const what = problem.where === "/" ? "the arguments" : problem.where.slice(1);
      return answer(
        call,
        "validate",
        failureOutcome(
          call,
          "ARGUMENT_INVALID",
          `invalid arguments for ${entry.fullName}: ${what} ${problem.message}`,
          {
            field: problem.where,
            retryable: true,
          },
        ),
      );
    }
    const brief = runnable.brief(input);
    return passOn.validated(call, input, brief === undefined ? undefined : shown(brief));
  };
}

// --- internal ---

/** A brief as the user reads it: a line escaped whole; lines each escaped, and joined with line breaks. */
function shown(brief: string | readonly string[]): string {
  return typeof brief === "string" ? showInvisible(brief) : brief.map(showInvisible).join("\n");
}
