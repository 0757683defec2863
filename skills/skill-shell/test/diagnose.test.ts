import { describe, expect, it } from "vitest";
import { register, ShellConfig } from "../src/index.js";
import { sandboxStatus } from "./helpers.js";

const diagnose = (config: Record<string, unknown>) =>
  register().diagnose?.(ShellConfig.parse({ roots: ["/srv/root"], ...config })) ?? Promise.resolve([]);

describe("what skillport check hears from the shell skill", () => {
  it("warns when commands run without the sandbox", async () => {
    const found = await diagnose({ commands: ["git"], sandbox: "off" });
    expect(found).toEqual([
      expect.objectContaining({
        severity: "warning",
        rule: "shell-sandbox",
        message: expect.stringContaining("environ"),
      }),
    ]);
  });

  it("says why when bubblewrap does not work, and fails a required sandbox", async () => {
    const auto = await diagnose({ commands: ["git"] });
    const required = await diagnose({ commands: ["git"], sandbox: "required" });
    if (sandboxStatus.available) {
      expect(auto).toEqual([]);
      expect(required).toEqual([]);
    } else {
      expect(auto[0]).toMatchObject({ severity: "warning", rule: "shell-sandbox" });
      expect(required[0]).toMatchObject({ severity: "error", rule: "shell-sandbox" });
    }
  });

  it("names commands that will be refused, run with any arguments, or are configured but not allowed", async () => {
    const found = await diagnose({
      commands: ["git", "make", "node"],
      sandbox: "off",
      env: { PATH: ".:/usr/bin" },
      policies: { node: { arguments: "any" }, git: { arguments: "any" }, curl: { arguments: "paths" } },
    });
    const messages = found.filter((f) => f.rule !== "shell-sandbox").map((f) => f.message);
    expect(messages).toEqual([
      expect.stringContaining("git runs with any arguments"),
      expect.stringContaining("make has no built-in argument policy"),
      expect.stringContaining("node runs with any arguments"),
      expect.stringContaining("policies names curl"),
      expect.stringContaining('"." are relative and skipped'),
    ]);
    expect(messages[0]).toContain("its built-in policy switched off");
  });
});
