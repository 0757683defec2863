// The Skillport side of bench/compare.mjs and bench/compare-memory.mjs: one skill package of n tools (echo and n-1
// fillers, the same tools every library serves), its manifest with the audit line to a file and a token the skill
// holds (so the redactor knows a secret and redacts every call's answer and audit line, as it does for any skill with
// a credential; a redactor that knows no secret has nothing to do), and its lock.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fillerInputJson, fillerName } from "./tools.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = path.join(ROOT, "packages/cli/bin/skillport.js");

/** Writes the skill, `skills.manifest.json` and its lock into `folder`; answers the manifest's and the audit's paths. */
export function generateSkillport(folder, n) {
  const skill = path.join(folder, "skill");
  mkdirSync(path.join(skill, "node_modules/@skillport"), { recursive: true });
  symlinkSync(realpathSync(path.join(ROOT, "packages/core")), path.join(skill, "node_modules/@skillport/core"), "dir");
  const pkg = { name: "bench-skill", version: "1.0.0", private: true, type: "module", exports: { ".": "./index.js" } };
  writeFileSync(path.join(skill, "package.json"), JSON.stringify(pkg));
  const fillers = Array.from({ length: n - 1 }, (_, k) => ({
    name: fillerName(k + 1),
    title: "Lookup",
    description: `Search collection ${k + 1}.`,
    input: fillerInputJson(k + 1),
    risk: "read_only",
  }));
  writeFileSync(
    path.join(skill, "index.js"),
    `import { defineSkill, defineTool } from "@skillport/core";
const fillers = ${JSON.stringify(fillers)};
export const register = defineSkill({
  name: "bench",
  credentials: { token: { required: false, description: "An API token, as a skill that calls a service holds one" } },
  tools: [
    defineTool({
      name: "echo",
      title: "Echo",
      description: "Echo the text back.",
      input: { type: "object", properties: { text: { type: "string", maxLength: 1000, description: "what to echo" } }, required: ["text"], additionalProperties: false },
      output: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      risk: "read_only",
      run: (p) => ({ text: p.text }),
    }),
    ...fillers.map((f) => defineTool({ ...f, run: () => [] })),
  ],
});
`,
  );
  const manifest = path.join(folder, "skills.manifest.json");
  const content = {
    name: `compare-${n}`,
    version: "1.0.0",
    skills: [{ path: "./skill", mcp: "bench", credentials: { token: { file: "./token.txt" } } }],
    audit: { file: "./audit.log" },
  };
  writeFileSync(manifest, JSON.stringify(content, null, 2));
  writeFileSync(path.join(folder, "token.txt"), `bench_${randomBytes(24).toString("base64url")}\n`, { mode: 0o600 });
  execFileSync(process.execPath, [CLI, "lock", "--manifest", manifest], { stdio: "ignore" });
  return { manifest, audit: path.join(folder, "audit.log") };
}
