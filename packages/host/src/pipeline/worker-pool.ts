import type { Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import type { ErrorCode, SkillContext } from "@skillport/core";
import { result, SkillError } from "@skillport/core";
import type { Logger } from "../log.js";
import type { SkillInstance } from "../registry/registry.js";
import type { FromWorker, ToWorker, WorkerSetup } from "./worker-protocol.js";

/** How long an aborted capability may take to stop by itself before its worker is terminated. */
export const ABORT_GRACE_MS = 500;

/**
 * The built worker entry. Tests run the sources, so from `src/` it points at the built `dist/worker.js`.
 */
const WORKER_URL = import.meta.url.includes("/src/")
  ? new URL("../../dist/worker.js", import.meta.url)
  : new URL("./worker.js", import.meta.url);

/**
 * Runs one instance's capabilities in worker threads, one call per worker at a time, with the manifest's heap
 * limit. A worker stuck in a synchronous loop or out of memory is terminated and replaced; the host and every
 * other instance keep answering. Idle workers do not keep the process alive.
 */
export class WorkerPool {
  private readonly idle: PooledWorker[] = [];
  private nextId = 1;

  constructor(
    private readonly instance: SkillInstance,
    private readonly logger: Logger,
  ) {}

  /** Runs `tool` in a worker. Rejects with a SkillError when the worker dies, with the abort reason on abort. */
  async run(tool: string, params: Record<string, unknown>, ctx: SkillContext): Promise<unknown> {
    const worker = this.idle.pop() ?? (await this.spawn());
    worker.thread.ref();
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      let killTimer: ReturnType<typeof setTimeout> | undefined;
      const settle = (reuse: boolean) => {
        ctx.signal.removeEventListener("abort", onAbort);
        if (killTimer !== undefined) clearTimeout(killTimer);
        worker.current = undefined;
        if (reuse) {
          worker.thread.unref();
          this.idle.push(worker);
        }
      };
      const onAbort = () => {
        const reason = (ctx.signal.reason as Error | undefined)?.name === "TimeoutError" ? "timeout" : "cancel";
        worker.thread.postMessage({ type: "abort", id, reason } satisfies ToWorker);
        // A capability that ignores its signal (or is stuck in a synchronous loop) is stopped the hard way.
        killTimer = setTimeout(() => void worker.thread.terminate(), ABORT_GRACE_MS);
        killTimer.unref();
      };
      worker.current = {
        id,
        onMessage: (message) => {
          if (message.type === "progress") ctx.progress(message.done, message.total, message.message);
          else if (message.type === "find-secret") {
            void ctx
              .findSecret(message.content)
              .then((finding) =>
                worker.thread.postMessage({ type: "secret-found", id, ask: message.ask, finding } satisfies ToWorker),
              );
          } else if (message.type === "log") ctx.log[message.level](message.message, message.data);
          else if (message.type === "done") {
            settle(true);
            if (message.ok) {
              const r = message.result;
              resolve(r.wrapped ? result(r.data, stripUndefined(r)) : r.data);
            } else if (message.error.skill) {
              const e = message.error;
              reject(
                new SkillError({
                  code: (e.code ?? "INTERNAL") as ErrorCode,
                  message: e.message,
                  field: e.field,
                  retryable: e.retryable,
                  status: e.status,
                }),
              );
            } else {
              const e = message.error;
              reject(Object.assign(new Error(e.message), { name: e.name ?? "Error", stack: e.stack }));
            }
          }
        },
        onDeath: (error) => {
          settle(false);
          reject(ctx.signal.aborted ? ctx.signal.reason : error);
        },
      };
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener("abort", onAbort, { once: true });
      worker.thread.postMessage({
        type: "call",
        id,
        tool,
        params,
        traceId: ctx.traceId,
        auth: ctx.auth,
      } satisfies ToWorker);
    });
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((w) => w.thread.terminate()));
  }

  // --- internal ---

  private spawn(): Promise<PooledWorker> {
    const { instance } = this;
    const setup: WorkerSetup = {
      entryUrl: instance.entryUrl ?? "", // the registry refuses worker isolation for in-memory modules
      config: instance.config,
      credentials: { ...instance.credentials },
    };
    const thread = new Worker(WORKER_URL, {
      workerData: setup,
      // A skill's console output never reaches the stdio transport, nor stderr unredacted: it is logged.
      stdout: true,
      stderr: true,
      env: {}, // the worker sees no environment: credentials arrive in setup, for this instance only
      ...(instance.memoryMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: instance.memoryMb } }),
    });
    this.logOutput(thread.stdout, "stdout");
    this.logOutput(thread.stderr, "stderr");
    const worker: PooledWorker = { thread, current: undefined };
    const death = (error: Error) => {
      const at = this.idle.indexOf(worker);
      if (at !== -1) this.idle.splice(at, 1);
      worker.current?.onDeath(error);
    };
    return new Promise((resolve, reject) => {
      thread.on("message", (message: FromWorker) => {
        if (message.type === "ready") resolve(worker);
        else if (message.type === "stray")
          this.logger.warn(
            { instance: instance.id, error: message.message },
            "a capability left an unhandled rejection",
          );
        else if (worker.current !== undefined && "id" in message && message.id === worker.current.id)
          worker.current.onMessage(message);
      });
      thread.on("error", (error: Error & { code?: string }) => {
        const outOfMemory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
        this.logger.warn(
          { instance: instance.id, err: error },
          outOfMemory ? "a worker ran out of memory" : "a worker failed",
        );
        const unavailable = new SkillError({
          code: "UNAVAILABLE",
          message: outOfMemory
            ? `${instance.id} ran out of memory (limit ${instance.memoryMb ?? "default"} MiB) and was stopped; raise memoryMb for ${instance.source.split(" ")[0]} or ask for less`
            : `${instance.id}'s worker failed and was replaced; try again`,
        });
        reject(unavailable);
        death(unavailable);
      });
      // A message that cannot be copied out of the worker (nested too deeply) is lost: fail the call, not hang it.
      thread.on("messageerror", (error: Error) => {
        this.logger.warn({ instance: instance.id, err: error }, "a worker's message could not be read");
        death(
          new SkillError({
            code: "INTERNAL",
            message: `${instance.id} answered with a value the host could not copy out of its worker (nested too deeply?); return flatter data`,
          }),
        );
        void thread.terminate();
      });
      thread.on("exit", () =>
        death(new SkillError({ code: "UNAVAILABLE", message: `${instance.id}'s worker stopped; try again` })),
      );
    });
  }

  /**
   * Logs what a worker writes to its stdout or stderr, in whole lines (several at once, so that a secret split
   * across lines is still one text to the redactor), through the logger and so through the redactor.
   */
  private logOutput(stream: Readable, name: "stdout" | "stderr"): void {
    let pending = "";
    const flush = (text: string) => {
      if (text.length === 0) return;
      this.logger[name === "stderr" ? "warn" : "info"](
        { instance: this.instance.id, [name]: text },
        `a capability wrote to ${name}`,
      );
    };
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      pending += chunk;
      const end = pending.lastIndexOf("\n");
      if (end === -1 && pending.length < MAX_PENDING_OUTPUT) return;
      const cut = end === -1 ? pending.length : end;
      flush(pending.slice(0, cut));
      pending = pending.slice(cut + 1);
    });
    stream.on("end", () => flush(pending));
  }
}

/** Output without a line break is logged once it reaches this many characters. */
const MAX_PENDING_OUTPUT = 64 * 1024;

// --- internal ---

interface PooledWorker {
  thread: Worker;
  current: { id: number; onMessage: (message: FromWorker) => void; onDeath: (error: unknown) => void } | undefined;
}

function stripUndefined(parts: {
  message?: string | undefined;
  evidencePaths?: readonly string[] | undefined;
  warnings?: readonly string[] | undefined;
  partial?: boolean | undefined;
}) {
  return {
    ...(parts.message === undefined ? {} : { message: parts.message }),
    ...(parts.evidencePaths === undefined ? {} : { evidencePaths: parts.evidencePaths }),
    ...(parts.warnings === undefined ? {} : { warnings: parts.warnings }),
    ...(parts.partial === undefined ? {} : { partial: parts.partial }),
  };
}
