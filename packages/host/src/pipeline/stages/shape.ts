import { isToolResult } from "@skillport/core";
import { deeperThan } from "../../json/json-pointer.js";
import type { Logger } from "../../logging/logger.js";
import type { Answered, ExecutedCall } from "../call.js";
import { answer } from "../call.js";
import type { ContentBlock } from "../content-blocks.js";
import { ContentError, contentBlocks } from "../content-blocks.js";
import { failureOutcome, successOutcome } from "../envelope.js";
import type { Validators } from "../validators.js";
import { schemaFailure } from "./schema-failure.js";

/** How deeply a result may nest: far beyond any tool's data, well below what serialising it would overflow. */
const MAX_RESULT_DEPTH = 2048;

/**
 * The envelope of what the capability returned, its `data` checked against the tool's output schema: clients
 * validate `structuredContent` against the advertised schema, so data that drifted from it answers INTERNAL here
 * (with the JSON path in the log) rather than breaking the client. Data nested too deeply for any transport to send
 * answers INTERNAL too.
 */
export function createShape(validators: Validators, logger: Logger) {
  return function shape(call: ExecutedCall): Answered {
    const { runnable } = call;
    const deep = deeperThan(call.value, MAX_RESULT_DEPTH);
    if (deep !== undefined) {
      return refuse(
        call,
        { at: deep },
        `answered with data nested deeper than ${MAX_RESULT_DEPTH} levels, which cannot be sent`,
      );
    }
    let content: ContentBlock[] | undefined;
    try {
      const own = isToolResult(call.value) ? call.value.content : undefined;
      content = own === undefined ? undefined : contentBlocks(own, call.entry.mount);
    } catch (error) {
      if (!(error instanceof ContentError)) throw error;
      return refuse(call, { problem: error.message }, "answered with content that is not MCP content");
    }
    const outcome = {
      ...successOutcome(call, call.value, runnable.title, call.warnings),
      ...(content === undefined ? {} : { content }),
    };
    let problem: ReturnType<NonNullable<ReturnType<Validators["output"]>>>;
    try {
      problem = validators.output(runnable)?.(outcome.envelope.ok ? outcome.envelope.data : undefined);
    } catch (error) {
      return schemaFailure(call, "shape", error, logger);
    }
    if (problem === undefined) return answer(call, "shape", outcome);
    const at = `/data${problem.where === "/" ? "" : problem.where}`;
    return refuse(call, { at, problem: problem.message }, "answered with data that does not match its output schema");
  };

  function refuse(call: ExecutedCall, details: Record<string, string>, what: string): Answered {
    logger.error({ traceId: call.traceId, tool: call.entry.fullName, ...details }, `a tool ${what}`);
    return answer(
      call,
      "shape",
      failureOutcome(
        call,
        "INTERNAL",
        `${call.entry.fullName} ${what}; the server log has the details under traceId ${call.traceId}`,
      ),
    );
  }
}
