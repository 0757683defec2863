// What `skillport serve` builds, in the test's own process: the host over a manifest file (upstream servers reached
// through @skillport/client, as the command wires them), served over stdio's line transport on a pair of pipes or
// over HTTP on a loopback port, its log lines kept as the command writes them to stderr. For the tests of bundled
// skills and upstream servers through a host; what only a real process shows (stdout discipline, signals, exit codes,
// the command's own messages) is tested on `skillport serve` itself (workspace.ts).
import { Writable } from "node:stream";
import type { Client } from "@modelcontextprotocol/client";
import type { Host } from "@skillport/host";
import { createHost } from "@skillport/host";
import type { HttpServing } from "@skillport/host/http";
import { serveHostHttp } from "@skillport/host/http";
import { serveHostStdio } from "@skillport/host/stdio";
import type { LinePipe } from "@skillport/test-utils";
import { linePipe } from "@skillport/test-utils";
import pino from "pino";
import { upstreamClient } from "../src/upstream-client.js";
import { textStream } from "./workspace.js";

/** Options for {@link hostInProcess}. */
export interface InProcessOptions {
  /** Environment variables for the host's life (undefined removes one), put back by `close()`. */
  env?: Record<string, string | undefined>;
  /** The log level, as SKILLPORT_LOG_LEVEL sets it for the command. @default "silent" */
  logLevel?: string;
  /** How the lock is used, as --frozen-lock and --no-lock choose. @default "auto" */
  lock?: "auto" | "frozen" | "off";
}

/** A host built as `skillport serve` builds it, in this process. */
interface InProcessHost {
  host: Host;
  /** The host's log lines so far, JSON lines as the command writes them to stderr. */
  stderr(): string;
  /** Resolves once `check` holds of the log lines so far (checked as each line is written). */
  stderrUntil(check: (text: string) => boolean): Promise<void>;
  /** Closes the host and puts the environment back. */
  close(): Promise<void>;
}

/** The host `skillport serve --manifest <manifest>` builds, in this process. */
async function hostInProcess(manifest: string, options: InProcessOptions = {}): Promise<InProcessHost> {
  const restore = setEnv(options.env ?? {});
  const text = textStream();
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text.add(chunk.toString());
      done();
    },
  });
  const logger = pino({ level: options.logLevel ?? "silent", base: { name: "skillport" } }, stream);
  let host: Host;
  try {
    host = await createHost({ manifest, client: upstreamClient, lock: options.lock ?? "auto", logger });
  } catch (error) {
    restore();
    throw error;
  }
  return {
    host,
    stderr: text.text,
    stderrUntil: text.until,
    async close() {
      await host.close();
      restore();
    },
  };
}

/** A host served over stdio in this process, with an SDK client connected. */
export interface StdioInProcess extends InProcessHost {
  client: Client;
  pipe: LinePipe;
}

/**
 * `skillport serve --stdio --manifest <manifest>` in this process, an SDK client connected to it (`client` are the
 * client's options: era, capabilities). `close()` closes the client, then the host.
 */
export async function stdioInProcess(
  manifest: string,
  options: InProcessOptions & { client?: object } = {},
): Promise<StdioInProcess> {
  const served = await hostInProcess(manifest, options);
  const pipe = linePipe((ends) => serveHostStdio(served.host, ends).closed);
  const client = await pipe.connect(options.client ?? {});
  return {
    ...served,
    client,
    pipe,
    async close() {
      await client.close();
      await served.close();
    },
  };
}

/** A host served over HTTP on a loopback port in this process. */
export interface HttpInProcess extends InProcessHost {
  serving: HttpServing;
  url: string;
}

/** `skillport serve --http --port 0 --manifest <manifest>` in this process. */
export async function httpInProcess(manifest: string, options: InProcessOptions = {}): Promise<HttpInProcess> {
  const served = await hostInProcess(manifest, options);
  const serving = await serveHostHttp(served.host, { port: 0 });
  return {
    ...served,
    serving,
    url: serving.url,
    async close() {
      await serving.close({ graceMs: 0 });
      await served.close();
    },
  };
}

// --- internal ---

function setEnv(values: Record<string, string | undefined>): () => void {
  const before = Object.entries(values).map(([name]) => [name, process.env[name]] as const);
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return () => {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
