// The inside of an isolated instance, shared by a worker thread (worker-main) and a child process (process-main):
// imports one skill, builds each call's context and answers the host's call messages.
import type { ErrorCode, RegisteredSkill, SecretFinding } from "@skillport/core";
import { isSkillError, isToolResult, SkillError } from "@skillport/core";
import { capabilityOf, describeTarget } from "../capability.js";
import { importSkill } from "../register-of.js";
import { createSkillContext } from "../skill-context.js";
import type { FromWorker, ProxiedResponse, ToWorker, WorkerSetup } from "./worker-protocol.js";

/** How the runner talks to the host. */
export interface RunnerChannel {
  send(message: FromWorker): void;
  onMessage(listener: (message: ToWorker) => void): void;
}

/**
 * Imports the setup's skill, then answers calls until the host stops the isolate. Sends `ready` once the skill is
 * imported; an import failure rejects (the isolate dies and the host reports it).
 */
export async function runIsolated(setup: WorkerSetup, channel: RunnerChannel): Promise<void> {
  const { send } = channel;
  // A stray rejection or throw in a capability must not end the isolate between calls.
  process.on("unhandledRejection", (reason) =>
    send({ type: "stray", message: String((reason as Error)?.message ?? reason) }),
  );
  // The same import and register() checks as the host's own.
  const skill: RegisteredSkill = await importSkill(setup.entryUrl, "the isolated skill");
  const controllers = new Map<number, AbortController>();
  // Questions to the host (is this a secret? fetch this? what did the client answer?), waiting, by ask number.
  const asks = new Map<number, (answer: unknown) => void>();
  let nextAsk = 1;
  const ask = <T>(question: (n: number) => FromWorker) =>
    new Promise<T>((resolve) => {
      const n = nextAsk++;
      asks.set(n, resolve as (answer: unknown) => void);
      send(question(n));
    });
  const answer = (n: number, value: unknown) => {
    asks.get(n)?.(value);
    asks.delete(n);
  };
  const configured = new Set(setup.configured);

  channel.onMessage((message) => {
    if (message.type === "secret-found") answer(message.ask, message.finding);
    else if (message.type === "fetched") answer(message.ask, message.response);
    else if (message.type === "input-answer") answer(message.ask, message.answer);
    else if (message.type === "abort") {
      controllers
        .get(message.id)
        ?.abort(new DOMException(message.reason, message.reason === "timeout" ? "TimeoutError" : "AbortError"));
    } else if (message.type === "call") void run(message);
  });
  send({ type: "ready" });

  /** `ctx.fetch` inside the isolate: the host runs the request and adds the credentials it holds. */
  async function proxiedFetch(id: number, signal: AbortSignal, input: string | URL, init?: RequestInit) {
    const own = init?.signal ?? signal;
    own.throwIfAborted();
    const request = new Request(input, init);
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    own.throwIfAborted();
    let n = 0;
    const answered = ask<ProxiedResponse>((k) => {
      n = k;
      return {
        type: "fetch",
        id,
        ask: k,
        request: {
          url: request.url,
          method: request.method,
          headers: [...request.headers],
          body,
          redirect: request.redirect,
        },
      };
    });
    let onAbort: () => void = () => undefined;
    try {
      const response = await new Promise<ProxiedResponse>((resolve, reject) => {
        // The skill gave up: the host stops the request, and the skill sees its own abort reason at once.
        onAbort = () => {
          send({ type: "fetch-abort", id, ask: n });
          reject(own.reason);
        };
        own.addEventListener("abort", onAbort, { once: true });
        answered.then(resolve, reject);
      });
      return responseOf(response);
    } finally {
      own.removeEventListener("abort", onAbort);
    }
  }

  async function run(call: Extract<ToWorker, { type: "call" }>) {
    const { id, target, params, traceId, auth } = call;
    const capability = capabilityOf(skill, target);
    const supports = new Set(call.supports);
    const controller = new AbortController();
    controllers.set(id, controller);
    const log = (level: "debug" | "info" | "warn" | "error") => (text: string, data?: Record<string, unknown>) =>
      send({
        type: "log",
        id,
        level,
        message: text,
        data: data === undefined ? undefined : JSON.parse(JSON.stringify(data)),
      });
    const ctx = createSkillContext(
      {
        signal: controller.signal,
        traceId,
        caller: auth,
        progress: (done, total, text) => send({ type: "progress", id, done, total, message: text }),
        log: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
        // The secrets stay in the host: the content goes there to be checked.
        findSecret: (content) => ask<SecretFinding | undefined>((n) => ({ type: "find-secret", id, ask: n, content })),
        input: {
          supports: (feature) => supports.has(feature),
          // The host answers at once when the client already did; else it ends the run, which aborts it here.
          ask: (key, request) =>
            untilAborted(
              ask<unknown>((n) => ({ type: "input", id, ask: n, key, request })),
              controller.signal,
            ),
        },
      },
      {
        config: setup.config,
        credentials: call.own?.credentials ?? setup.credentials,
        hasCredential: (credential) =>
          call.own === undefined ? configured.has(credential) : call.own.configured.includes(credential),
        fetch: (input, init) => proxiedFetch(id, controller.signal, input, init),
      },
    );
    try {
      if (capability === undefined) throw new Error(`the isolated skill has no ${describeTarget(target)}`);
      const value = await capability(params, ctx);
      // A result's brand is a symbol, which structured cloning drops: send its parts.
      const {
        data,
        message: text,
        evidencePaths,
        warnings,
        partial,
        content,
      } = isToolResult(value)
        ? value
        : {
            data: value,
            message: undefined,
            evidencePaths: undefined,
            warnings: undefined,
            partial: undefined,
            content: undefined,
          };
      send({
        type: "done",
        id,
        ok: true,
        result: { data, message: text, evidencePaths, warnings, partial, content, wrapped: isToolResult(value) },
      });
    } catch (error) {
      const e = error as Error & { code?: string; field?: string; retryable?: boolean; status?: number };
      send({
        type: "done",
        id,
        ok: false,
        error: isSkillError(error)
          ? { skill: true, code: e.code, message: e.message, field: e.field, retryable: e.retryable, status: e.status }
          : { skill: false, name: e?.name, message: String(e?.message ?? error), stack: e?.stack },
      });
    } finally {
      controllers.delete(id);
    }
  }
}

// --- internal ---

/** Settles with the work, or rejects with the signal's reason once it aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** No body may come with these statuses (`new Response` refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function responseOf(answer: ProxiedResponse): Response {
  if (!answer.ok) {
    if (answer.skillCode !== undefined) {
      throw new SkillError({ code: answer.skillCode as ErrorCode, message: answer.message });
    }
    if (answer.name === "AbortError" || answer.name === "TimeoutError")
      throw new DOMException(answer.message, answer.name);
    const error = new TypeError(
      answer.message,
      answer.code === undefined ? undefined : { cause: { code: answer.code } },
    );
    throw error;
  }
  const response = new Response(NULL_BODY.has(answer.status) ? null : answer.body, {
    status: answer.status,
    statusText: answer.statusText,
    headers: answer.headers,
  });
  // A constructed Response has no URL; the skill may read where a redirect ended.
  Object.defineProperty(response, "url", { value: answer.url });
  return response;
}
