// How the host's end-to-end tests serve a host in this process, as `skillport serve` does in its own: a manifest
// written as JSON into a scratch folder, the host built from it, and the host served over stdio's line transport on
// a pair of pipes, or over HTTP on a loopback port. What only a real process shows (stdout discipline, signals, exit
// codes) stays in the CLI's tests.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import type { LinePipe } from "@skillport/test-utils";
import { linePipe } from "@skillport/test-utils";
import type { Host, HostOptions } from "../src/host.js";
import { createHost } from "../src/host.js";
import { parseManifest } from "../src/manifest/load-manifest.js";
import type { HttpServeOptions, HttpServing } from "../src/mcp/serve-http.js";
import { serveHostHttp } from "../src/mcp/serve-http.js";
import type { StdioServeOptions } from "../src/mcp/serve-stdio.js";
import { serveHostStdio } from "../src/mcp/serve-stdio.js";
import { silentLogger } from "./helpers.js";

/** The two protocol eras a client can speak, as the SDK client's options. */
export const ERAS = [
  { era: "2025-11-25", options: {} },
  { era: "2026-07-28", options: { versionNegotiation: { mode: { pin: "2026-07-28" } } } },
] as const;
type EraOptions = (typeof ERAS)[number]["options"];

/**
 * A host over `manifest` (JSON, as a person writes it) saved in `dir` as `name`: its relative paths resolve there,
 * and a lock beside it is found. Logs go nowhere unless a logger is given. The test closes it.
 */
export async function hostFrom(
  dir: string,
  manifest: unknown,
  options: Omit<HostOptions, "manifest"> & { name?: string } = {},
): Promise<Host> {
  const { name = "skills.manifest.json", ...hostOptions } = options;
  const file = path.join(dir, name);
  const json = JSON.parse(JSON.stringify(manifest));
  await writeFile(file, JSON.stringify(json, null, 2));
  return createHost({ logger: silentLogger(), ...hostOptions, manifest: parseManifest(json, file) });
}

/** Serves `host` over stdio's line transport on a pair of pipes, as `skillport serve --stdio` serves its own. */
export function pipeStdio(host: Host, options: Omit<StdioServeOptions, "stdin" | "stdout"> = {}): LinePipe {
  return linePipe((ends) => serveHostStdio(host, { ...options, ...ends }).closed);
}

/** A host served over Streamable HTTP on an ephemeral loopback port in this process. */
export interface LoopbackHttp {
  serving: HttpServing;
  url: string;
  /** An SDK client of this server in one era, with a bearer token when given. */
  connect(era?: EraOptions, token?: string): Promise<Client>;
  close(): Promise<void>;
}

/** Serves `host` over HTTP on 127.0.0.1 and an ephemeral port, as `skillport serve --http --port 0` does. */
export async function serveLoopback(host: Host, options: HttpServeOptions = {}): Promise<LoopbackHttp> {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const serving = await serveHostHttp(host, { port: 0, ...options });
  return {
    serving,
    url: serving.url,
    async connect(era = {}, token) {
      const transport = new StreamableHTTPClientTransport(
        new URL(serving.url),
        token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
      );
      const client = new Client({ name: "skillport-host-test", version: "0.0.0" }, era as never);
      await client.connect(transport);
      return client;
    },
    close: async () => {
      await serving.close({ graceMs: 0 });
    },
  };
}
