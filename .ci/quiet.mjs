#!/usr/bin/env node
// Runs one step of `pnpm lint` (`node .ci/quiet.mjs <label> <command> [args…]`) and keeps it quiet when it passes:
// one line, "<label>: ok in N s". When it fails, everything it printed is shown, in order, then its exit status.
import { spawn } from "node:child_process";

const [label, command, ...args] = process.argv.slice(2);
if (label === undefined || command === undefined) {
  process.stderr.write("usage: node .ci/quiet.mjs <label> <command> [args…]\n");
  process.exit(2);
}
const color = process.stdout.isTTY === true;
const started = performance.now();
const child = spawn(command, args, {
  stdio: ["inherit", "pipe", "pipe"],
  env: { ...process.env, ...(color ? { FORCE_COLOR: "1" } : {}) },
});
const output = [];
child.stdout.on("data", (chunk) => output.push(chunk));
child.stderr.on("data", (chunk) => output.push(chunk));
child.on("error", (error) => {
  process.stderr.write(`[skillport] cannot run ${command}: ${error.message}\n`);
  process.exitCode = 1;
});
child.on("close", (code, signal) => {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (code === 0) {
    process.stdout.write(`${label}: ok in ${seconds} s\n`);
    return;
  }
  process.stdout.write(Buffer.concat(output));
  process.stdout.write(`${label}: failed (${signal ?? `exit ${code}`}) after ${seconds} s\n`);
  process.exitCode = code ?? 1;
});
