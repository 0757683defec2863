import type { Logger } from "../../logging/logger.js";
import type { Answered, Call, StageName } from "../call.js";
import { answer } from "../call.js";
import { failureOutcome } from "../envelope.js";
import { SchemaCompileError } from "../validators.js";

/** A tool's schema that does not compile is the skill's fault: INTERNAL for the caller, the details in the log. */
export function schemaFailure(call: Call, stage: StageName, error: unknown, logger: Logger): Answered {
  if (!(error instanceof SchemaCompileError)) throw error;
  logger.error(
    { err: error, traceId: call.traceId, tool: call.entry.fullName },
    "a schema of the tool does not compile",
  );
  return answer(
    call,
    stage,
    failureOutcome(
      call,
      "INTERNAL",
      `${call.entry.fullName} has a schema the host cannot compile (${error.message}); tell the skill's author`,
    ),
  );
}
