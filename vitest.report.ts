import { readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Reporter, TestModule, Vitest } from "vitest/node";

/** Where a package's counts are written, beside its package.json; turbo keeps it as the test task's output. */
const REPORT_FILE = ".test-report.json";

/** What a run of one package's tests came to, read by .ci/test-summary.mjs. */
interface TestReport {
  passed: number;
  failed: number;
  skipped: number;
  /** Skipped tests by reason ("no redis-server"), each with the files they are in (relative to the package). */
  reasons: Record<string, { tests: number; files: string[] }>;
}

/**
 * Counts every test of the run (passed, failed, skipped) and why tests were skipped, into `.test-report.json`. Tests
 * that skip for want of a tool say so through `skipWithout()` (@skillport/test-utils), which appends the reason to
 * the file this reporter names in SKILLPORT_TEST_SKIPS; a skip no helper explained is counted as "no reason given".
 */
export default class CountingReporter implements Reporter {
  private root = process.cwd();
  private skips = "";

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    this.skips = path.join(os.tmpdir(), `skillport-test-skips-${process.pid}-${Date.now()}.jsonl`);
    writeFileSync(this.skips, "");
    // Set before the workers start, which inherit it.
    process.env.SKILLPORT_TEST_SKIPS = this.skips;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const why = new Map<string, Set<string>>();
    for (const line of readFileSync(this.skips, "utf8").split("\n")) {
      if (line === "") continue;
      const { file, reason } = JSON.parse(line) as { file: string; reason: string };
      why.set(file, (why.get(file) ?? new Set()).add(reason));
    }
    rmSync(this.skips, { force: true });
    const report: TestReport = { passed: 0, failed: unhandledErrors.length, skipped: 0, reasons: {} };
    for (const module of modules) {
      // A file that could not load, or a hook that failed (its tests show as skipped), is one failure each.
      if (module.errors().length > 0) report.failed += 1;
      for (const suite of module.children.allSuites()) if (suite.errors().length > 0) report.failed += 1;
      const file = path.relative(this.root, module.moduleId);
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === "passed") report.passed += 1;
        else if (result.state === "failed") report.failed += 1;
        else if (result.state === "skipped") {
          report.skipped += 1;
          const reason = [...(why.get(module.moduleId) ?? [])].join(", ") || result.note || "no reason given";
          const group = report.reasons[reason] ?? { tests: 0, files: [] };
          group.tests += 1;
          if (!group.files.includes(file)) group.files.push(file);
          report.reasons[reason] = group;
        }
      }
    }
    writeFileSync(path.join(this.root, REPORT_FILE), `${JSON.stringify(report, null, 2)}\n`);
  }
}
