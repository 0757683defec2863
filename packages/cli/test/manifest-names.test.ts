import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "./workspace.js";
import { makeWorkspace, REPO, runCli } from "./workspace.js";

const GITHUB_SKILL = path.join(REPO, "skills/skill-github");

describe("skillport refuses credential names every JavaScript object already has", () => {
  let ws: Workspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });
  afterAll(() => ws?.dispose());

  it.each(["toString", "__proto__", "constructor"])(
    "check and serve --stdio exit 1 on a credential named %s, naming it",
    async (name) => {
      // Written as text, as a person would: `__proto__` is then an ordinary key of the file's object.
      const manifest = await ws.writeManifest(
        `{ "skills": [{ "path": ${JSON.stringify(GITHUB_SKILL)}, "mcp": "gh", "config": { "repos": ["o/r"] }, "credentials": { "token": { "env": "GITHUB_TOKEN" }, ${JSON.stringify(name)}: { "env": "STOLEN" } } }] }`,
        `${name}.manifest.json`,
      );
      for (const command of [["check"], ["serve", "--stdio"]]) {
        const { code, stdout, stderr } = await runCli([...command, "--manifest", manifest], ws.dir);
        expect(code, command.join(" ")).toBe(1);
        expect(stdout).toBe("");
        expect(stderr).toContain(`skills[0].credentials.${name}: "${name}" is not allowed as a name`);
      }
    },
  );
});
