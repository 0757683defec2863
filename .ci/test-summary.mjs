#!/usr/bin/env node
// The last step of `pnpm test`: builds, typechecks and tests every package and builds the docs site in one turbo run
// (a package's tests start as soon as what they need is built, beside the typechecks still running) and closes with
// one line over every package's tests, "N passed, N failed, N skipped", after one line per reason tests were skipped
// (no bubblewrap, no chromium, no redis-server). Green is quiet: turbo shows a task's log only when it fails
// (outputLogs "errors-only"), and what turbo itself prints is shown only when something failed. The counts come from
// each package's .test-report.json, written by the shared vitest reporter (vitest.report.ts) and kept by turbo, so a
// cached task still counts. Exits with turbo's status.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const REPORT_FILE = ".test-report.json";
const color = process.stdout.isTTY === true;
const packages = ["packages", "skills"].flatMap((group) =>
  readdirSync(path.join(ROOT, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(ROOT, group, entry.name, "package.json")))
    .map((entry) => path.join(group, entry.name)),
);
for (const pkg of packages) rmSync(path.join(ROOT, pkg, REPORT_FILE), { force: true });

const started = performance.now();
const turbo = spawn(
  "turbo",
  [
    "run",
    "build",
    "typecheck",
    "test",
    "//#docs:build",
    "--output-logs=errors-only",
    "--continue",
    ...(color ? ["--color"] : []),
    ...process.argv.slice(2),
  ],
  {
    cwd: ROOT,
    stdio: ["inherit", "pipe", "pipe"],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", ...(color ? { FORCE_COLOR: "1" } : {}) },
  },
);
const output = [];
turbo.stdout.on("data", (chunk) => output.push(chunk));
turbo.stderr.on("data", (chunk) => output.push(chunk));
turbo.on("error", (error) => {
  process.stderr.write(`[skillport] cannot run turbo: ${error.message}\n`);
  process.exitCode = 1;
});
turbo.on("close", (code, signal) => {
  const status = code ?? (signal === null ? 1 : 128);
  if (status !== 0) process.stdout.write(Buffer.concat(output));
  const total = { passed: 0, failed: 0, skipped: 0 };
  const reasons = new Map();
  let reported = 0;
  for (const pkg of packages) {
    const file = path.join(ROOT, pkg, REPORT_FILE);
    if (!existsSync(file)) continue;
    reported += 1;
    const report = JSON.parse(readFileSync(file, "utf8"));
    total.passed += report.passed;
    total.failed += report.failed;
    total.skipped += report.skipped;
    for (const [reason, group] of Object.entries(report.reasons)) {
      const seen = reasons.get(reason) ?? { tests: 0, files: [] };
      seen.tests += group.tests;
      seen.files.push(...group.files.map((f) => path.join(pkg, f)));
      reasons.set(reason, seen);
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `build, typecheck, docs site and tests: ${status === 0 ? "ok" : "failed"} in ${seconds} s (${reported} packages tested)\n`,
  );
  for (const [reason, { tests, files }] of reasons) {
    const where = files.length <= 2 ? files.join(", ") : `${files.slice(0, 2).join(", ")} and ${files.length - 2} more`;
    process.stdout.write(`${tests} skipped: ${reason} (${where})\n`);
  }
  process.stdout.write(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
  process.exitCode = status !== 0 ? status : total.failed > 0 ? 1 : 0;
});
