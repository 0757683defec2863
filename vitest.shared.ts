import { defineConfig } from "vitest/config";

/** The one vitest setup every package shares: tests live under test/, type tests are *.test-d.ts. */
export const shared = defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.test.json" },
    // A package may not have tests yet (a new skill); the gate judges the packages that do.
    passWithNoTests: true,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
