import { defineConfig } from "vitest/config";

/** The one vitest setup every package shares: tests live under test/, type tests are *.test-d.ts. */
export const shared = defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.test.json" },
    // Generous: tests spawn real processes, and CI machines are shared.
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});
