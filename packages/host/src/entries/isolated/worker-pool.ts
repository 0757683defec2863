import { Worker } from "node:worker_threads";
import type { Content, ErrorCode, RegisteredSkill, SkillContext } from "@skillport/core";
import { isSkillError, result, SkillError } from "@skillport/core";
import { messageOf } from "../../errors/host-error.js";
import type { Logger } from "../../logging/logger.js";
import { hostFile } from "../../package/package-files.js";
import type { CapabilityTarget } from "../capability.js";
import { hasCredential, skillCredentials } from "../credential-fetch.js";
import type { SkillInstance } from "../skill-instance.js";
import type { InputChannel, InputFeature } from "../tool-entry.js";
import type { FromWorker, ProxiedRequest, ProxiedResponse, ToWorker, WorkerSetup } from "./worker-protocol.js";

/** The largest response body `ctx.fetch` brings into an isolated instance; the whole body travels at once. */
const MAX_PROXIED_BODY_BYTES = 32 * 1024 * 1024;

/** How long an aborted capability may take to stop by itself before its worker is terminated. */
const ABORT_GRACE_MS = 500;

/** The built worker entry (tests, which run the sources, use it too). */
const WORKER_URL = hostFile("dist/worker.js");

/** One running isolate, a worker thread or a child process, as the pool drives it. */
export interface Isolate {
  post(message: ToWorker): void;
  /** Stops it the hard way; `exit` follows. */
  kill(): void;
  /** Whether it keeps the host's event loop alive (only while it runs a call). */
  ref(): void;
  unref(): void;
}

/** What an isolate reports to its pool. */
interface IsolateEvents {
  message(message: FromWorker): void;
  /** It failed (threw at start, ran out of memory…); `exit` follows. */
  failed(error: Error, outOfMemory: boolean): void;
  exited(): void;
  /** A message from it could not be read (a value nested too deeply to copy); it is stopped. */
  unreadable?(error: Error): void;
  /** What it wrote to its stdout or stderr: logged (so redacted), never passed to the host's own streams. */
  output?(text: string, stream: "stdout" | "stderr"): void;
}

/** Starts one isolate of an instance with its setup. */
export type SpawnIsolate = (
  instance: SkillInstance,
  setup: WorkerSetup,
  events: IsolateEvents,
) => Isolate | Promise<Isolate>;

/** Starts a worker thread with the manifest's heap limit and no environment. */
export const spawnThread: SpawnIsolate = (instance, setup, events) => {
  const thread = new Worker(WORKER_URL, {
    workerData: setup,
    // A skill's console output never reaches the stdio transport, nor stderr unredacted: it is logged.
    stdout: true,
    stderr: true,
    env: {}, // process.env is empty in the worker; /proc/self/environ is still the host's (a thread shares it)
    ...(instance.memoryMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: instance.memoryMb } }),
  });
  thread.stdout.on("data", (chunk: Buffer) => events.output?.(chunk.toString("utf8"), "stdout"));
  thread.stderr.on("data", (chunk: Buffer) => events.output?.(chunk.toString("utf8"), "stderr"));
  thread.on("message", (message: FromWorker) => events.message(message));
  thread.on("error", (error: Error & { code?: string }) =>
    events.failed(error, error.code === "ERR_WORKER_OUT_OF_MEMORY"),
  );
  // A message that cannot be copied out of the worker (nested too deeply) would be lost: fail the call, not hang it.
  thread.on("messageerror", (error: Error) => {
    events.unreadable?.(error);
    void thread.terminate();
  });
  thread.on("exit", () => events.exited());
  return {
    post: (message) => thread.postMessage(message),
    kill: () => void thread.terminate(),
    ref: () => thread.ref(),
    unref: () => thread.unref(),
  };
};

/**
 * Runs one instance's capabilities in isolates (worker threads, or child processes with `spawnProcess`), one call
 * per isolate at a time. An isolate stuck in a synchronous loop or out of memory is stopped and replaced; the host
 * and every other instance keep answering. Idle isolates do not keep the process alive.
 */
export class WorkerPool {
  private readonly idle: PooledWorker[] = [];
  private readonly all = new Set<PooledWorker>();
  private nextId = 1;

  constructor(
    private readonly instance: SkillInstance,
    /** The instance's skill, loaded in the host: which credentials it reads itself and which the host holds. */
    private readonly skill: RegisteredSkill,
    private readonly logger: Logger,
    private readonly spawnIsolate: SpawnIsolate = spawnThread,
    private readonly kind: "worker" | "child process" = "worker",
  ) {}

