import { isDeepStrictEqual } from "node:util";
import type { Host } from "@skillport/host";
import type { ClaimedStdout } from "@skillport/host/stdio";
import { FIRST_MODERN_REVISION } from "@skillport/host/stdio";
import { lockPathOf } from "@skillport/host/tooling";
import type { EarlyStdio, TakenOver } from "./early-stdio.js";
import { writeImage } from "./start-image.js";

/** What `serve --stdio` serves with when it has an image slot (see early-stdio.ts and start-image.ts). */
export interface ImageServing {
  /** What the host reads: what was read before it was built, then stdin itself. */
  stdin: NodeJS.ReadableStream;
  /** Where the host writes: stdout, with the host's answers to what the image answered held back and compared. */
  stdout: ClaimedStdout;
  /**
   * Resolves true once the host's answers to what the image answered are the image's (at once when it answered
   * nothing); false on a difference, and then nothing more is read.
   */
  checked: Promise<boolean>;
}

/**
 * With a current image: the host reads first the messages the image answered, its answers to them are compared with
 * what was sent (and not sent again), and only when they match does it read the rest. Without one: the host reads
 * stdin as usual, and the image is written from the first initialize and tools/list answers it sends, when it started
 * from the lock and serves only skills (an upstream server's tools are read at run time, not locked) and the key is
 * still `startKey`, the one before the host was built.
 */
export function imageServing(
  early: EarlyStdio,
  host: Host,
  claimed: ClaimedStdout,
  onWritten: () => void,
  startKey: string | undefined,
): ImageServing {
  if (early.slot.image === undefined) {
    const { registry } = host;
    const dirs = registry.instances.map((instance) => instance.packageDir);
    const imageable = registry.fromLock && registry.servers.length === 0 && dirs.every((dir) => dir !== undefined);
    return {
      stdin: process.stdin,
      stdout: imageable
        ? recording(
            claimed,
            (answers) =>
              writeImage(early.slot, lockPathOf(host.manifest.file), answers, dirs as string[], startKey) &&
              onWritten(),
          )
        : claimed,
      checked: Promise.resolve(true),
    };
  }
  const taken = early.takeOver();
  const { stdout, checked } = comparing(claimed, taken.sent);
  return { stdin: replaying(taken, checked), stdout, checked };
}

// --- internal ---

/** How long the host may take to answer what the image answered before the start counts as failed. */
const CHECK_WITHIN_MS = 30_000;
/** How many messages the recorder looks at for the two answers before it gives up. */
const RECORD_WITHIN = 16;

/** Claimed stdout that keeps the first initialize answer and the tools/list answer after it, for the image. */
function recording(
  claimed: ClaimedStdout,
  record: (answers: { initialize: string; list: string }) => void,
): ClaimedStdout {
  let initialize: string | undefined;
  let seen = 0;
  const stdout: ClaimedStdout = {
    ...claimed,
    write: (text) => {
      const written = claimed.write(text);
      if (++seen > RECORD_WITHIN) stdout.write = claimed.write;
      else if (initialize === undefined && text.startsWith('{"result":{"protocolVersion":')) {
        initialize = isLegacyAnswer(text) ? text : undefined;
        if (initialize === undefined) stdout.write = claimed.write;
      } else if (initialize !== undefined && text.startsWith('{"result":{"tools":[')) {
        stdout.write = claimed.write;
        // At once, not on a later turn: a client that ends the server right after tools/list still leaves an image.
        try {
          record({ initialize, list: text });
        } catch {
          // an image not written is a start not made faster: nothing else depends on it
        }
      }
      return written;
    },
  };
  return stdout;
}

/** An initialize answer of the 2025 era: the 2026-07-28 era has no initialize, so an image holds only those. */
function isLegacyAnswer(text: string): boolean {
  try {
    const version = (JSON.parse(text) as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    return typeof version === "string" && version < FIRST_MODERN_REVISION;
  } catch {
    return false;
  }
}

/** Claimed stdout that holds back the host's answers to the ids in `sent`, and compares each with what was sent. */
function comparing(
  claimed: ClaimedStdout,
  sent: Map<string | number, string | readonly Buffer[]>,
): { stdout: ClaimedStdout; checked: Promise<boolean> } {
  let settle: (ok: boolean) => void = () => undefined;
  const checked = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  if (sent.size === 0) return { stdout: claimed, checked: Promise.resolve(true) };
  const timer = setTimeout(() => settle(false), CHECK_WITHIN_MS);
  let failed = false;
  const stdout: ClaimedStdout = {
    ...claimed,
    write: (text) => {
      if (failed) return true; // the server is stopping: nothing more reaches the client
      const id = answerIdOf(text);
      const expected = id === undefined ? undefined : sent.get(id);
      if (id === undefined || expected === undefined) return claimed.write(text);
      sent.delete(id);
      if (!sameAnswer(text, expected)) {
        failed = true;
        clearTimeout(timer);
        settle(false);
      } else if (sent.size === 0) {
        stdout.write = claimed.write;
        clearTimeout(timer);
        settle(true);
      }
      return true;
    },
  };
  return { stdout, checked };
}

/** The id of a JSON-RPC answer (a result or an error), or undefined for anything else. */
function answerIdOf(text: string): string | number | undefined {
  try {
    const message = JSON.parse(text) as { id?: unknown; method?: unknown };
    if (message.method !== undefined) return undefined;
    return typeof message.id === "string" || typeof message.id === "number" ? message.id : undefined;
  } catch {
    return undefined;
  }
}

/** The same text, or the same JSON written another way (the client read the same answer). */
function sameAnswer(text: string, expected: string | readonly Buffer[]): boolean {
  const wanted = typeof expected === "string" ? expected : Buffer.concat(expected).toString("utf8");
  if (text === wanted) return true;
  try {
    return isDeepStrictEqual(JSON.parse(text), JSON.parse(wanted));
  } catch {
    return false;
  }
}

/**
 * The stdin the host reads: the answered bytes first; once `checked` is true, the rest, then stdin itself (its
 * listeners moved onto it, so a message costs nothing more than without an image). Only what the line transport
 * uses: on, off, pause, readableEnded.
 */
function replaying(taken: TakenOver, checked: Promise<boolean>): NodeJS.ReadableStream {
  type Listener = (...args: unknown[]) => void;
  const listeners: [string, Listener][] = [];
  let live = false;
  let started = false;
  const emit = (event: string, ...args: unknown[]) => {
    for (const [name, listener] of [...listeners]) if (name === event) listener(...args);
  };
  const start = () => {
    if (taken.answered.length > 0) emit("data", taken.answered);
    void checked.then((ok) => {
      if (!ok || listeners.length === 0) return;
      if (taken.rest.length > 0) emit("data", taken.rest);
      if (taken.ended) {
        emit("end");
        return;
      }
      live = true;
      for (const [name, listener] of listeners) process.stdin.on(name, listener);
      process.stdin.resume();
    });
  };
  const stdin = {
    readableEnded: false,
    on(event: string, listener: Listener) {
      listeners.push([event, listener]);
      if (live) process.stdin.on(event, listener);
      if (event === "data" && !started) {
        started = true;
        setImmediate(start);
      }
      return stdin;
    },
    off(event: string, listener: Listener) {
      const at = listeners.findIndex(([name, l]) => name === event && l === listener);
      if (at !== -1) listeners.splice(at, 1);
      process.stdin.off(event, listener);
      return stdin;
    },
    pause() {
      process.stdin.pause();
      return stdin;
    },
  };
  return stdin as unknown as NodeJS.ReadableStream;
}
