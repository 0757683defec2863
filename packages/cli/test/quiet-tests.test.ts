import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runNode } from "./workspace.js";

const VITEST = path.join(REPO, "node_modules/vitest/vitest.mjs");

/** A package of the repository as far as vitest sees it: the shared config, and tests that talk. */
describe("the repository's shared vitest setup", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-quiet-tests-"));
    await symlink(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
    await writeFile(
      path.join(dir, "vitest.config.ts"),
      `export { shared as default } from ${JSON.stringify(path.join(REPO, "vitest.shared.ts"))};\n`,
    );
    await mkdir(path.join(dir, "test"));
    await writeFile(
      path.join(dir, "test/talks.test.ts"),
      `import { expect, it } from "vitest";
it("passes, talking", () => {
  console.log("PASSING-LOG");
  console.error("PASSING-ERROR");
  expect(1).toBe(1);
});
`,
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const vitest = () => runNode(VITEST, ["run"], dir, { NO_COLOR: "1", CI: "true" });

  it("prints only a short summary when every test passes", async () => {
    const { code, stdout, stderr } = await vitest();
    const output = stdout + stderr;
    expect(code, output).toBe(0);
    expect(output).toMatch(/Tests\s+1 passed \(1\)/);
    expect(output).not.toContain("PASSING-");
    expect(output).not.toContain("experimental feature");
    expect(output.trim().split("\n").length, output).toBeLessThan(12);
  });

  it("prints a failure with the output of the test that failed", async () => {
    await writeFile(
      path.join(dir, "test/fails.test.ts"),
      `import { expect, it } from "vitest";
it("fails, talking", () => {
  console.log("FAILING-LOG");
  expect(1).toBe(2);
});
`,
    );
    const { code, stdout, stderr } = await vitest();
    const output = stdout + stderr;
    expect(code).toBe(1);
    expect(output).toContain("fails, talking");
    expect(output).toContain("FAILING-LOG");
    expect(output).toContain("expected 1 to be 2");
    expect(output).not.toContain("PASSING-");
    expect(output).toMatch(/Tests\s+1 failed \| 1 passed \(2\)/);
  });
});
