import { realpathSync } from "node:fs";
import path from "node:path";
import { createHost, installProcessGuards } from "@skillport/host";
import { serveHostStdio } from "@skillport/host/stdio";
import { formatTable } from "../format-table.js";
import { toolRows } from "../tool-rows.js";

export interface ServeOptions {
  manifest: string;
  stdio?: boolean;
  banner?: boolean;
}

/** `skillport serve --stdio`: serves the manifest's tools to one MCP client over stdin/stdout. */
export async function serve(options: ServeOptions): Promise<number> {
  const host = await createHost({ manifest: options.manifest });
  installProcessGuards(host.logger);
  if (options.banner) process.stderr.write(banner(options.manifest, toolRows(host)));
  serveHostStdio(host);
  host.logger.info({ manifest: host.manifest.file, tools: host.registry.tools.size }, "serving over stdio");
  // The process stays up while stdin is open; the transport ends it when the client closes.
  return new Promise<number>(() => undefined);
}

// --- internal ---

function banner(manifest: string, rows: ReturnType<typeof toolRows>): string {
  const absolute = path.resolve(manifest);
  const table = formatTable(
    ["TOOL", "RISK", "TITLE"],
    rows.map((r) => [r.name, r.risk, r.title]),
  );
  // The command a client spawns: this very CLI, by absolute path, so it works from any folder.
  const server = {
    command: process.execPath,
    args: [realpathSync(process.argv[1] ?? "skillport"), "serve", "--stdio", "--manifest", absolute],
  };
  const claude = JSON.stringify({ mcpServers: { skillport: server } }, null, 2);
  const vscode = JSON.stringify({ servers: { skillport: { type: "stdio", ...server } } }, null, 2);
  return `
Skillport is serving ${rows.length} tools from ${absolute} over stdio.
It is waiting for an MCP client on stdin; press Ctrl+C to stop.

${table}

Try a tool from another terminal:
  pnpm exec skillport list
  pnpm exec skillport call notes.search_notes '{"keyword":"agent"}'

Connect Claude Desktop (claude_desktop_config.json) or Cursor (.cursor/mcp.json):
${claude}

Connect VS Code (.vscode/mcp.json):
${vscode}

`;
}
