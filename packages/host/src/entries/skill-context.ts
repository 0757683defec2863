import type { ElicitAnswer, JsonSchema, SampleAnswer, SkillContext } from "@skillport/core";
import { SkillError, toJsonSchema } from "@skillport/core";
import type { RunCall } from "./tool-entry.js";

/** What the instance contributes to a capability's context, wherever the capability runs. */
export interface InstanceParts {
  config: unknown;
  /** The credentials the skill reads itself (those it declares with `fetch` are held back). */
  credentials: Readonly<Record<string, string | undefined>>;
  hasCredential(name: string): boolean;
  fetch: SkillContext["fetch"];
}

/**
 * A capability's `ctx`, built the same way in the host's process and inside a worker or child process: the call's
 * parts (signal, traceId, caller, progress, log, findSecret, input) and the instance's (config, credentials, fetch).
 */
export function createSkillContext(call: RunCall, instance: InstanceParts): SkillContext {
  // Questions are keyed by their place among the run's questions of a kind, unless the skill names them: a run
  // started again with the answers asks the same questions in the same order, and finds their answers.
  const counts = { elicit: 0, sample: 0, roots: 0 };
  const ctx: Omit<SkillContext, "signal" | "log"> & { [RUN]: RunCall } = {
    token: instance.credentials.token,
    credentials: instance.credentials,
    hasCredential: (name) => instance.hasCredential(name),
    config: instance.config,
    traceId: call.traceId,
    progress: call.progress,
    fetch: instance.fetch,
    findSecret: call.findSecret,
    clientSupports: (feature) => call.input.supports(feature),
    async elicit<T>(request: Parameters<SkillContext["elicit"]>[0]): Promise<ElicitAnswer<T>> {
      const key = keyOf(request.key, "elicit", ++counts.elicit);
      const requestedSchema = elicitSchema(request.schema);
      const answer = (await call.input.ask(key, {
        method: "elicitation/create",
        params: { message: String(request.message), requestedSchema },
      })) as { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
      return answer.action === "accept"
        ? { action: "accept", content: (answer.content ?? {}) as T }
        : { action: answer.action };
    },
    async sample(request) {
      const key = keyOf(request.key, "sample", ++counts.sample);
      const { key: _key, ...params } = request;
      return (await call.input.ask(key, {
        method: "sampling/createMessage",
        params: JSON.parse(JSON.stringify(params)) as Record<string, unknown>,
      })) as SampleAnswer;
    },
    async listRoots(options = {}) {
      const key = keyOf(options.key, "roots", ++counts.roots);
      const answer = (await call.input.ask(key, { method: "roots/list", params: {} })) as {
        roots: { uri: string; name?: string }[];
      };
      return answer.roots;
    },
    [RUN]: call,
  };
  if (call.caller !== undefined) ctx.auth = { id: call.caller.id, scopes: call.caller.scopes };
  // The signal and the log complete the context: `ctx` has every part of a SkillContext from here on. Defined one by
  // one: Object.defineProperties reads its descriptors anew on every call, twice the cost.
  Object.defineProperty(ctx, "signal", SIGNAL);
  Object.defineProperty(ctx, "log", LOG);
  return ctx as unknown as SkillContext;
}

// --- internal ---

const RUN = Symbol("skillport.run");

/**
 * `ctx.signal` and `ctx.log`, read from the call on first use: most capabilities touch neither, and Node makes each
 * signal slowly (see CallStop). Own enumerable getters, so `{ ...ctx }` still copies them, defined with these shared
 * functions: V8 (Node 20) makes an object literal with getters of its own in dictionary mode, which costs
 * microseconds a call and kept each call's objects alive into the old generation (bench/RESULTS.md).
 */
const SIGNAL: PropertyDescriptor = {
  get(this: { [RUN]: RunCall }) {
    return this[RUN].signal;
  },
  enumerable: true,
};
const LOG: PropertyDescriptor = {
  get(this: { [RUN]: RunCall }) {
    return this[RUN].log;
  },
  enumerable: true,
};

const KEY = /^[A-Za-z0-9._-]{1,64}$/;

function keyOf(given: string | undefined, kind: string, place: number): string {
  if (given === undefined) return `${kind}-${place}`;
  if (!KEY.test(given)) {
    throw new SkillError({
      code: "INTERNAL",
      message: `the question key "${given}" is invalid; use 1-64 letters, digits, ".", "_" or "-"`,
    });
  }
  return given;
}

/** The schema a question publishes: JSON Schema without its dialect, as MCP's requestedSchema. */
function elicitSchema(schema: Parameters<SkillContext["elicit"]>[0]["schema"]): JsonSchema {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema);
  if (rest.type !== "object") {
    throw new SkillError({ code: "INTERNAL", message: "ctx.elicit needs an object schema for the answer" });
  }
  return rest;
}
