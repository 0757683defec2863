import { availableParallelism } from "node:os";
import { defineConfig, mergeConfig } from "vitest/config";
import type { TestSpecification } from "vitest/node";
import { BaseSequencer } from "vitest/node";
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
 * Test files that walk a whole workflow one step after another (the authoring flow's clone: install, build, lint,
 * test) and so run longest: started first, so the other files fill the cores around them instead of waiting on
 * them at the end. Without this, a fresh clone (no durations recorded yet) starts the largest files first.
 */
const RUNS_LONGEST = ["authoring-flow.test.ts"];

/** vitest's own order (slowest or failed first once it has run, else largest first), RUNS_LONGEST ahead of it. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const longest = (file: TestSpecification) => RUNS_LONGEST.some((name) => file.moduleId.endsWith(`/${name}`));
    return [...sorted.filter(longest), ...sorted.filter((file) => !longest(file))];
  }
}

/**
 * The shared setup for a package whose tests mostly wait on child processes they spawn (the CLI's: `skillport`
 * commands, servers, clones): more files at a time than cores, since each spends most of its time waiting.
 */
export const spawning = mergeConfig(shared, {
  test: { maxWorkers: Math.max(4, availableParallelism()), sequence: { sequencer: LongestFirst } },
});
