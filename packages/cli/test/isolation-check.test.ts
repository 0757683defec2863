// `skillport check` tells the manifest's author when isolation "process" cannot have its sandbox on this machine.
import { sandboxAvailable } from "@skillport/core/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, notesManifest, runCli } from "./workspace.js";

const sandbox = await sandboxAvailable();

type Finding = { severity: string; rule: string; where: string; message: string };

describe("skillport check on an instance with isolation process", () => {
  let ws: Workspace;
  let findings: Finding[];
  let code: number | null;

  beforeAll(async () => {
    ws = await makeWorkspace();
    const manifest = await ws.writeManifest(notesManifest({ isolation: "process" }), "isolated.manifest.json");
    const run = await runCli(["check", "--manifest", manifest, "--json"], ws.dir);
    code = run.code;
    findings = (JSON.parse(run.stdout) as { findings: Finding[] }).findings;
  });
  afterAll(() => ws.dispose());

  it("passes either way: a missing sandbox is a warning", () => {
    expect(code).toBe(0);
  });

  if (sandbox.available) {
    it("says nothing when bubblewrap works here", () => {
      expect(findings.filter((f) => f.rule === "isolation-sandbox")).toEqual([]);
    });
  } else {
    it("warns, naming why and what the child can reach, when bubblewrap does not work here", () => {
      const finding = findings.find((f) => f.rule === "isolation-sandbox");
      expect(finding).toMatchObject({ severity: "warning", where: expect.stringContaining('as "notes"') });
      expect(finding?.message).toContain(sandbox.reason);
      expect(finding?.message).toContain("environ");
    });
  }
});
