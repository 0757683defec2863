import { realpathSync } from "node:fs";
import path from "node:path";
import type { Host, HostOptions } from "@skillport/host";
import { createHost, installProcessGuards } from "@skillport/host";
import type { HttpServing } from "@skillport/host/http";
import { flushCompileCache } from "../compile-cache.js";
import { formatTable } from "../format-table.js";
import { providerNamesNote } from "../provider-names.js";
import { toolRows } from "../tool-rows.js";
import { upstreamClient } from "../upstream-client.js";

export interface ServeOptions {
  manifest: string;
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
  path?: string;
  shutdownGrace?: number;
  banner?: boolean;
  /** SKILLPORT_LOG_LEVEL for this run (set before the command starts). */
  logLevel?: string;
  /** Refuse to start without a current skills.lock.json. */
  frozenLock?: boolean;
  /** false (--no-lock) ignores skills.lock.json. */
  lock?: boolean;
}

/**
 * What `skillport dev` adds to serving: a host whose table can be swapped, and a watcher started once it serves and
 * stopped before the host closes.
 */
export interface LiveServe {
  /** The command's name in its messages. */
  command: string;
  /** What the host is created with besides serve's options. */
  host: Pick<HostOptions, "reloadable" | "importUrl">;
  /** Starts once the host serves; what it resolves with stops it. */
  start(host: Host): Promise<{ close(): Promise<void> }>;
}

/**
 * `skillport serve --stdio`: serves the manifest's tools to one MCP client over stdin/stdout.
 * `skillport serve --http`: serves them over Streamable HTTP until SIGTERM or SIGINT, then drains and exits 0.
 * With `live` (`skillport dev`), the same, with the host reloadable, 2025-era sessions over HTTP (so that those
 * clients hear of a swap), and the watcher running while it serves.
 */
export async function serve(options: ServeOptions, live?: LiveServe): Promise<number> {
  if (options.http && options.stdio) {
    process.stderr.write(`[skillport] ${live?.command ?? "serve"}: choose one of --stdio or --http\n`);
    return 2;
  }
  if (options.http) return serveHttp(options, live);
  // Each transport loads only when chosen: stdio start-up never pays for the HTTP stack (jose, prom-client).
  const { claimStdout, serveHostStdio } = await import("@skillport/host/stdio");
  // stdout is the protocol from the first byte: what a skill prints, even while it is imported, goes to stderr.
  claimStdout();
  const host = await createHost(hostOptions(options, live));
  installProcessGuards(host.logger);
  if (options.banner) process.stderr.write(stdioBanner(host, options.manifest, toolRows(host)));
  const serving = serveHostStdio(host);
  const watching = await live?.start(host);
  host.logger.info({ manifest: host.manifest.file, tools: host.registry.tools.size }, "serving over stdio");
  // After what has already arrived (a client's initialize) is answered: everything start-up compiled is loaded by now.
  setImmediate(flushCompileCache);
  // Served while stdin is open; when the client closes it, workers stop and the process exits 0. SIGTERM or SIGINT
  // (how a client stops a server that does not exit on its own) end it the same way, so the host closes and every
  // audit line is written; a second one stops the process at once.
  const stop = () => void serving.close();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  try {
    await serving.closed;
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
  await watching?.close();
  await host.close();
  return 0;
}

// --- internal ---

/** The host serve creates: the manifest, upstream servers reached through the client, and the lock as asked. */
function hostOptions(options: ServeOptions, live: LiveServe | undefined): HostOptions {
  return { manifest: options.manifest, client: upstreamClient, lock: lockMode(options), ...live?.host };
}

/** --frozen-lock insists on a current lock; --no-lock ignores it; by default a current lock is used. */
function lockMode(options: ServeOptions): "auto" | "frozen" | "off" {
  if (options.frozenLock) return "frozen";
  return options.lock === false ? "off" : "auto";
}

/** A repeated stop signal this soon after the first is the same Ctrl+C, delivered twice. */
const SAME_PRESS_MS = 500;

async function serveHttp(options: ServeOptions, live: LiveServe | undefined): Promise<number> {
  // Signals are handled from the start: one that arrives while skills load stops the server as soon as it is up.
  let stop: (signal: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    let first: number | undefined;
    stop = (signal) => {
      if (first === undefined) {
        first = performance.now();
        resolve(signal);
        return;
      }
      // One Ctrl+C can arrive twice: the terminal signals every process in the foreground group, and a wrapper that
      // forwards signals to its child (pnpm, npm, npx) sends it again at once. Only a later one is a second press.
      if (performance.now() - first < SAME_PRESS_MS) return;
      // A second Ctrl+C does not wait for the grace period.
      process.stderr.write(`[skillport] ${signal} again: stopping now, without waiting for in-flight calls\n`);
      process.exit(1);
    };
  });
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  try {
    const host = await createHost(hostOptions(options, live));
    installProcessGuards(host.logger);
    const { serveHostHttp } = await import("@skillport/host/http");
    const serving = await serveHostHttp(host, {
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.path === undefined ? {} : { path: options.path }),
      ...(options.shutdownGrace === undefined ? {} : { shutdownGraceMs: options.shutdownGrace }),
      ...(live === undefined ? {} : { sessions: true }),
    });
    if (options.banner) process.stderr.write(httpBanner(host, serving, options.manifest));
    const watching = await live?.start(host);
    setImmediate(flushCompileCache);
    const signal = await stopped;
    host.logger.info({ signal }, "stopping: finishing in-flight calls");
    await watching?.close();
    await serving.close();
    await host.close();
    return 0;
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
}

