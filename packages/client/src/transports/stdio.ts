import path from "node:path";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { deserializeMessage, ReadBuffer } from "@modelcontextprotocol/client";
import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { maxResultBytesOf } from "../answer-limit.js";
import { inheritedEnv, readCredentials } from "../credentials.js";
import type { Connector } from "../handle.js";
import { negotiation } from "../handle.js";
import type { StdioSpec } from "../types.js";

/**
 * A child process over stdin/stdout. Its environment is exactly the spec's `env`, the `inheritEnv` variables
 * this process has, and the credentials. The SDK's StdioClientTransport adds its own default variables (HOME,
 * PATH, USER, …) under whatever environment it is given; each of those the spec did not ask for is passed as
 * undefined, which Node's spawn leaves out, so the child gets nothing it was not given.
 *
 * The child's stdout is read line by line without joining a line before it is whole, and a line past
 * `maxResultBytes` is never joined: the child is killed at once and the handle told.
 */
export function stdioConnector(spec: StdioSpec): Connector {
  const source = spec.name ?? [spec.command, ...(spec.args ?? []).slice(0, 1)].map((p) => path.basename(p)).join(" ");
  const maxResultBytes = maxResultBytesOf(spec.maxResultBytes);
  return {
    transport: "stdio",
    source,
    versionNegotiation: negotiation(spec.protocol ?? "2025-11-25"),
    maxResultBytes,
    async open(exceeded) {
      const reading = await readCredentials(source, spec.credentials);
      if (!reading.ok) return reading;
      const env: Record<string, string | undefined> = { ...inheritedEnv(spec.inheritEnv), ...spec.env };
      for (const { value, to } of reading.present) env[to.env] = value;
      for (const name of DEFAULT_INHERITED_ENV_VARS) if (!(name in env)) env[name] = undefined;
      const mode = spec.stderr ?? "tail";
      const transport = new StdioClientTransport({
        command: spec.command,
        args: spec.args ?? [],
        env: env as Record<string, string>,
        stderr: mode === "inherit" ? "inherit" : mode === "ignore" ? "ignore" : "pipe",
        // The SDK's own bound of its read buffer: what protects the short-lived process that `"auto"` probes.
        maxBufferSize: maxResultBytes,
        ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      });
      limitLines(transport, maxResultBytes, () => {
        // Killed, not asked to stop: a server that floods its stdout does not read its stdin either.
        const child = transport.pid;
        if (child !== null) {
          try {
            process.kill(child, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
        exceeded();
      });
      const tail = createTail();
      transport.stderr?.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        if (typeof mode === "function") mode(text);
        else tail.add(text);
      });
      let pid: number | null = null;
      const started = transport.start.bind(transport);
      transport.start = async () => {
        await started();
        pid = transport.pid;
      };
      return {
        ok: true,
        secrets: reading.secrets,
        opened: {
          transport,
          closedDetail: () => {
            const last = tail.text().trim();
            const who = pid === null ? "the server process" : `the server process (pid ${pid})`;
            return last === "" ? `${who} ended` : `${who} ended; its stderr ended with: ${last}`;
          },
        },
      };
    },
  };
}

// --- internal ---

/**
 * Puts a bounded line reader where the SDK's stdio transport keeps its read buffer. The SDK's `ReadBuffer` joins
 * every chunk to all it holds (`Buffer.concat`, so a long line costs the square of its length) and stops only at
 * `maxBufferSize`; this one keeps a line's chunks apart until the line ends, joins them once, and stops at
 * `maxBytes` for the line being read. The field is the SDK's private one: if it is not a ReadBuffer any more (an
 * SDK upgrade), starting fails loudly instead of reading without a bound.
 */
function limitLines(transport: StdioClientTransport, maxBytes: number, exceeded: () => void): void {
  const internals = transport as unknown as { _readBuffer?: unknown };
  if (!(internals._readBuffer instanceof ReadBuffer)) {
    throw new Error(
      "the MCP SDK's StdioClientTransport no longer reads through its ReadBuffer, so maxResultBytes cannot be enforced; this version of @skillport/client does not support this SDK",
    );
  }
  internals._readBuffer = boundedLines(maxBytes, exceeded);
}

/** The SDK's read-buffer interface (`append`, `readMessage`, `clear`) over lines of at most `maxBytes` bytes. */
function boundedLines(maxBytes: number, exceeded: () => void) {
  let parts: Buffer[] = [];
  let lineBytes = 0;
  const lines: Buffer[] = [];
  let over = false;
  return {
    append(chunk: Buffer): void {
      if (over) return; // the rest of what a reset connection sends is dropped unread
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(LF, start);
        const stop = end === -1 ? chunk.length : end;
        lineBytes += stop - start;
        if (lineBytes > maxBytes) {
          over = true;
          parts = [];
          exceeded();
          return;
        }
        if (stop > start) parts.push(chunk.subarray(start, stop));
        if (end === -1) return;
        lines.push(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, lineBytes));
        parts = [];
        lineBytes = 0;
        start = end + 1;
      }
    },
    readMessage(): JSONRPCMessage | null {
      for (let line = lines.shift(); line !== undefined; line = lines.shift()) {
        try {
          return deserializeMessage(line.toString("utf8").replace(/\r$/, ""));
        } catch (error) {
          // As the SDK's reader: a line that is not JSON is skipped; one that is not JSON-RPC is an error.
          if (!(error instanceof SyntaxError)) throw error;
        }
      }
      return null;
    },
    clear(): void {
      parts = [];
      lineBytes = 0;
      lines.length = 0;
    },
  };
}

const LF = 10;

const TAIL_BYTES = 4096;

/** The last few KiB of a stream, for messages. */
function createTail() {
  let text = "";
  return {
    add(chunk: string) {
      text = (text + chunk).slice(-TAIL_BYTES);
    },
    text: () => text,
  };
}
