import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const VITEST = path.join(path.dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const E2E = fileURLToPath(new URL("./fixtures/e2e/", import.meta.url));

/** Runs vitest on one fixture suite, as `vitest run` in a skill package would. */
function runVitest(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, "run", "--root", E2E, "--config", "vitest.config.ts", file], {
      cwd: E2E,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
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
  it("registers one passing test per tool and rule group for a conforming skill", async () => {
    const { code, output } = await runVitest("good.conformance.ts");
    expect(output).toMatch(/Tests\s+6 passed/);
    expect(code).toBe(0);
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
