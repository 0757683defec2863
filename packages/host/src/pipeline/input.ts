import type { ValidateFunction } from "ajv";
import type { InputChannel, InputFeature, InputRequest } from "../entries/tool-entry.js";
import type { SchemaCompiler } from "../schema/ajv.js";
import type { CallStop } from "./call-stop.js";
import type { InputRound } from "./confirmations.js";

/** What the client sent about input: what it can answer, and its answers to the previous round, if any. */
export interface CallInput {
  /** Whether the client can answer each kind of question. */
  supports: Readonly<Record<InputFeature, boolean>>;
  /** The client's answers to the previous round's questions, by key, as the request carried them. */
  responses?: Readonly<Record<string, unknown>> | undefined;
  /** The state this server minted for the previous round (`requestState`), as the client sent it back. */
  state?: string | undefined;
}

/** Ends a run that asked the client something it has not answered yet; the pipeline asks, then runs it again. */
export class InputNeeded extends Error {
  override readonly name = "InputNeeded";
}

/** How a round ends its run: the run's own stop (see {@link CallStop}). */
export type RunStop = Pick<CallStop, "aborted" | "reason" | "abort" | "onAbort">;

/** One run's questions and answers. */
export interface OpenRound {
  readonly channel: InputChannel;
  /** The questions noted, by key. */
  readonly questions: Readonly<Record<string, InputRequest>>;
  /** What to carry to the next round: the answers used and the questions asked. */
  next(confirmed: boolean): InputRound;
}

/**
 * Opens a round: answers come from the earlier rounds (`prior`, verified state) and from the client's responses to
 * the questions the previous round asked (responses to anything else are ignored); on a first call, which carries no
 * state, from the responses the client sent along for the questions the run asks. An answer is used only when it has
 * the shape of an answer to the question asked now (an elicitation's content valid against its schema); anything
 * else counts as unanswered, and the question is asked again. (A dangerous tool's confirmation is not one of these
 * questions: it counts only with the state of the question this server asked.) A question left unanswered ends the
 * run: `stop` aborts the run with {@link InputNeeded} in the turn after it was asked (questions asked in the
 * same turn go out together).
 */
export function openRound(
  input: CallInput | undefined,
  prior: InputRound | undefined,
  ajv: SchemaCompiler,
  stop: RunStop,
): OpenRound {
  const answers: Record<string, unknown> = prior === undefined ? {} : { ...prior.answers };
  const responses = input?.responses ?? {};
  if (prior !== undefined) {
    for (const [key, method] of Object.entries(prior.asked)) {
      const response = responses[key];
      if (response !== undefined && Object.hasOwn(responses, key)) answers[key] = { method, response };
    }
  }
  // A first call (no round state) may carry its answers already, as a client that knows the questions sends them:
  // each is taken for the question of its key this run asks, when it answers that kind of question in its shape.
  const firstRound = prior === undefined && input?.state === undefined;
  const used: Record<string, unknown> = {};
  const questions: Record<string, InputRequest> = {};
  let scheduled = false;
  const channel: InputChannel = {
    supports: (feature) => input?.supports[feature] === true,
    ask(key, request) {
      const unasked =
        firstRound && Object.hasOwn(responses, key) ? { method: request.method, response: responses[key] } : undefined;
      const given = Object.hasOwn(answers, key) ? answers[key] : unasked;
      const answer = given === undefined ? undefined : answerFor(given, request, ajv);
      if (answer !== undefined) {
        used[key] = given;
        return Promise.resolve(answer);
      }
      questions[key] = request;
      // Questions asked in the same turn go out together.
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => stop.abort(new InputNeeded("the client must answer first")));
      }
      // Settles when the run ends, whatever ends it (this question, a cancel, the timeout).
      return new Promise((_resolve, reject) => {
        stop.onAbort(reject);
      });
    },
  };
  return {
    channel,
    questions,
    next: (confirmed) => ({
      answers: used,
      asked: Object.fromEntries(Object.entries(questions).map(([key, q]) => [key, q.method])),
      confirmed,
    }),
  };
}

// --- internal ---

/** The bare answer to `request` when `given` is one (an answer to the same kind of question), else undefined. */
function answerFor(given: unknown, request: InputRequest, ajv: SchemaCompiler): unknown {
  // Answers from the client arrive wrapped with the method they answer; answers carried in state were checked.
  const { method, response } = given as { method?: unknown; response?: unknown };
  if (method !== request.method || typeof response !== "object" || response === null) return undefined;
  const answer = response as Record<string, unknown>;
  switch (request.method) {
    case "elicitation/create": {
      if (answer.action === "decline" || answer.action === "cancel") return { action: answer.action };
      if (answer.action !== "accept") return undefined;
      const content = answer.content ?? {};
      if (typeof content !== "object" || content === null || Array.isArray(content)) return undefined;
      const validate = compiled(ajv, request.params.requestedSchema);
      return validate(structuredClone(content)) ? { action: "accept", content } : undefined;
    }
    case "sampling/createMessage": {
      const content = answer.content as { type?: unknown } | undefined;
      return typeof content === "object" && content !== null && typeof content.type === "string" ? answer : undefined;
    }
    case "roots/list": {
      const roots = answer.roots;
      return Array.isArray(roots) && roots.every((r) => typeof (r as { uri?: unknown })?.uri === "string")
        ? { roots }
        : undefined;
    }
  }
}

/** Compiled question schemas, by their text: the same question comes back on every round. */
const validators = new WeakMap<SchemaCompiler, Map<string, (value: unknown) => boolean>>();

function compiled(ajv: SchemaCompiler, schema: Record<string, unknown>): (value: unknown) => boolean {
  let cache = validators.get(ajv);
  if (cache === undefined) {
    cache = new Map();
    validators.set(ajv, cache);
  }
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (validate === undefined) {
    const { $schema: _dialect, ...rest } = schema;
    let compiledSchema: ValidateFunction | undefined;
    try {
      compiledSchema = ajv.compile(rest);
    } catch {
      compiledSchema = undefined; // a question whose schema does not compile takes no answer
    }
    validate = (value) => compiledSchema?.(value) === true;
    if (cache.size >= 256) cache.clear();
    cache.set(key, validate);
  }
  return validate;
}
