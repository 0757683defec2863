// The entry of an isolation worker: imports one skill instance and runs its capabilities on request.
// Receives only its own instance's config and credentials (workerData).
import { parentPort, workerData } from "node:worker_threads";
import type { RegisteredSkill, RegisterSkill, SecretFinding, SkillContext } from "@skillport/core";
import { isSkillError, isToolResult } from "@skillport/core";
import type { FromWorker, ToWorker, WorkerSetup } from "./worker-protocol.js";

const setup = workerData as WorkerSetup;
const port = parentPort;
if (port === null) throw new Error("worker-main must run in a worker thread");
const send = (message: FromWorker) => port.postMessage(message);

// A stray rejection or throw in a capability must not end the worker between calls.
process.on("unhandledRejection", (reason) =>
  send({ type: "stray", message: String((reason as Error)?.message ?? reason) }),
);

const module = (await import(setup.entryUrl)) as { register?: RegisterSkill; default?: RegisterSkill };
const skill: RegisteredSkill = (module.register ?? (module.default as RegisterSkill))();
const controllers = new Map<number, AbortController>();
// Questions to the host (is this content a secret?) waiting for their answer, by ask number.
const asks = new Map<number, (finding: SecretFinding | undefined) => void>();
let nextAsk = 1;

port.on("message", (message: ToWorker) => {
  if (message.type === "secret-found") {
    asks.get(message.ask)?.(message.finding);
    asks.delete(message.ask);
    return;
  }
  if (message.type === "abort") {
    controllers
      .get(message.id)
      ?.abort(new DOMException(message.reason, message.reason === "timeout" ? "TimeoutError" : "AbortError"));
    return;
  }
  void run(message.id, message.tool, message.params, message.traceId, message.auth);
});
send({ type: "ready" });

async function run(
  id: number,
  name: string,
  params: Record<string, unknown>,
  traceId: string,
  auth: SkillContext["auth"],
) {
  const tool = skill.tools.find((t) => t.name === name);
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
  const ctx: SkillContext = {
    token: setup.credentials.token,
    credentials: setup.credentials,
    ...(auth === undefined ? {} : { auth }),
    signal: controller.signal,
    config: setup.config,
    traceId,
    progress: (done, total, text) => send({ type: "progress", id, done, total, message: text }),
    log: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
    fetch: (input, init) => fetch(input, { ...init, signal: init?.signal ?? controller.signal }),
    // The secrets stay in the host: the content goes there to be checked.
    findSecret: (content) =>
      new Promise((resolve) => {
        const ask = nextAsk++;
        asks.set(ask, resolve);
        send({ type: "find-secret", id, ask, content });
      }),
  };
  try {
    if (tool === undefined) throw new Error(`the worker's skill has no tool "${name}"`);
    const value = await tool.run(params, ctx);
    // A result's brand is a symbol, which structured cloning drops: send its parts.
    const {
      data,
      message: text,
      evidencePaths,
      warnings,
      partial,
    } = isToolResult(value)
      ? value
      : { data: value, message: undefined, evidencePaths: undefined, warnings: undefined, partial: undefined };
    send({
      type: "done",
      id,
      ok: true,
      result: { data, message: text, evidencePaths, warnings, partial, wrapped: isToolResult(value) },
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
