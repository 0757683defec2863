import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { linesOf, untilLines } from "@skillport/test-utils";
import pino from "pino";
import { createHost } from "../src/host.js";
import type { Logger } from "../src/logging/logger.js";
import type { HttpServeOptions, HttpServing } from "../src/mcp/serve-http.js";
import { serveHostHttp } from "../src/mcp/serve-http.js";
import { FIXTURES, manifestOf, silentLogger } from "./helpers.js";

export const PROBE = path.join(FIXTURES, "skill-probe");

export const ERAS = [
  { era: "2025-11-25 (initialize)", options: {} },
  { era: "2026-07-28 (stateless)", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } },
] as const;
export type EraOptions = (typeof ERAS)[number]["options"];

/** A host over the probe skill (plus `extra` manifest fields) served on an ephemeral loopback port. */
export interface TestServer {
  serving: HttpServing;
  url: string;
  /** The file the probe's wait and sleep tools append to. */
  record: string;
  lines(): Promise<string[]>;
  /** Resolves once the probe has recorded `line` ("started <id>", "aborted <id>", "finished <id>"). */
  recorded(line: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startServer(
  manifest: { http?: unknown; scopes?: Record<string, string[]> } = {},
  options: HttpServeOptions & { logger?: Logger } = {},
): Promise<TestServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-http-"));
  const record = path.join(dir, "record.log");
  const { http, scopes } = manifest;
  const { logger, ...serveOptions } = options;
  const host = await createHost({
    manifest: manifestOf({
      name: "probe-server",
      version: "9.9.9",
      skills: [{ path: PROBE, config: { record }, ...(scopes === undefined ? {} : { scopes }) }],
      ...(http === undefined ? {} : { http }),
      // Audit lines go to a file, so a passing test prints nothing.
      audit: { file: path.join(dir, "audit.log") },
    }),
    logger: logger ?? silentLogger(),
  });
  const serving = await serveHostHttp(host, { port: 0, ...serveOptions });
  return {
    serving,
    url: serving.url,
    record,
    lines: () => linesOf(record),
    recorded: async (line) => {
      await untilLines(record, (lines) => lines.includes(line));
    },
    stop: async () => {
      await serving.close({ graceMs: 0 });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** An SDK client connected to the server in one era, with a bearer token when given. */
export async function connect(url: string, era: EraOptions, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token === undefined ? {} : { authProvider: { token: async () => token } },
  );
  const client = new Client({ name: "skillport-http-test", version: "0.0.0" }, era as never);
  await client.connect(transport);
  return client;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the body's shape depends on the endpoint; tests say which
  json(): any;
}

/** One request over node:http, so tests can send any Host, Origin or body a browser or attacker could. */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: options.path ?? target.pathname,
        method: options.method ?? "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...options.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) }),
        );
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** A 2025-era JSON-RPC request body, as `curl` would send it. */
export function rpc(method: string, params?: unknown, id = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
}

/**
 * The JSON-RPC messages of an answer: its one JSON body, or the data lines of an event stream (a call with a
 * progress token is answered as a stream, its progress before its result).
 */
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages of any method
export function messagesOf(text: string): any[] {
  if (text.trimStart().startsWith("{")) return [JSON.parse(text)];
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
}

/** A logged line, parsed. */
// biome-ignore lint/suspicious/noExplicitAny: a log line's fields, read by name in assertions
type LogLine = { level: number; msg: string } & Record<string, any>;

/**
 * A logger that keeps every line it writes, for tests that check what was (not) logged; `next` waits for a line (one
 * already written, or the next that matches), so a test waits for the event the line reports instead of polling.
 */
export function capturingLogger(): {
  logger: Logger;
  lines: () => LogLine[];
  next(match: (line: LogLine) => boolean): Promise<LogLine>;
} {
  const text: string[] = [];
  const waiters = new Set<(line: LogLine) => void>();
  const logger = pino(
    { level: "debug" },
    {
      write: (line: string) => {
        text.push(line);
        for (const wake of [...waiters]) wake(JSON.parse(line) as LogLine);
      },
    },
  );
  const lines = () => text.map((line) => JSON.parse(line) as LogLine);
  return {
    logger,
    lines,
    next: (match) =>
      new Promise((resolve) => {
        const found = lines().find(match);
        if (found !== undefined) return resolve(found);
        const wake = (line: LogLine) => {
          if (!match(line)) return;
          waiters.delete(wake);
          resolve(line);
        };
        waiters.add(wake);
      }),
  };
}
