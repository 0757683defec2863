import { defineConfig } from "vitest/config";

/** The one vitest setup every package shares: tests live under test/, type tests are *.test-d.ts. */
export const shared = defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A package without tests yet (core, skill-notes) must not fail the whole gate; its coverage is a review matter.
    passWithNoTests: true,
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.test.json" },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
