import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// The writer runs in a child process so it can be SIGKILLed midway; it imports the built package (dist).
const WRITER = fileURLToPath(new URL("./fixtures/kill-writer.mjs", import.meta.url));
const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const MIB = 4;
const OLD = "the old content, whole\n";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "skill-files-atomic-"));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Run {
  /** What the writer said on stderr. */
  said: string;
  /** The folder's names and sizes at the moment the writer was killed (or ended). */
  atKill: Record<string, number>;
}

/** Runs the writer; SIGKILLs it as soon as it says MIDWAY. */
function runWriter(mode: "atomic" | "naive" | "complete", name: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, mode, root, name, String(MIB)], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let said = "";
    let atKill: Record<string, number> = {};
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", async (text: string) => {
      said += text;
      if (said.includes("MIDWAY") && !child.killed) {
        atKill = await sizes();
        child.kill("SIGKILL");
      }
    });
    child.on("error", reject);
    child.on("close", async () => {
      if (Object.keys(atKill).length === 0) atKill = await sizes();
      resolve({ said, atKill });
    });
  });
}

async function sizes(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of await readdir(root)) out[name] = (await stat(path.join(root, name))).size;
  return out;
}

describe("a write killed midway", () => {
  it("needs the built package", () => {
    expect(existsSync(DIST), "run the build first (turbo runs it before tests)").toBe(true);
  });

  it("leaves an existing file with its old content, whole", async () => {
    await writeFile(path.join(root, "target.txt"), OLD);
    const run = await runWriter("atomic", "target.txt");
    expect(run.said).toContain("MIDWAY");
    expect(run.said).not.toContain("DONE");
    // it really was midway: a temporary file beside the target held part of the new content
    const partial = Object.entries(run.atKill).filter(([name]) => name !== "target.txt");
    expect(partial).toHaveLength(1);
    const [tempName, tempSize] = partial[0] as [string, number];
    expect(tempName.startsWith(".target.txt.")).toBe(true);
    expect(tempSize).toBeGreaterThan(0);
    expect(tempSize).toBeLessThan(MIB * 1024 * 1024);
    expect(run.atKill["target.txt"]).toBe(OLD.length);
    expect(await readFile(path.join(root, "target.txt"), "utf8")).toBe(OLD);
  });

  it("leaves no file at all where there was none", async () => {
    const run = await runWriter("atomic", "fresh.txt");
    expect(run.said).toContain("MIDWAY");
    expect(existsSync(path.join(root, "fresh.txt"))).toBe(false);
    // whatever the kill left behind is a hidden temporary name, never the target's
    for (const name of await readdir(root)) {
      expect(name).not.toBe("fresh.txt");
      expect(name.startsWith(".")).toBe(true);
    }
  });

  it("is caught by this test when the writer is not atomic (the control)", async () => {
    await writeFile(path.join(root, "target.txt"), OLD);
    const run = await runWriter("naive", "target.txt");
    expect(run.said).toContain("MIDWAY");
    const left = await readFile(path.join(root, "target.txt"), "utf8");
    expect(left).not.toBe(OLD);
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(MIB * 1024 * 1024);
  });

  it("replaces the file whole when the writer is not killed", async () => {
    await writeFile(path.join(root, "target.txt"), OLD);
    const run = await runWriter("complete", "target.txt");
    expect(run.said).toContain("DONE");
    expect((await stat(path.join(root, "target.txt"))).size).toBe(MIB * 1024 * 1024);
    expect(await readdir(root)).toEqual(["target.txt"]);
  });
});
