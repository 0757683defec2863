import { parseArgs } from "node:util";
import type { ServeOptions } from "./commands/serve.js";

/**
 * `skillport serve`'s arguments read without commander, for the command lines MCP clients spawn (`serve --stdio
 * --manifest …`, `--frozen-lock`): the flags serve declares, each as commander reads it, with the same defaults.
 * Undefined for everything else — help, `--no-lock`, a number that is not a whole number, an unknown flag, an
 * argument, a value that starts with "-" — which commander then reads, with its own messages.
 *
 * @example
 * quickServeOptions(["--stdio", "-m", "app.manifest.json"], "skills.manifest.json");
 * // { manifest: "app.manifest.json", stdio: true, lock: true }
 */
export function quickServeOptions(args: readonly string[], defaultManifest: string): ServeOptions | undefined {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: false }));
  } catch {
    return undefined;
  }
  const options: ServeOptions = { manifest: defaultManifest, lock: true };
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const key = KEYS[name];
    if (key === undefined) return undefined;
    if (name === "log-level" && !LOG_LEVELS.has(String(value))) return undefined;
    if (NUMBERS.has(name)) {
      if (typeof value !== "string" || !/^\d+$/.test(value)) return undefined;
      Object.assign(options, { [key]: Number(value) });
    } else {
      Object.assign(options, { [key]: value });
    }
  }
  return options;
}

// --- internal ---

/** serve's flags (program.ts declares them for commander), except --no-lock and --help, left to commander. */
const OPTIONS = {
  manifest: { type: "string", short: "m" },
  stdio: { type: "boolean" },
  http: { type: "boolean" },
  "frozen-lock": { type: "boolean" },
  host: { type: "string" },
  port: { type: "string" },
  path: { type: "string" },
  "shutdown-grace": { type: "string" },
  banner: { type: "boolean" },
  "log-level": { type: "string" },
} as const;

/** Each flag's key in ServeOptions, as commander names it (camel case). */
const KEYS: Record<string, keyof ServeOptions> = {
  manifest: "manifest",
  stdio: "stdio",
  http: "http",
  "frozen-lock": "frozenLock",
  host: "host",
  port: "port",
  path: "path",
  "shutdown-grace": "shutdownGrace",
  banner: "banner",
  "log-level": "logLevel",
};

/** --log-level's choices (program.ts declares them for commander, which refuses any other). */
const LOG_LEVELS = new Set(["debug", "info", "warn", "error", "silent"]);

const NUMBERS = new Set(["port", "shutdown-grace"]);
