import type { ChildProcess, ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const CLI = path.join(REPO, "packages/cli/bin/skillport.js");
export const NOTES_SKILL = path.join(REPO, "skills/skill-notes");

/** A scratch folder with a copy of the example vault and a manifest over it; removed by `dispose`. */
export interface Workspace {
  dir: string;
  vault: string;
  manifest: string;
  writeManifest(manifest: unknown, name?: string): Promise<string>;
  dispose(): Promise<void>;
}

export async function makeWorkspace(): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-cli-"));
  const vault = path.join(dir, "vault");
  await cp(path.join(REPO, "examples/vault"), vault, { recursive: true });
  const writeManifest = async (manifest: unknown, name = "skills.manifest.json") => {
    const file = path.join(dir, name);
    await writeFile(file, typeof manifest === "string" ? manifest : JSON.stringify(manifest, null, 2));
    return file;
  };
  const manifest = await writeManifest(notesManifest());
  return { dir, vault, manifest, writeManifest, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** The notes skill from its folder, over the workspace's vault copy. */
export function notesManifest(extra: Record<string, unknown> = {}) {
  return {
    name: "test-server",
    version: "1.2.3",
    skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" }, ...extra }],
  };
}

/** What a finished command printed, and how it exited. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI to completion; `env` adds to this process's environment (undefined removes a variable); `input`,
 * when given, is its stdin.
 */
export function runCli(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
  input?: string,
): Promise<Ran> {
  return runNode(CLI, args, cwd, env, input);
}

/** Runs a Node script to completion, its stdout and stderr kept apart; `input`, when given, is its stdin. */
export function runNode(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
  input?: string,
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      cwd,
      env: withEnv(env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    // Without input, stdin is at its end at once, as from /dev/null; a child that exits first needs none of it.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input ?? "");
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs any program to completion with its stdout and stderr together, in the order written (for transcripts printed
 * only when a test fails); `env` adds to this process's environment (undefined removes a variable).
 */
export function runCombined(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: withEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (d: Buffer) => {
      output += d.toString();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** Options for {@link connectStdio}. */
export interface StdioClientOptions {
  /** The SDK client's options (protocol era, capabilities). @default {} */
  client?: Record<string, unknown>;
  /** Extra environment for the server. SKILLPORT_LOG_LEVEL defaults to "silent". */
  env?: Record<string, string>;
  /** Extra `serve` arguments. */
  args?: string[];
  /** The command that serves: `dev` serves and watches. @default "serve" */
  command?: "serve" | "dev";
}

/**
 * `skillport serve --stdio` in a child process, with the SDK client connected to it over its stdin/stdout. The
 * server's stderr is kept in a buffer (`stderr()`), for a test to print when it fails; a passing test prints nothing.
 */
export async function connectStdio(manifest: string, cwd: string, options: StdioClientOptions = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, options.command ?? "serve", "--stdio", "--manifest", manifest, ...(options.args ?? [])],
    cwd,
    env: { ...(process.env as Record<string, string>), SKILLPORT_LOG_LEVEL: "silent", ...options.env },
    stderr: "pipe",
  });
  // Read as it comes, so a talkative server never blocks on a full pipe.
  const stderr = textStream();
  transport.stderr?.on("data", (d: Buffer) => stderr.add(d.toString()));
  const client = new Client({ name: "skillport-cli-test", version: "0.0.0" }, options.client as never);
  return { client, transport, ready: client.connect(transport), stderr: stderr.text, stderrUntil: stderr.until };
}

/** `skillport serve --http --port 0` in a child process; `url` resolves from its {"msg":"listening"} log line. */
export interface ServedHttp {
  child: ChildProcess;
  url: Promise<string>;
  stderr(): string;
  /** Resolves once `check` holds of its stderr (checked as each chunk arrives); rejects if the process exits first. */
  stderrUntil(check: (text: string) => boolean): Promise<void>;
  exit: Promise<number | null>;
}

export function serveHttp(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  command: "serve" | "dev" = "serve",
): ServedHttp {
  const child = spawn(process.execPath, [CLI, command, "--http", "--port", "0", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr = textStream();
  const url = new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      stderr.add(d.toString());
      // Log lines are JSON; the banner around them is not.
      for (const line of stderr.text().split("\n").slice(0, -1)) {
        if (!line.startsWith('{"level"')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "listening" && entry.url !== undefined) resolve(entry.url);
      }
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code} before listening:\n${stderr.text()}`)));
  });
  url.catch(() => undefined);
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // On "close", not "exit": the last of its stderr may still be on its way when it exits.
  const exited = new Promise<never>((_, reject) =>
    child.on("close", (code) => reject(new Error(`serve exited with ${code}; its stderr:\n${stderr.text()}`))),
  );
  exited.catch(() => undefined);
  const stderrUntil = (check: (text: string) => boolean) => Promise.race([stderr.until(check), exited]);
  return { child, url, stderr: stderr.text, stderrUntil, exit };
}

/** An SDK client connected over Streamable HTTP to `url`, calling with `token` as its bearer token (none: none). */
export async function connectAs(url: string, token: string | undefined, name = "http-caller"): Promise<Client> {
  const client = new Client({ name, version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
    ),
  );
  return client;
}

/**
 * An SDK client for each served replica, calling with `token` as its bearer token, once every replica says it shares
 * through the store (on its first heartbeat, or its second if Redis was not connected yet).
 */
export async function connectReplicas(servers: readonly ServedHttp[], name: string, token: string): Promise<Client[]> {
  const clients: Client[] = [];
  for (const server of servers) clients.push(await connectAs(await server.url, token, name));
  await Promise.all(servers.map((s) => s.stderrUntil((text) => storeState(text) === "reachable")));
  return clients;
}

/**
 * What a served process last logged about its shared state store (`state` in the manifest): "reachable" once it
 * says it shares through the store or that the store is back, "unreachable" once it says it cannot reach it, and
 * undefined before it said either. It says so on its heartbeat (every 2 s) and on a call that reaches the store.
 *
 * @example
 * await served.stderrUntil((text) => storeState(text) === "reachable");
 */
export function storeState(stderr: string): "reachable" | "unreachable" | undefined {
  const up = Math.max(stderr.lastIndexOf(STORE_SHARED), stderr.lastIndexOf(STORE_BACK));
  const down = stderr.lastIndexOf(STORE_DOWN);
  if (up === -1 && down === -1) return undefined;
  return up > down ? "reachable" : "unreachable";
}

const STORE_SHARED = "sharing rate limits and confirmations through the state store";
const STORE_BACK = "the state store is reachable again";
const STORE_DOWN = "the state store cannot be reached";

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages of any method
type Message = any;

/** `skillport serve --stdio` driven byte by byte: every stdout line is kept, parsed or not. */
export interface RawServer {
  child: ChildProcessWithoutNullStreams;
  send(message: unknown): void;
  /** Every line the server wrote to stdout, in order. */
  lines: string[];
  stderr(): string;
  /** Resolves with the first stdout message `match` accepts; rejects if the process exits first. */
  next(match: (message: Message) => boolean): Promise<Message>;
  /** Resolves once `check` holds of stderr; rejects if the process exits first. */
  stderrUntil(check: (text: string) => boolean): Promise<void>;
  close(): Promise<number | null>;
}

export function serveRaw(
  manifest: string,
  cwd: string,
  env: Record<string, string> = {},
  args: string[] = [],
): RawServer {
  const child = spawn(process.execPath, [CLI, "serve", "--stdio", "--manifest", manifest, ...args], {
    cwd,
    env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  let partial = "";
  let stderr = "";
  let exited: number | null | undefined;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
    wake();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    wake();
  });
  child.on("exit", (code) => {
    exited = code;
    wake();
  });
  const until = <T>(found: () => T | undefined, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = found();
        if (value !== undefined) {
          waiters.delete(check);
          resolve(value);
        } else if (exited !== undefined) {
          waiters.delete(check);
          reject(new Error(`serve --stdio exited with ${exited} before ${what}; stderr:\n${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });
  return {
    child,
    lines,
    send: (message) => child.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`),
    stderr: () => stderr,
    next: (match) =>
      until(() => {
        for (const line of lines) {
          try {
            const message = JSON.parse(line);
            if (match(message)) return message;
          } catch {
            // not JSON: the assertions on `lines` catch it
          }
        }
        return undefined;
      }, "the expected message"),
    stderrUntil: async (check) => {
      await until(() => (check(stderr) ? true : undefined), "the expected stderr");
    },
    close: () => {
      child.stdin.end();
      return new Promise((resolve) => {
        if (exited !== undefined) resolve(exited);
        else child.on("exit", (code) => resolve(code));
      });
    },
  };
}

export const initialize = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});
export const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };

// --- internal ---

/** Text that arrives in chunks, and waits for a condition on it that are checked as each chunk arrives. */
export function textStream() {
  let text = "";
  const waiters = new Set<() => void>();
  return {
    add(chunk: string) {
      text += chunk;
      for (const wake of [...waiters]) wake();
    },
    text: () => text,
    until: (check: (text: string) => boolean) =>
      new Promise<void>((resolve) => {
        const wake = () => {
          if (!check(text)) return;
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
        wake();
      }),
  };
}

export function withEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}
