import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** How a skill folder's own build went. */
export interface BuildOutcome {
  ok: boolean;
  /** The command run, as a person would type it: `pnpm run build`. */
  command: string;
  /** Its exit code (null when a signal stopped it). */
  code: number | null;
  /** The last lines it printed, stdout and stderr together, in the order written. */
  tail: string[];
  ms: number;
}

/**
 * Runs a skill folder's own `build` script (its package.json `scripts.build`) with the package manager the folder
 * is installed with (the lockfile found from it up: pnpm, yarn, else npm); undefined when it has no build script.
 *
 * @example
 * const built = await buildSkill("/repo/skills/skill-weather");
 * if (built?.ok === false) console.error(built.tail.join("\n"));
 */
export async function buildSkill(folder: string): Promise<BuildOutcome | undefined> {
  if (!hasBuildScript(folder)) return undefined;
  const manager = packageManagerOf(folder);
  const command = `${manager} run build`;
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(manager, ["run", "build"], {
      cwd: folder,
      stdio: ["ignore", "pipe", "pipe"],
      // pnpm and npm are .cmd files on Windows, which only a shell runs.
      shell: process.platform === "win32",
      env: { ...process.env, FORCE_COLOR: "0" },
    });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-KEPT_CHARS);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const done = (code: number | null) =>
      resolve({ ok: code === 0, command, code, tail: tailOf(output), ms: performance.now() - started });
    child.on("error", (error) => {
      output += `\n${error.message}`;
      done(null);
    });
    child.on("close", done);
  });
}

/** Whether a folder's package.json has a `build` script. */
export function hasBuildScript(folder: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8")) as {
      scripts?: Record<string, unknown>;
    };
    return typeof pkg.scripts?.build === "string";
  } catch {
    return false;
  }
}

// --- internal ---

/** How much of a build's output is kept: enough for its last lines. */
const KEPT_CHARS = 16_384;
const TAIL_LINES = 20;

function tailOf(output: string): string[] {
  return output
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line !== "")
    .slice(-TAIL_LINES);
}

/** The package manager a folder is installed with: the first lockfile found from it up. */
function packageManagerOf(folder: string): "pnpm" | "yarn" | "npm" {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "pnpm-lock.yaml"))) return "pnpm";
    if (existsSync(path.join(dir, "yarn.lock"))) return "yarn";
    if (existsSync(path.join(dir, "package-lock.json"))) return "npm";
    if (path.dirname(dir) === dir) return "npm";
  }
}
