import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { StdioSpec } from "@skillport/client/node";
import { untilLines } from "@skillport/test-utils";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(REPO, "packages/cli/bin/skillport.js");
const NOTES_SKILL = path.join(REPO, "skills/skill-notes");
const FIXTURE_SERVER = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
const here = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/", import.meta.url));
export const EVERYTHING = path.join(here, "server-everything/dist/index.js");
export const FILESYSTEM = path.join(here, "server-filesystem/dist/index.js");

/** A scratch folder, removed by `dispose`. */
export interface Scratch {
  dir: string;
  file(name: string): string;
  dispose(): Promise<void>;
}

export async function scratch(): Promise<Scratch> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-client-"));
  return { dir, file: (name) => path.join(dir, name), dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** The lines the fixture server wrote to its log: "start <pid>", "sleeping <pid>", "cancelled <pid>". */
async function fixtureLog(file: string): Promise<string[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter(Boolean);
}

/** The pids of the fixture servers started so far. */
export async function startedPids(file: string): Promise<number[]> {
  return (await fixtureLog(file)).filter((l) => l.startsWith("start ")).map((l) => Number(l.slice(6)));
}

/** The fixture server as a stdio spec, logging to `log`. */
export function fixtureSpec(log: string, extra: Partial<StdioSpec> = {}): StdioSpec {
  return {
    transport: "stdio",
    command: process.execPath,
    args: [FIXTURE_SERVER],
    ...extra,
    env: { FIXTURE_LOG: log, ...extra.env },
  };
}

/** A manifest serving the notes skill over a copy of nothing: the bundled example vault, audit lines in a file. */
export async function notesManifest(where: Scratch, extra: Record<string, unknown> = {}): Promise<string> {
  const file = where.file("skills.manifest.json");
  await writeFile(
    file,
    JSON.stringify({
      name: "client-test",
      version: "1.0.0",
      skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: path.join(REPO, "examples/vault") } }],
      audit: { file: where.file("audit.log") },
      ...extra,
    }),
  );
  return file;
}

/** Skillport's `serve --stdio` over a manifest, as a stdio spec (quiet). */
export function skillportStdio(manifest: string, extra: Partial<StdioSpec> = {}): StdioSpec {
  return {
    transport: "stdio",
    command: process.execPath,
    args: [CLI, "serve", "--stdio", "--manifest", manifest],
    ...extra,
    env: { SKILLPORT_LOG_LEVEL: "silent", ...extra.env },
  };
}

/**
 * Resolves once the fixture server's log has a line starting with `prefix` ("sleeping", "cancelled"), or `count` of
 * them: the file is watched, not polled.
 */
export async function logged(file: string, prefix: string, count = 1): Promise<void> {
  await untilLines(file, (lines) => lines.filter((l) => l.startsWith(prefix)).length >= count);
}

/**
 * Resolves once `check` holds: checked now and at each change `subscribe` reports (a hub's events, a handle's state,
 * both told after the change is made), never on a timer.
 *
 * @example
 * await whenChanged((wake) => hub.subscribe(wake), () => hub.listTools().some((t) => t.name === "a.echo"));
 */
export function whenChanged(subscribe: (wake: () => void) => () => void, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const unsubscribe = subscribe(() => {
      if (!check()) return;
      unsubscribe();
      resolve();
    });
  });
}

/**
 * Resolves once no process has this pid. A process another one started (the SDK's transport) reports its end to no
 * one here, so this one wait looks again every 20 ms; it never bounds how long the end takes.
 */
export async function gone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `skillport serve --http --port 0` in a child process; `url` resolves from its {"msg":"listening"} log line. */
export interface ServedHttp {
  url: Promise<string>;
  stderr(): string;
  stop(): Promise<void>;
}

export function serveHttp(manifest: string, env: Record<string, string> = {}): ServedHttp {
  const child = spawn(process.execPath, [CLI, "serve", "--http", "--port", "0", "--manifest", manifest], {
    env: { PATH: process.env.PATH ?? "", SKILLPORT_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      for (const line of stderr.split("\n").slice(0, -1)) {
        if (!line.startsWith('{"level"')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "listening" && entry.url !== undefined) resolve(entry.url);
      }
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code} before listening:\n${stderr}`)));
  });
  url.catch(() => undefined);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
