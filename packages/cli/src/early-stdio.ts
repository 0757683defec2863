import type { ImageSlot, StartImage } from "./start-image.js";
import { imageSlotOf, initializeAnswer, listAnswer } from "./start-image.js";

/**
 * The first moments of `serve --stdio` with a start image, before the command's code is loaded: what the client sent
 * while the host was built, and what of it the image answered. Loaded on its own by bin/skillport.js, so it imports
 * nothing heavy.
 */
export interface EarlyStdio {
  readonly slot: ImageSlot;
  /** Resolves when the host should be built: at once without an image; with one, once it has answered what it can. */
  readonly ready: Promise<void>;
  /**
   * Stops reading and hands over what was read: `answered` is the bytes of the messages the image answered (with
   * what it sent to each request id), to be read first and checked; `rest` the bytes after them; `ended` whether
   * stdin has ended.
   */
  takeOver(): TakenOver;
}

export interface TakenOver {
  answered: Buffer;
  /** What was sent to each request id: a text, or the pieces written one after another. */
  sent: Map<string | number, string | readonly Buffer[]>;
  rest: Buffer;
  ended: boolean;
}

/**
 * Starts a `skillport serve` command line (`args` after `serve`): undefined when it has no image slot (see
 * imageSlotOf); else, with a current image, answers `initialize` and a plain `tools/list` from it as they arrive.
 */
export function beginEarlyStdio(args: readonly string[]): EarlyStdio | undefined {
  const slot = imageSlotOf(args);
  if (slot === undefined) return undefined;
  const { image } = slot;
  if (image === undefined) {
    const sent = new Map<string | number, string>();
    return { slot, ready: Promise.resolve(), takeOver: () => ({ answered: EMPTY, sent, rest: EMPTY, ended: false }) };
  }
  return answering(slot, image);
}

// --- internal ---

const EMPTY: Buffer = Buffer.alloc(0);
/** Past this many bytes without a line end, the image stops answering (the host reads the line, with its limits). */
const MAX_EARLY_LINE = 1024 * 1024;
/** How long the image waits for the client's next message before the host is built anyway. */
const BUILD_AFTER_MS = 20;
const CLAIM = Symbol.for("skillport.stdout-claim");

function answering(slot: ImageSlot, image: StartImage): EarlyStdio {
  const stdin = process.stdin;
  const chunks: Buffer[] = [];
  let pending: Buffer = EMPTY; // bytes after the last line looked at
  let answeredBytes = 0;
  let readBytes = 0;
  let step: "initialize" | "list" | "done" = "initialize";
  let ended = false;
  const sent = new Map<string | number, string | readonly Buffer[]>();
  let go: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    go = resolve;
  });
  const timer = setTimeout(() => go(), BUILD_AFTER_MS);

  // The host is built once the answers are out: the command's code loads in one long turn, and an answer left in
  // the pipe's queue would wait for it.
  let flushed = Promise.resolve();
  const write = (text: string | Buffer) => {
    const claim = (process.stdout as { [CLAIM]?: { write(text: string | Buffer): boolean } })[CLAIM];
    const queued = claim === undefined ? !process.stdout.write(text) : !claim.write(text);
    if (queued) flushed = new Promise((resolve) => process.stdout.once("drain", resolve));
  };
  const stop = () => {
    step = "done";
    clearTimeout(timer);
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.pause();
    void flushed.then(go);
  };
  const onLine = (line: Buffer): boolean => {
    const message = parse(line);
    if (step === "initialize") {
      const id = requestId(message, "initialize");
      if (id === undefined || !isInitializeParams(message?.params, image.header.initialize.protocolVersion))
        return false;
      const answer = initializeAnswer(image, id);
      sent.set(id, answer);
      write(answer);
      step = "list";
      return true;
    }
    if (message?.jsonrpc === "2.0" && message.method === "notifications/initialized" && !("id" in message)) {
      return true;
    }
    const id = requestId(message, "tools/list");
    const params = message?.params;
    const plain = params === undefined || (isObject(params) && Object.keys(params).length === 0);
    if (id === undefined || !plain || sent.has(id)) return false;
    const answer = listAnswer(image, id);
    sent.set(id, answer);
    for (const piece of answer) write(piece);
    step = "done";
    return true;
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    readBytes += chunk.length;
    let rest = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (let end = rest.indexOf(10); end !== -1 && step !== "done"; end = rest.indexOf(10)) {
      if (!onLine(rest.subarray(0, end))) {
        stop();
        return;
      }
      answeredBytes += end + 1;
      rest = rest.subarray(end + 1);
    }
    pending = rest;
    if (step === "done" || pending.length > MAX_EARLY_LINE) stop();
  };
  const onEnd = () => {
    ended = true;
    stop();
  };
  stdin.on("data", onData);
  stdin.on("end", onEnd);

  return {
    slot,
    ready,
    takeOver: () => {
      if (step !== "done") stop();
      const all = Buffer.concat(chunks, readBytes);
      return { answered: all.subarray(0, answeredBytes), sent, rest: all.subarray(answeredBytes), ended };
    },
  };
}

type Message = Record<string, unknown>;

function parse(line: Buffer): Message | undefined {
  try {
    const value: unknown = JSON.parse(line.toString("utf8"));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The id of a JSON-RPC request for `method` with a string or safe-integer id. */
function requestId(message: Message | undefined, method: string): string | number | undefined {
  if (message?.jsonrpc !== "2.0" || message.method !== method) return undefined;
  const { id } = message;
  return typeof id === "string" || Number.isSafeInteger(id) ? (id as string | number) : undefined;
}

/** Params the SDK reads as a valid initialize for this protocol version (its checks of nested fields aside). */
function isInitializeParams(params: unknown, protocolVersion: string): boolean {
  if (!isObject(params) || params.protocolVersion !== protocolVersion || !isObject(params.capabilities)) return false;
  const info = params.clientInfo;
  return isObject(info) && typeof info.name === "string" && typeof info.version === "string";
}

function isObject(value: unknown): value is Message {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
