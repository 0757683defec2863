import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync } from "node:fs";
import { expect } from "vitest";

/** A program some tests need that a machine may not have; `.ci/run` installs each of them. */
export type Tool = "bubblewrap" | "chromium" | "redis-server";

/** Whether this run is CI (`CI` set, and not "false" or empty): there a missing tool fails its tests instead. */
export const CI = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";

/**
 * The variable naming the file a skip's reason is appended to; the shared vitest reporter (vitest.report.ts) sets it
 * and prints one line per reason at the end of the run.
 */
export const SKIPS_FILE_VARIABLE = "SKILLPORT_TEST_SKIPS";

/** Where Debian's chromium lives (the client's browser test drives it; nothing downloads a browser). */
export const CHROMIUM = "/usr/bin/chromium";

/** How the tests launch it: headless, quiet, no network of its own beyond the pages they open. */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Whether `tool` runs here. bubblewrap must be able to make its namespaces, not only be installed (a container may
 * refuse them); give `available` where the test has its own, finer probe (core's `sandboxAvailable()`).
 */
export function hasTool(tool: Tool): boolean {
  const known = probed.get(tool);
  if (known !== undefined) return known;
  const found = probe(tool);
  probed.set(tool, found);
  return found;
}

/**
 * Whether the tests that need `tool` are to be skipped: where it is missing, except in CI, where they run and fail.
 * A skip is recorded with its reason (`no redis-server`), so the run's summary names it.
 *
 * @example
 * describe.skipIf(skipWithout("redis-server"))("two replicas over one Redis", () => { ... });
 * it.skipIf(skipWithout("bubblewrap", sandbox.available))("runs in the sandbox", ...);
 */
export function skipWithout(tool: Tool, available: boolean = hasTool(tool)): boolean {
  if (available || CI) return false;
  const log = process.env[SKIPS_FILE_VARIABLE];
  if (log !== undefined && log !== "") {
    const file = expect.getState().testPath ?? "";
    appendFileSync(log, `${JSON.stringify({ file, reason: `no ${tool}` })}\n`);
  }
  return true;
}

/** The error a test that needs `tool` throws where it is missing (in CI, where it is not skipped). */
export function missingTool(tool: Tool): Error {
  const install = tool === "bubblewrap" ? "bubblewrap" : tool;
  return new Error(`${tool} is not available here (apt-get install ${install}); .ci/run installs it`);
}

// --- internal ---

const probed = new Map<Tool, boolean>();

function probe(tool: Tool): boolean {
  switch (tool) {
    case "bubblewrap":
      return spawnSync("bwrap", ["--unshare-all", "--ro-bind", "/", "/", "true"], { stdio: "ignore" }).status === 0;
    case "chromium":
      return existsSync(CHROMIUM);
    case "redis-server":
      return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
  }
}
