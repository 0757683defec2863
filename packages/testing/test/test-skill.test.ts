import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const VITEST = path.join(path.dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const E2E = fileURLToPath(new URL("./fixtures/e2e/", import.meta.url));

/** Runs vitest on one fixture suite, as `vitest run` in a skill package would. */
function runVitest(
  file: string,
  { env = {}, args = [] }: { env?: Record<string, string>; args?: string[] } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const argv = [VITEST, "run", "--root", E2E, "--config", "vitest.config.ts", ...args, file];
    const child = spawn(process.execPath, argv, {
      cwd: E2E,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("testSkill under vitest", () => {
  it("registers one passing test per tool and rule group for a conforming skill, and prints only its summary", async () => {
    const { code, output } = await runVitest("good.conformance.ts");
    expect(output).toMatch(/Tests\s+6 passed/);
    expect(code).toBe(0);
    expect(jsonLines(output)).toEqual([]);
  });

  it("shows a check that had nothing to check as skipped, with its reason", async () => {
    const { code, output } = await runVitest("unanswered.conformance.ts", { args: ["--reporter", "verbose"] });
    expect(code).toBe(0);
    expect(output).toMatch(/Tests\s+5 passed \| 1 skipped/);
    expect(output).toMatch(
      /↓ .*runtime > find_items: each example's data matches its output schema .*\[no example answered with data \(NOT_FOUND\)/,
    );
  });

  it("checks the SKILL.md it is given: a tool it names that the skill lacks fails the run, naming it", async () => {
    const { code, output } = await runVitest("skill-md.conformance.ts");
    expect(code).toBe(1);
    expect(output).toContain('skill "fixture" conformance > SKILL.md > SKILL.md describes fixture');
    expect(output).toMatch(
      /\[skill-md-tools\] .*SKILL\.md: SKILL\.md names `open_item`, which is not a tool of fixture \(its tools: find_items\)/,
    );
    expect(output).toMatch(/Tests\s+1 failed \| 6 passed/);
  });

  it("fails the run with a message naming the rule and the tool", async () => {
    const { code, output } = await runVitest("broken.conformance.ts");
    expect(code).toBe(1);
    expect(output).toContain('skill "fixture" conformance > spec lint > find_items follows the spec lint');
    expect(output).toContain("[input-described] find_items: breaks a spec lint rule");
    expect(output).toContain("error input-described find_items /keyword: /keyword has no description");
    expect(output).toMatch(/Tests\s+1 failed \| 5 passed/);
  });
});

describe("createTestHost under vitest", () => {
  it("prints no log or audit line for a passing test", async () => {
    const { code, output } = await runVitest("test-host.e2e.ts");
    expect(code).toBe(0);
    expect(jsonLines(output)).toEqual([]);
  });

  it('prints them with logs: "stderr"', async () => {
    const { code, output } = await runVitest("test-host.e2e.ts", { env: { FIXTURE_LOGS: "stderr" } });
    expect(code).toBe(0);
    const audit = jsonLines(output).filter((line) => line.kind === "audit");
    expect(audit.map((line) => line.outcome)).toEqual(["OK", "ARGUMENT_INVALID"]);
  });
});

/** The JSON lines in a run's output: what a host's logger or audit printed. */
function jsonLines(output: string): Record<string, unknown>[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
