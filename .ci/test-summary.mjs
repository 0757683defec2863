#!/usr/bin/env node
// The last step of `pnpm test`: runs every package's tests through turbo, passes their output through as it comes,
// and closes with one line over every package's vitest summary: "N passed, N failed". Exits with turbo's status.
import { spawn } from "node:child_process";

const color = process.stdout.isTTY === true;
const turbo = spawn("turbo", ["run", "test", ...(color ? ["--color"] : []), ...process.argv.slice(2)], {
  stdio: ["inherit", "pipe", "pipe"],
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", ...(color ? { FORCE_COLOR: "1" } : {}) },
});

const counts = { passed: 0, failed: 0 };
let rest = "";
turbo.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  const lines = (rest + chunk.toString()).split("\n");
  rest = lines.pop() ?? "";
  for (const line of lines) count(line);
});
turbo.stderr.pipe(process.stderr);
turbo.on("error", (error) => {
  process.stderr.write(`[skillport] cannot run turbo: ${error.message}\n`);
  process.exitCode = 1;
});
turbo.on("close", (code, signal) => {
  count(rest);
  process.stdout.write(`${counts.passed} passed, ${counts.failed} failed\n`);
  process.exitCode = code ?? (signal === null ? 1 : 128);
});

/** Adds a vitest summary line ("pkg:test:       Tests  2 failed | 138 passed (140)") to the counts. */
function count(line) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what is being removed
  const plain = line.replace(/\u001b\[[0-9;]*m/g, "");
  const summary = /^(?:\S+:test:)?\s*Tests\s+(.*\(\d+\))\s*$/.exec(plain)?.[1];
  if (summary === undefined) return;
  counts.passed += Number(/(\d+) passed/.exec(summary)?.[1] ?? 0);
  counts.failed += Number(/(\d+) failed/.exec(summary)?.[1] ?? 0);
}
