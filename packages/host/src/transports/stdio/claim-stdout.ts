/** The process's stdout, reserved for the protocol. */
export interface ClaimedStdout {
  /** Writes protocol text to the real stdout; false when the caller should wait for the stream's `drain`. */
  write(text: string): boolean;
  /** The real stdout, for `drain` and `error` listeners. */
  readonly stream: NodeJS.WritableStream;
  /** Transforms what is diverted to stderr (e.g. the host's redactor) from now on. */
  filter(transform: (text: string) => string): void;
  /** Gives `process.stdout.write` back. */
  release(): void;
}

/**
 * Over stdio, stdout is the protocol: any other byte on it could be read by the client as a message of the server's
 * (a skill's `console.log` of a forged JSON-RPC answer, say). This reserves it: from now on `process.stdout.write`
 * — and with it `console.log`, `console.info`, `console.table`, … and output piped to stdout — writes to stderr
 * instead, and only the returned `write` reaches the real stdout. Claiming twice returns the same claim.
 *
 * It cannot stop code that writes to file descriptor 1 itself (`fs.writeSync(1, …)`) or a child process that
 * inherits it; skills must not, and those run with `isolation` do not share the host's descriptors.
 *
 * @example
 * const stdout = claimStdout();          // before skills are imported: their import-time prints are caught too
 * stdout.write(`${JSON.stringify(message)}\n`);
 */
export function claimStdout(
  stdout: NodeJS.WriteStream = process.stdout,
  divert: NodeJS.WritableStream = process.stderr,
): ClaimedStdout {
  const existing = (stdout as Claimable)[CLAIM];
  if (existing !== undefined) return existing;
  const own = Object.hasOwn(stdout, "write");
  const original = stdout.write;
  const protocolWrite = original.bind(stdout) as (text: string) => boolean;
  let transform: ((text: string) => string) | undefined;

  const diverted = (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    let text: string | Uint8Array = typeof chunk === "string" ? chunk : (chunk as Uint8Array);
    if (transform !== undefined) {
      text = transform(typeof text === "string" ? text : Buffer.from(text).toString("utf8"));
    }
    const write = divert.write.bind(divert) as (
      text: string | Uint8Array,
      encoding?: unknown,
      callback?: unknown,
    ) => boolean;
    return write(text, encoding, callback);
  };
  stdout.write = diverted as typeof stdout.write;

  const claim: ClaimedStdout = {
    write: (text) => protocolWrite(text),
    stream: stdout,
    filter: (next) => {
      transform = next;
    },
    release: () => {
      if (own) stdout.write = original;
      else delete (stdout as Partial<NodeJS.WriteStream>).write;
      delete (stdout as Claimable)[CLAIM];
    },
  };
  (stdout as Claimable)[CLAIM] = claim;
  return claim;
}

// --- internal ---

const CLAIM = Symbol.for("skillport.stdout-claim");

type Claimable = NodeJS.WriteStream & { [CLAIM]?: ClaimedStdout };
