import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Host } from "../host.js";
import { createServerFactory } from "./server.js";

/** A running stdio server. */
export interface StdioServing {
  close(): Promise<void>;
}

/**
 * Serves a host over this process's stdin/stdout, both protocol eras. stdout carries only the protocol; the
 * host logs to stderr. Resolves `closed` when the client closes stdin.
 */
export function serveHostStdio(host: Host): StdioServing {
  const handle = serveStdio(createServerFactory(host), {
    onerror: (error) => host.logger.warn({ err: error }, "stdio transport error"),
  });
  return { close: () => handle.close() };
}
