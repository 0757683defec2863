import { appendFileSync, closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";

/** Where the audit's lines go: pino writes each finished line here. */
export interface AuditDestination {
  write(line: string): void;
  /** Writes every buffered line now, synchronously. */
  flushSync(): void;
  /** Flushes, then closes the file (never stderr); a line that still comes is written at once, unbatched. */
  end(): void;
}

/**
 * An append-only destination that batches: each line is buffered, and everything buffered in one turn of the event
 * loop goes out in one synchronous write right after it (setImmediate), so the write is off the answer's path and
 * many concurrent calls cost one syscall. A turn that buffers {@link FLUSH_AT} characters writes them at once, so
 * a long turn (thousands of calls that never wait on I/O, as in process) neither holds its lines in memory nor
 * risks more than that many to a kill. Nothing waits in a thread pool, so there is never a write in flight to
 * lose: the buffer is flushed when the host closes, and by an `exit` hook for a process that exits without closing
 * it (process.exit, an uncaught exception).
 */
export function createAuditDestination(file: string | undefined): AuditDestination {
  const at = file === undefined ? undefined : path.resolve(file);
  if (at !== undefined) mkdirSync(path.dirname(at), { recursive: true });
  const fd = at === undefined ? 2 : openSync(at, "a");
  let buffered: string[] = [];
  let size = 0;
  let scheduled = false;
  let ended = false;
  const destination: AuditDestination = {
    write(line) {
      if (ended) {
        if (at === undefined) writeAll(2, Buffer.from(line, "utf8"));
        else appendFileSync(at, line);
        return;
      }
      buffered.push(line);
      size += line.length;
      if (size >= FLUSH_AT) {
        destination.flushSync();
        return;
      }
      pending.add(destination);
      installExitHook();
      if (!scheduled) {
        scheduled = true;
        setImmediate(flushScheduled);
      }
    },
    flushSync() {
      pending.delete(destination);
      if (buffered.length === 0) return;
      const text = buffered.length === 1 ? (buffered[0] as string) : buffered.join("");
      buffered = [];
      size = 0;
      writeAll(fd, Buffer.from(text, "utf8"));
    },
    end() {
      if (ended) return;
      destination.flushSync();
      ended = true;
      if (fd !== 2) closeSync(fd);
    },
  };
  const flushScheduled = () => {
    scheduled = false;
    if (!ended) destination.flushSync();
  };
  return destination;
}

/** Characters a turn buffers before they are written at once: about a hundred audit lines. */
export const FLUSH_AT = 32 * 1024;

// --- internal ---

/** Destinations holding lines not yet written, for the exit hook. Only while they hold some. */
const pending = new Set<AuditDestination>();
let hooked = false;

function installExitHook(): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", () => {
    for (const destination of [...pending]) destination.flushSync();
  });
}

/** Writes every byte, retrying a full pipe (EAGAIN) after a short pause, as a synchronous logger must. */
function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(PAUSE, 0, 0, 10);
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));