function stdioCommand(manifest: string) {
  // The command a client spawns: this very CLI, by absolute path, so it works from any folder.
  return {
    command: process.execPath,
    args: [realpathSync(process.argv[1] ?? "skillport"), "serve", "--stdio", "--manifest", path.resolve(manifest)],
  };
}

function toolTable(rows: ReturnType<typeof toolRows>): string {
  return formatTable(
    ["TOOL", "RISK", "TITLE"],
    rows.map((r) => [r.name, r.risk, r.title]),
  );
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** The note on names a model API refuses, with a blank line after it; empty when every name is safe. */
function namesNote(host: Host, rows: ReturnType<typeof toolRows>): string {
  const note = providerNamesNote(
    rows.map((r) => r.name),
    host.manifest.separator,
    path.basename(host.manifest.file),
  );
  return note === undefined ? "" : `${note}\n\n`;
}

/** The setups of clients that start their own server over stdio: the same in both banners and the README. */
function stdioSetups(manifest: string): string {
  const server = stdioCommand(manifest);
  return `Claude Desktop (claude_desktop_config.json) or Cursor (.cursor/mcp.json):
${json({ mcpServers: { skillport: server } })}

VS Code (.vscode/mcp.json):
${json({ servers: { skillport: { type: "stdio", ...server } } })}
`;
}

function stdioBanner(host: Host, manifest: string, rows: ReturnType<typeof toolRows>): string {
  const search = rows.find((r) => r.name.endsWith("search_notes"));
  const tryCall = search === undefined ? "" : `\n  pnpm exec skillport call ${search.name} '{"keyword":"agent"}'`;
  return `
Skillport is serving ${rows.length} tools from ${path.resolve(manifest)} over stdio.
It is waiting for an MCP client on stdin; press Ctrl+C to stop.

${toolTable(rows)}

${namesNote(host, rows)}Try a tool from another terminal:
  pnpm exec skillport list${tryCall}

Connect a client, which starts its own copy over stdio:

${stdioSetups(manifest)}
`;
}

function httpBanner(host: Host, serving: HttpServing, manifest: string): string {
  const rows = toolRows(host);
  const origin = new URL(serving.url).origin;
  const authed = serving.auth !== "none";
  // VS Code asks for the token once and keeps it out of mcp.json (an "inputs" prompt); Cursor reads it from the
  // environment. Neither file holds the token.
  const vscode = json(
    authed
      ? {
          inputs: [
            { type: "promptString", id: "skillport-token", description: "Skillport bearer token", password: true },
          ],
          servers: {
            skillport: {
              type: "http",
              url: serving.url,
              headers: { Authorization: `Bearer \${input:skillport-token}` },
            },
          },
        }
      : { servers: { skillport: { type: "http", url: serving.url } } },
  );
  const cursor = json({
    mcpServers: {
      skillport: {
        url: serving.url,
        ...(authed ? { headers: { Authorization: `Bearer \${env:SKILLPORT_TOKEN}` } } : {}),
      },
    },
  });
  const authLine = authed
    ? `bearer ${serving.auth === "none" ? "" : serving.auth.join(" or ")} (send Authorization: Bearer <token>)`
    : 'none: loopback only, every caller is "anonymous"';
  const curlAuth = authed ? ` -H "Authorization: Bearer $SKILLPORT_TOKEN"` : "";
  const claudeAuth = authed ? ` --header "Authorization: Bearer $SKILLPORT_TOKEN"` : "";
  return `
Skillport is serving ${rows.length} tools from ${path.resolve(manifest)} over Streamable HTTP.
  MCP endpoint  ${serving.url}   (protocol 2025-11-25 and 2026-07-28, stateless)
  Operations    ${origin}/healthz  ${origin}/readyz  ${origin}/metrics
  Auth          ${authLine}
Press Ctrl+C to stop; in-flight calls get ${host.manifest.http.shutdownGraceMs / 1000} s to finish.

${toolTable(rows)}

${namesNote(host, rows)}Connect a client to this server:

Claude Code:
  claude mcp add --transport http skillport ${serving.url}${claudeAuth}

VS Code (.vscode/mcp.json):
${vscode}

Cursor (.cursor/mcp.json):
${cursor}

curl (one JSON answer; pipe it to jq):
  curl -s ${serving.url} -H 'content-type: application/json' -H 'accept: application/json, text/event-stream'${curlAuth} -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'

Or let the client start its own copy over stdio, with no server to keep running:

${stdioSetups(manifest)}
`;
}
