import { accessSync, appendFileSync, closeSync, constants, mkdirSync, openSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import { HostError } from "../errors/host-error.js";

/** Where the audit's lines go. */
export interface AuditDestination {
  /**
   * A finished line, or one to finish when it is written ({@link LaterLine}): either is written in the order given,
   * in the same batch.
   */
  write(line: string | LaterLine): void;
  /** Writes every buffered line now, synchronously. */
  flushSync(): void;
  /** Flushes, then closes the file (never stderr); a line that still comes is written at once, unbatched. */
  end(): void;
}

/**
 * A line made when its batch is written, after the answers of its turn have gone out: the audit keeps a call's
 * redaction and serialisation off the answer's path. It must not depend on anything that can change in between.
 */
type LaterLine = () => string;

/**
 * An append-only destination that batches: each line is buffered, and everything buffered in one turn of the event
 * loop goes out in one synchronous write right after it (setImmediate), so the write is off the answer's path and
 * many concurrent calls cost one syscall. A turn that buffers {@link FLUSH_AT} characters writes them at once, so
 * a long turn (thousands of calls that never wait on I/O, as in process) neither holds its lines in memory nor
 * risks more than that many to a kill. Nothing waits in a thread pool, so there is never a write in flight to
 * lose: the buffer is flushed when the host closes, and by an `exit` hook for a process that exits without closing
 * it (process.exit, an uncaught exception).
 *
 * A file is created (with its folders) when its first line is written, so a host that answers no call (`skillport
 * lock`, `list`, `check`) leaves none behind; whether it could be is checked here, so a file that cannot be written
 * still fails the start.
 */
export function createAuditDestination(file: string | undefined): AuditDestination {
  const at = file === undefined ? undefined : path.resolve(file);
  if (at !== undefined) checkWritable(at);
  let fd = at === undefined ? 2 : undefined;
  const opened = (to: string) => {
    mkdirSync(path.dirname(to), { recursive: true });
    fd = openSync(to, "a");
    return fd;
  };
  let buffered: (string | LaterLine)[] = [];
  let size = 0;
  let scheduled = false;
  let ended = false;
  const destination: AuditDestination = {
    write(line) {
      if (ended) {
        const text = typeof line === "string" ? line : line();
        if (at === undefined) writeAll(2, Buffer.from(text, "utf8"));
        else appendFileSync(at, text);
        return;
      }
      buffered.push(line);
      size += typeof line === "string" ? line.length : LATER_LINE_SIZE;
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
      const lines = buffered;
      buffered = [];
      let text = "";
      for (const line of lines) text += typeof line === "string" ? line : line();
      size = 0;
      writeAll(fd ?? opened(at as string), Buffer.from(text, "utf8"));
    },
    end() {
      if (ended) return;
      destination.flushSync();
      ended = true;
      if (fd !== undefined && fd !== 2) closeSync(fd);
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

/** What a line still to be made counts for against FLUSH_AT: more than an audit line without arguments takes. */
export const LATER_LINE_SIZE = 512;

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

/**
 * Throws a HostError, naming the file and the fix, when `file` could not be opened for appending: it is a folder,
 * or it (or, while it does not exist, the nearest folder on its path that does) is not writable, or a file stands
 * where a folder should. Creates nothing.
 */
function checkWritable(file: string): void {
  const problem = (reason: string) =>
    new HostError(
      "MANIFEST_INVALID",
      `[skillport] audit.file: ${file} cannot be written: ${reason}; fix its permissions or name another file`,
    );
  let probe = file;
  for (;;) {
    let isFolder: boolean;
    try {
      isFolder = statSync(probe).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR") throw problem("a part of its path is a file, not a folder");
      if (code !== "ENOENT") throw problem((error as Error).message);
      const parent = path.dirname(probe);
      if (parent === probe) return;
      probe = parent;
      continue;
    }
    if (probe === file && isFolder) throw problem("it is a folder");
    if (probe !== file && !isFolder) throw problem(`${probe} is a file, not a folder`);
    try {
      accessSync(probe, constants.W_OK);
    } catch (error) {
      throw problem((error as Error).message);
    }
    return;
  }
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
