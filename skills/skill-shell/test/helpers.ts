import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { sandboxAvailable } from "@skillport/core/sandbox";
import { mockContext } from "@skillport/testing";
import type { z } from "zod";
import { ShellConfig } from "../src/index.js";

/** node itself is on the test PATH, so "node" can be allowlisted like any program. */
export const TEST_PATH = [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":");

/** A context as the host builds one, for calling the capability directly (the testing kit's mockContext). */
export function ctxFor(
  config: ShellConfig,
  options: { signal?: AbortSignal; progress?: SkillContext["progress"] } = {},
): SkillContext<ShellConfig> {
  const ctx = mockContext({ config, ...(options.signal === undefined ? {} : { signal: options.signal }) });
  return options.progress === undefined ? ctx : { ...ctx, progress: options.progress };
}

/** A config as a manifest writes it: defaults may be left out. */
export type ConfigInput = Partial<z.input<typeof ShellConfig>>;

export interface Sandbox {
  base: string;
  /** The instance's root, with argv.js (prints its arguments as JSON) and a few files a glob would match. */
  root: string;
  outside: string;
  config(overrides?: ConfigInput): ShellConfig;
  dispose(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "skill-shell-")));
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  await mkdir(path.join(root, "sub"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "argv.js"), "process.stdout.write(JSON.stringify(process.argv.slice(2)));\n");
  await writeFile(path.join(root, "a.txt"), "a");
  await writeFile(path.join(root, "b.txt"), "b");
  return {
    base,
    root,
    outside,
    config: (overrides = {}) =>
      ShellConfig.parse({
        commands: ["echo", "printf", "node", "sh", "sleep", "env", "pwd"],
        roots: [root],
        env: { PATH: TEST_PATH },
        // Interpreters have no built-in policy: the manifest must say that anything goes.
        policies: { node: { arguments: "any" }, sh: { arguments: "any" } },
        ...overrides,
      }),
    dispose: () => rm(base, { recursive: true, force: true }),
  };
}

/** True once a process no longer runs: no such pid, or a zombie nobody has reaped yet. */
export function isGone(pid: number): boolean {
  if (existsSync("/proc/self/stat")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      return true;
    }
    const state = stat.slice(stat.lastIndexOf(")") + 2).charAt(0);
    return state === "Z" || state === "X";
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * The host pids of live `sleep <marker>` processes. Inside a sandbox a process has another pid (its own pid
 * namespace), so tests find sandboxed processes by a marker in their command line instead.
 */
export function sleepers(marker: string): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        return path.basename(argv[0] ?? "") === "sleep" && argv[1] === marker && !isGone(pid);
      } catch {
        return false;
      }
    });
}

/** A marker no other test's sleep uses: a duration nobody types. */
export function sleepMarker(): string {
  return `${300 + Math.floor(Math.random() * 600)}.${Math.floor(Math.random() * 1e6)}`;
}

/** Whether commands run sandboxed here; tests that need it skip without it (`skipWithout`), except in CI. */
export const sandboxStatus = await sandboxAvailable();

/** Polls until `check` holds or `ms` pass; generous, never a timing assertion. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}
