import { writeFile } from "node:fs/promises";
import path from "node:path";
import { stdioInProcess } from "./in-process.js";
import { REPO } from "./workspace.js";

export const FILES_SKILL = path.join(REPO, "skills/skill-files");
export const NOTES_SKILL_DIR = path.join(REPO, "skills/skill-notes");
export const ECHO_SKILL = path.join(REPO, "packages/host/test/fixtures/skill-echo");

/** The envelope every tool answers with, as the confinement tests read it. */
type Envelope = {
  ok: boolean;
  message: string;
  // biome-ignore lint/suspicious/noExplicitAny: each tool's data has its own shape; the assertions say which
  data?: any;
  error?: { code: string; field?: string; retryable: boolean };
};

/** The host `skillport serve --stdio` builds, served in this process and driven by the SDK client. */
export interface StdioServer {
  /** Calls a tool; `timeout` bounds a call that would otherwise hang (a failure, not a timing check). */
  call(name: string, args: Record<string, unknown>, timeout?: number): Promise<Envelope>;
  /** The server's stderr so far, for failure messages. */
  stderr(): string;
  close(): Promise<void>;
}

/** Writes `manifest` into `dir` and serves it over stdio; `env` is set for the host's life. */
export async function serveStdio(
  dir: string,
  manifest: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<StdioServer> {
  const file = path.join(dir, "confine.manifest.json");
  await writeFile(file, JSON.stringify({ name: "confine-test", version: "1.0.0", ...manifest }, null, 2));
  const served = await stdioInProcess(file, { env, logLevel: "warn" });
  return {
    async call(name, args, timeout = 60_000) {
      const result = await served.client.callTool({ name, arguments: args }, { timeout });
      return result.structuredContent as Envelope;
    },
    stderr: served.stderr,
    close: () => served.close(),
  };
}
