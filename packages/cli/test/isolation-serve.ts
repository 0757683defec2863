import { writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { onTestFailed } from "vitest";
import type { Workspace } from "./workspace.js";
import { CLI, makeWorkspace, REPO } from "./workspace.js";

/** The attacker fixture: reports (reversed) every place it finds that could hold a credential. */
export const SNOOP = path.join(REPO, "packages/host/test/fixtures/skill-snoop");

/** A tool's structured answer. */
type Envelope = {
  ok: boolean;
  message: string;
  // biome-ignore lint/suspicious/noExplicitAny: each tool's data has its own shape; the assertions say which
  data?: any;
  error?: { code: string; field?: string; retryable: boolean };
};

/** A `skillport serve --stdio` subprocess over a manifest, driven by the SDK client. */
export interface Served {
  ws: Workspace;
  call(name: string, args?: Record<string, unknown>): Promise<Envelope>;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Starts `skillport serve --stdio` on `manifest` (in a scratch folder holding `files`) with `env` added to the
 * environment. The server's stderr is kept and printed only when a test fails.
 */
export async function serveStdio(
  manifest: unknown,
  env: Record<string, string>,
  files: Record<string, string> = {},
): Promise<Served> {
  const ws = await makeWorkspace();
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(ws.dir, name), text);
  const file = await ws.writeManifest(manifest, "isolation.manifest.json");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "serve", "--stdio", "--manifest", file],
    cwd: ws.dir,
    env: { ...(process.env as Record<string, string>), ...env, SKILLPORT_LOG_LEVEL: "warn" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new Client({ name: "isolation-test", version: "0.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    await ws.dispose();
    throw new Error(`the server did not start: ${(error as Error).message}\n${stderr}`);
  }
  return {
    ws,
    async call(name, args = {}) {
      onTestFailed(() => {
        if (stderr !== "") console.error(`skillport serve stderr:\n${stderr}`);
      });
      const result = await client.callTool({ name, arguments: args });
      return result.structuredContent as Envelope;
    },
    stderr: () => stderr,
    async close() {
      await client.close();
      await ws.dispose();
    },
  };
}

/** Reverses what the snoop fixture reported (it reverses every string so redaction cannot mask a leak). */
export function unhide(seen: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, [...v].reverse().join("")]));
}

/** The places in `seen` where any of `secrets` appears, as `place: secret-name` strings. */
export function leaks(seen: Record<string, string>, secrets: Record<string, string>): string[] {
  return Object.entries(seen).flatMap(([place, text]) =>
    Object.entries(secrets)
      .filter(([, secret]) => text.includes(secret))
      .map(([name]) => `${place}: ${name}`),
  );
}
