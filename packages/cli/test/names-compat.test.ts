import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, REPO, runCli, serveHttp } from "./workspace.js";

// The default "." separator is valid MCP, but Claude Desktop, Cursor and the Vercel AI SDK pass names to model APIs
// that refuse a dot. `check` and the banner must say so plainly, and `"separator": "_"` must pass every --compat.
const CLIENTS = ["Claude Desktop", "Cursor", "Vercel AI SDK (@ai-sdk/mcp)"];

describe("provider-safe tool names", () => {
  let ws: Workspace;
  let dotted: string;
  let underscored: string;

  beforeAll(async () => {
    ws = await makeWorkspace();
    // The default manifest as a user has it, over the repository's own examples, joined with "." and with "_".
    const json = JSON.parse(await readFile(path.join(REPO, "skills.manifest.json"), "utf8"));
    // The packages it ships with: a skill a user scaffolded and enabled (the authoring flow's clone) is not counted.
    json.skills = json.skills.filter((entry: { package?: string }) => entry.package !== undefined);
    for (const entry of json.skills) {
      if (entry.package !== undefined) entry.package = path.join(REPO, "skills", entry.package.split("/")[1]);
      entry.path = entry.package;
      delete entry.package;
      for (const key of ["vault", "roots"]) {
        const value = entry.config?.[key];
        if (typeof value === "string") entry.config[key] = path.join(REPO, value);
        if (Array.isArray(value)) entry.config[key] = value.map((v: string) => path.join(REPO, v));
      }
    }
    dotted = await ws.writeManifest({ ...json, separator: "." }, "dotted.manifest.json");
    underscored = await ws.writeManifest({ ...json, separator: "_" }, "underscored.manifest.json");
  });
  afterAll(() => ws?.dispose());

  it("check names the clients that need separator _, and what happens without it", async () => {
    const run = await runCli(["check", "--manifest", dotted], ws.dir);
    expect(run.code, run.stderr).toBe(0); // a dot is valid MCP: a note, not an error
    for (const client of CLIENTS) expect(run.stdout).toContain(client);
    expect(run.stdout).toContain("Claude Code and VS Code accept these names");
    expect(run.stdout).toContain("every model request fails with HTTP 400");
    expect(run.stdout).toContain('set "separator": "_" in dotted.manifest.json');
    const json = JSON.parse((await runCli(["check", "--json", "--manifest", dotted], ws.dir)).stdout);
    expect(json.ok).toBe(true);
    expect(json.notes).toEqual([expect.stringContaining('"separator": "_"')]);
  });

  it.each(["anthropic", "openai", "strict"])(
    "check --compat %s fails each dotted name, pointing at the separator",
    async (client) => {
      const run = await runCli(["check", "--compat", client, "--json", "--manifest", dotted], ws.dir);
      expect(run.code).toBe(1);
      const { findings } = JSON.parse(run.stdout) as { findings: { rule: string; message: string }[] };
      const names = findings.filter((f) => f.rule === "compat-name");
      expect(names).toHaveLength(10);
      for (const finding of names) expect(finding.message).toMatch(/; set "separator": "_" in the manifest$/);
    },
  );

  it.each(["anthropic", "openai", "strict"])(
    "with separator _, check --compat %s passes and says nothing about names",
    async (client) => {
      const run = await runCli(["check", "--compat", client, "--manifest", underscored], ws.dir);
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).not.toContain("Tool names:");
    },
  );

  it("the banner says it too, and not when every name is safe", async () => {
    for (const [manifest, noted] of [
      [dotted, true],
      [underscored, false],
    ] as const) {
      const served = serveHttp(["--manifest", manifest, "--banner"], ws.dir);
      try {
        await served.url;
        await served.stderrUntil((text) => text.includes("stdio, with no server to keep running"));
        const banner = served.stderr();
        expect(banner.includes("Tool names:"), banner).toBe(noted);
        if (noted) for (const client of CLIENTS) expect(banner).toContain(client);
        expect(banner).toContain("Cursor (.cursor/mcp.json):");
      } finally {
        served.child.kill("SIGTERM");
        await served.exit;
      }
    }
  });
});
