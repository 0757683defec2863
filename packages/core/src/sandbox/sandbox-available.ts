import { spawn } from "node:child_process";
import { BWRAP_LOCATIONS, findBwrap, sandboxCommand } from "./sandbox-command.js";

/** Whether commands can be sandboxed on this machine, and if not, why. */
export type SandboxStatus =
  | { available: true; bwrap: string }
  | {
      available: false;
      /** What is missing or failing, and what to do about it. */
      reason: string;
    };

/** Options of `sandboxAvailable`. */
export interface SandboxAvailableOptions {
  /**
   * The bubblewrap executable to try.
   * @default the first of BWRAP_LOCATIONS that exists
   */
  bwrap?: string;
}

/** How long the probe may take before bubblewrap counts as unusable. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Tells whether bubblewrap is installed **and works** here: it runs `true` in a sandbox built like the real ones
 * (a present bubblewrap can still fail, e.g. where unprivileged user namespaces are disabled). The answer is a fact
 * about the machine, so it is probed once per bubblewrap path and remembered for the life of the process.
 *
 * @example
 * const status = await sandboxAvailable();
 * if (!status.available) log.warn(`running without a sandbox: ${status.reason}`);
 */
export function sandboxAvailable(options: SandboxAvailableOptions = {}): Promise<SandboxStatus> {
  const bwrap = options.bwrap ?? findBwrap();
  if (bwrap === undefined) {
    return Promise.resolve({
      available: false,
      reason: `bubblewrap is not installed (looked in ${BWRAP_LOCATIONS.join(", ")}); install the "bubblewrap" package`,
    });
  }
  let status = probes.get(bwrap);
  if (status === undefined) {
    status = probe(bwrap);
    probes.set(bwrap, status);
  }
  return status;
}

// --- internal ---

/** One probe per bubblewrap path: whether it works is a property of the machine, not of a call. */
const probes = new Map<string, Promise<SandboxStatus>>();

function probe(bwrap: string): Promise<SandboxStatus> {
  const run = sandboxCommand({ bwrap, command: "true", cwd: "/", env: { PATH: "/usr/bin:/bin" }, mounts: [] });
  return new Promise((resolve) => {
    let stderr = "";
    let settled = false;
    const done = (status: SandboxStatus) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(status);
    };
    const child = spawn(run.command, run.args, { env: run.env, stdio: ["ignore", "ignore", "pipe"] });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done({ available: false, reason: `${bwrap} did not start a sandbox within ${PROBE_TIMEOUT_MS} ms` });
    }, PROBE_TIMEOUT_MS);
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => done({ available: false, reason: `${bwrap} cannot be started: ${error.message}` }));
    child.on("close", (code, signal) => {
      if (code === 0) {
        done({ available: true, bwrap });
        return;
      }
      const why = stderr.trim().split("\n")[0] || (signal === null ? `exit code ${code}` : `signal ${signal}`);
      done({
        available: false,
        reason: `${bwrap} is installed but cannot create a sandbox here (${why}); it needs user namespaces, or root`,
      });
    });
  });
}
