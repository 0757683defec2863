// `skillport check` tells the manifest's author when the shell skill runs without its sandbox, and which
// allowlisted commands will be refused for want of an argument policy, through the skill's own diagnose.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { sandboxAvailable } from "@skillport/core/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, REPO, runCli } from "./workspace.js";

const SHELL = path.join(REPO, "skills/skill-shell");
const sandbox = await sandboxAvailable();

type Finding = { severity: string; rule: string; where: string; message: string };

describe("skillport check on a shell instance", () => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
    await mkdir(path.join(ws.dir, "work"));
  });
  afterAll(() => ws.dispose());

  async function check(config: Record<string, unknown>) {
    const manifest = await ws.writeManifest(
      { skills: [{ path: SHELL, mcp: "shell", allow: ["run_command"], config: { roots: ["./work"], ...config } }] },
      "check.manifest.json",
    );
    const json = await runCli(["check", "--manifest", manifest, "--json"], ws.dir);
    const text = await runCli(["check", "--manifest", manifest], ws.dir);
    const report = JSON.parse(json.stdout) as { ok: boolean; findings: Finding[] };
    return { code: json.code, report, text: text.stdout, stderr: json.stderr };
  }

  it("warns when commands run without the sandbox, in --json and in the table, without failing", async () => {
    const { code, report, text } = await check({ commands: ["git"], sandbox: "off" });
    expect(code).toBe(0);
    const finding = report.findings.find((f) => f.rule === "shell-sandbox");
    expect(finding).toMatchObject({ severity: "warning", where: expect.stringContaining('as "shell"') });
    expect(finding?.message).toContain('sandbox: "off"');
    expect(finding?.message).toContain("environ");
    expect(text).toContain("shell-sandbox");
  });

  // One of these two runs on any machine; the other is skipped, saying which case this machine is.
  it("says nothing about the sandbox when bubblewrap works here", async (ctx) => {
    ctx.skip(!sandbox.available, "bubblewrap cannot sandbox here: its other case ran");
    const { report } = await check({ commands: ["git"] });
    expect(report.findings.filter((f) => f.rule === "shell-sandbox")).toEqual([]);
  });

  it("warns, naming why, when bubblewrap does not work here", async (ctx) => {
    ctx.skip(sandbox.available, "bubblewrap works here: its other case ran");
    const { report } = await check({ commands: ["git"] });
    expect(report.findings.find((f) => f.rule === "shell-sandbox")?.message).toContain("bubblewrap");
  });

  it("fails when the sandbox is required and missing, or warns about commands with no policy", async () => {
    const { report } = await check({
      commands: ["git", "make"],
      sandbox: "required",
      policies: { sh: { arguments: "any" } },
    });
    const policy = report.findings.filter((f) => f.rule === "shell-policy").map((f) => f.message);
    expect(policy).toEqual([
      expect.stringContaining("make has no built-in argument policy"),
      expect.stringContaining("policies names sh, which is not in commands"),
    ]);
    if (!sandbox.available) {
      expect(report.findings.find((f) => f.rule === "shell-sandbox")).toMatchObject({ severity: "error" });
      expect(report.ok).toBe(false);
    }
  });
});
