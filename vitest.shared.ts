import { availableParallelism } from "node:os";
import { defineConfig, mergeConfig } from "vitest/config";
import CountingReporter from "./vitest.report.ts";

/**
 * The one vitest setup every package shares: tests live under test/. Type tests (*.test-d.ts) are compiled by each
 * package's `typecheck` (tsc -p tsconfig.test.json), where a failing `expectTypeOf` is a type error.
 */
export const shared = defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Green is quiet: a passing run prints its counts; a failure prints itself, with the console output of the test
    // that failed (that of passing tests is dropped). The counting reporter writes .test-report.json, which
    // .ci/test-summary.mjs adds up over every package, with the reason for each group of skipped tests.
    reporters: ["minimal", new CountingReporter()],
    silent: "passed-only",
    // The files of a package share their worker's modules instead of importing everything again per file: on two
    // cores importing took more time than the tests themselves. A test that changes something global (an
    // environment variable, a listener) puts it back when it finishes.
    isolate: false,
    // Two files at a time even on two cores (vitest's default there is one): a test often waits on a child process,
    // a socket or a file, and the other file runs meanwhile.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Generous: tests spawn real processes, and CI machines are shared.
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});

/**
 * The shared setup for a package whose tests mostly wait on child processes they spawn (the CLI's: `skillport`
 * commands, servers, clones): more files at a time than cores, since each spends most of its time waiting.
 */
export const spawning = mergeConfig(shared, { test: { maxWorkers: Math.max(4, availableParallelism()) } });
