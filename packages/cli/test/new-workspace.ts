// A scratch Skillport workspace for `skillport new`'s tests: the repository's shared configs and a manifest, with
// node_modules linked to this repository's toolchain.
import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, realpath, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { REPO } from "./workspace.js";

export const BIN = path.join(REPO, "node_modules/.bin");

/** Runs a command to completion. */
export function run(command: string, args: string[], cwd: string) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
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

/**
 * A scratch Skillport workspace: the repo's shared configs and a manifest, with node_modules linked to this
 * repo's packages and toolchain, so a scaffolded skill builds and tests without an install or the network.
 */
export async function makeWorkspace(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillport-new-"));
  for (const file of ["tsconfig.base.json", "vitest.shared.ts", "vitest.report.ts", "pnpm-workspace.yaml"]) {
    await cp(path.join(REPO, file), path.join(dir, file));
  }
  await mkdir(path.join(dir, ".changeset"));
  await writeFile(
    path.join(dir, "skills.manifest.json"),
    JSON.stringify(
      { name: "scratch", skills: [{ package: "@skillport/skill-notes", config: { vault: "./v" } }] },
      null,
      2,
    ),
  );
  await link(path.join(REPO, "node_modules/vitest"), path.join(dir, "node_modules/vitest"));
  await link(path.join(REPO, "node_modules/tsup"), path.join(dir, "node_modules/tsup"));
  await link(path.join(REPO, "node_modules/@types/node"), path.join(dir, "node_modules/@types/node"));
  return dir;
}

/** Links `target` at `at`, as `pnpm install` would link a workspace package. */
export async function link(target: string, at: string): Promise<void> {
  await mkdir(path.dirname(at), { recursive: true });
  await symlink(await realpath(target), at, "dir");
}
