import { spawn } from "node:child_process";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const CLI = path.join(REPO, "packages/cli/bin/skillport.js");
export const NOTES_SKILL = path.join(REPO, "skills/skill-notes");

/** A scratch folder with a copy of the example vault and a manifest over it; removed by `dispose`. */
export interface Workspace {
  dir: string;
  vault: string;
  manifest: string;
  writeManifest(manifest: unknown, name?: string): Promise<string>;
  dispose(): Promise<void>;
}

export async function makeWorkspace(): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-cli-"));
  const vault = path.join(dir, "vault");
  await cp(path.join(REPO, "examples/vault"), vault, { recursive: true });
  const writeManifest = async (manifest: unknown, name = "skills.manifest.json") => {
    const file = path.join(dir, name);
    await writeFile(file, typeof manifest === "string" ? manifest : JSON.stringify(manifest, null, 2));
    return file;
  };
  const manifest = await writeManifest(notesManifest());
  return { dir, vault, manifest, writeManifest, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** The notes skill from its folder, over the workspace's vault copy. */
export function notesManifest(extra: Record<string, unknown> = {}) {
  return {
    name: "test-server",
    version: "1.2.3",
    skills: [{ path: NOTES_SKILL, mcp: "notes", config: { vault: "./vault" }, ...extra }],
  };
}

/** Runs the built CLI to completion. */
export function runCli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