  /**
   * Runs a capability (a tool, a read, a render, a completion) in an isolate. Rejects with a SkillError when the
   * isolate dies, with the abort reason on abort. `input` answers the capability's questions to the client.
   */
  async run(
    target: CapabilityTarget,
    params: Record<string, unknown>,
    ctx: SkillContext,
    input: InputChannel,
    /** Whether `ctx` holds the caller's own credentials (per-caller slots): they then travel with this call. */
    callersOwn = false,
  ): Promise<unknown> {
    const worker = this.idle.pop() ?? (await this.spawn());
    worker.isolate.ref();
    const id = this.nextId++;
    const fetches = new Map<number, AbortController>();
    return new Promise<unknown>((resolve, reject) => {
      let killTimer: ReturnType<typeof setTimeout> | undefined;
      const settle = (reuse: boolean) => {
        ctx.signal.removeEventListener("abort", onAbort);
        if (killTimer !== undefined) clearTimeout(killTimer);
        for (const controller of fetches.values()) controller.abort(new DOMException("the call ended", "AbortError"));
        worker.current = undefined;
        if (reuse) {
          worker.isolate.unref();
          this.idle.push(worker);
        }
      };
      const onAbort = () => {
        const reason = (ctx.signal.reason as Error | undefined)?.name === "TimeoutError" ? "timeout" : "cancel";
        worker.isolate.post({ type: "abort", id, reason });
        // A capability that ignores its signal (or is stuck in a synchronous loop) is stopped the hard way.
        killTimer = setTimeout(() => worker.isolate.kill(), ABORT_GRACE_MS);
        killTimer.unref();
      };
      worker.current = {
        id,
        onMessage: (message) => {
          if (message.type === "progress") ctx.progress(message.done, message.total, message.message);
          else if (message.type === "find-secret") {
            void ctx
              .findSecret(message.content)
              .then((finding) => worker.isolate.post({ type: "secret-found", id, ask: message.ask, finding }));
          } else if (message.type === "fetch") {
            const controller = new AbortController();
            fetches.set(message.ask, controller);
            void proxy(ctx, message.request, controller.signal).then((response) => {
              fetches.delete(message.ask);
              if (worker.current?.id === id) worker.isolate.post({ type: "fetched", id, ask: message.ask, response });
            });
          } else if (message.type === "fetch-abort") {
            fetches.get(message.ask)?.abort(new DOMException("the skill aborted the request", "AbortError"));
          } else if (message.type === "input") {
            // Unanswered, the question ends the run: the pipeline aborts it and the isolate sees the abort.
            input.ask(message.key, message.request).then(
              (answer) => {
                if (worker.current?.id === id) {
                  worker.isolate.post({ type: "input-answer", id, ask: message.ask, answer });
                }
              },
              () => undefined,
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
      const supports = FEATURES.filter((feature) => input.supports(feature));
      const own = !callersOwn
        ? undefined
        : {
            credentials: { ...ctx.credentials },
            configured: Object.keys(this.skill.credentials).filter((name) => ctx.hasCredential(name)),
          };
      worker.isolate.post({
        type: "call",
        id,
        target,
        params,
        traceId: ctx.traceId,
        auth: ctx.auth,
        supports,
        ...(own === undefined ? {} : { own }),
      });
    });
  }

  /** Stops every isolate. */
  async close(): Promise<void> {
    const stopping = [...this.all].map((w) => w.gone);
    for (const w of this.all) w.isolate.kill();
    this.idle.length = 0;
    await Promise.all(stopping);
  }

  // --- internal ---

  private async spawn(): Promise<PooledWorker> {
    const { instance, kind } = this;
    const setup: WorkerSetup = {
      entryUrl: instance.entryUrl ?? "", // the registry refuses isolation for in-memory modules
      config: instance.config,
      // Only what the skill reads itself: a credential declared with `fetch` stays in the host.
      credentials: { ...skillCredentials(this.skill, instance.credentials) },
      configured: Object.keys(instance.credentials).filter((name) => hasCredential(instance.credentials, name)),
    };
    let markGone: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => {
      markGone = resolve;
    });
    const death = (error: Error) => {
      const at = this.idle.indexOf(worker);
      if (at !== -1) this.idle.splice(at, 1);
      worker.current?.onDeath(error);
    };
    let started: { resolve: (w: PooledWorker) => void; reject: (e: Error) => void } | undefined;
    const ready = new Promise<PooledWorker>((resolve, reject) => {
      started = {
        resolve: (w) => {
          started = undefined;
          resolve(w);
        },
        reject: (e) => {
          started = undefined;
          reject(e);
        },
      };
    });
    const output = lineLogger((text, stream) =>
      this.logger[stream === "stderr" ? "warn" : "info"](
        { instance: instance.id, [stream]: text },
        `a capability wrote to ${stream}`,
      ),
    );
    let isolate: Isolate;
    try {
      isolate = await this.spawnIsolate(instance, setup, {
        message: (message) => {
          if (message.type === "ready") started?.resolve(worker);
          else if (message.type === "stray")
            this.logger.warn(
              { instance: instance.id, error: message.message },
              "a capability left an unhandled rejection",
            );
          else if (worker.current !== undefined && "id" in message && message.id === worker.current.id)
            worker.current.onMessage(message);
        },
        failed: (error, outOfMemory) => {
          this.logger.warn(
            { instance: instance.id, err: error },
            outOfMemory ? `a ${kind} ran out of memory` : `a ${kind} failed`,
          );
          const unavailable = new SkillError({
            code: "UNAVAILABLE",
            message: outOfMemory
              ? `${instance.id} ran out of memory (limit ${instance.memoryMb ?? "default"} MiB) and was stopped; raise memoryMb for ${instance.source.split(" ")[0]} or ask for less`
              : `${instance.id}'s ${kind} failed and was replaced; try again`,
          });
          started?.reject(unavailable);
          death(unavailable);
        },
        exited: () => {
          output.flush();
          this.all.delete(worker);
          markGone();
          const stopped = new SkillError({
            code: "UNAVAILABLE",
            message: `${instance.id}'s ${kind} stopped; try again`,
          });
          started?.reject(stopped);
          death(stopped);
        },
        unreadable: (error) => {
          this.logger.warn({ instance: instance.id, err: error }, `a ${kind}'s message could not be read`);
          death(
            new SkillError({
              code: "INTERNAL",
              message: `${instance.id} answered with a value the host could not copy out of its ${kind} (nested too deeply?); return flatter data`,
            }),
          );
        },
        output: output.write,
      });
    } catch (error) {
      this.logger.warn({ instance: instance.id, err: error }, `a ${kind} could not be started`);
      throw new SkillError({
        code: "UNAVAILABLE",
        message: `${instance.id}'s ${kind} could not be started (${messageOf(error)}); try again`,
      });
    }
    const worker: PooledWorker = { isolate, current: undefined, gone };
    this.all.add(worker);
    return ready;
  }
}

// --- internal ---

interface PooledWorker {
  isolate: Isolate;
  current: { id: number; onMessage: (message: FromWorker) => void; onDeath: (error: unknown) => void } | undefined;
  /** Settles when the isolate has exited. */
  gone: Promise<void>;
}

const FEATURES: readonly InputFeature[] = ["elicitation", "sampling", "roots"];

/** Output without a line break is logged once it reaches this many characters. */
const MAX_PENDING_OUTPUT = 64 * 1024;

/**
 * Turns chunks of output into whole-line blocks per stream, so one log line never holds half a line; `flush` logs
 * what is left when the isolate exits.
 */
function lineLogger(log: (text: string, stream: "stdout" | "stderr") => void) {
  const pending = { stdout: "", stderr: "" };
  return {
    write(chunk: string, stream: "stdout" | "stderr") {
      pending[stream] += chunk;
      const end = pending[stream].lastIndexOf("\n");
      if (end === -1 && pending[stream].length < MAX_PENDING_OUTPUT) return;
      const cut = end === -1 ? pending[stream].length : end;
      const text = pending[stream].slice(0, cut);
      pending[stream] = pending[stream].slice(cut + 1);
      if (text.length > 0) log(text, stream);
    },
    flush() {
      for (const stream of ["stdout", "stderr"] as const) {
        if (pending[stream].length > 0) log(pending[stream], stream);
        pending[stream] = "";
      }
    },
  };
}

/** Runs an isolate's request with the host's `ctx.fetch` (which adds held credentials) and reads it whole. */
async function proxy(ctx: SkillContext, request: ProxiedRequest, signal: AbortSignal): Promise<ProxiedResponse> {
  try {
    const response = await ctx.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: request.redirect,
      signal: AbortSignal.any([ctx.signal, signal]),
    });
    const body = await readCapped(response, MAX_PROXIED_BODY_BYTES);
    // The body arrives decoded: the encoding and length headers no longer describe it.
    const headers = [...response.headers].filter(([name]) => name !== "content-encoding" && name !== "content-length");
    return { ok: true, status: response.status, statusText: response.statusText, headers, body, url: response.url };
  } catch (error) {
    const e = error as Error & { cause?: { code?: unknown } };
    return {
      ok: false,
      name: e?.name ?? "TypeError",
      message: String(e?.message ?? error),
      code: typeof e?.cause?.code === "string" ? e.cause.code : undefined,
      skillCode: isSkillError(error) ? error.code : undefined,
    };
  }
}

async function readCapped(response: Response, limit: number): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) {
      await response.body.cancel().catch(() => undefined);
      throw new RangeError(
        `the response from ${response.url} is over ${limit / 1024 / 1024} MiB, more than ctx.fetch brings into an isolated skill`,
      );
    }
    chunks.push(chunk);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

function stripUndefined(parts: {
  message?: string | undefined;
  evidencePaths?: readonly string[] | undefined;
  warnings?: readonly string[] | undefined;
  partial?: boolean | undefined;
  content?: readonly Content[] | undefined;
}) {
  return {
    ...(parts.content === undefined ? {} : { content: parts.content }),
    ...(parts.message === undefined ? {} : { message: parts.message }),
    ...(parts.evidencePaths === undefined ? {} : { evidencePaths: parts.evidencePaths }),
    ...(parts.warnings === undefined ? {} : { warnings: parts.warnings }),
    ...(parts.partial === undefined ? {} : { partial: parts.partial }),
  };
}
