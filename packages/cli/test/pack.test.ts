import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "./workspace.js";

const exec = promisify(execFile);

interface PackageJson {
  name: string;
  private?: boolean;
  files?: string[];
  exports?: unknown;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** Every public package of the workspace, by folder. */
async function publicPackages(): Promise<{ dir: string; pkg: PackageJson }[]> {
  const found: { dir: string; pkg: PackageJson }[] = [];
  for (const parent of ["packages", "skills"]) {
    for (const entry of await readdir(path.join(REPO, parent), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = path.join(REPO, parent, entry.name);
      const pkg = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8").catch(() => "{}")) as PackageJson;
      if (pkg.name !== undefined && pkg.private !== true) found.push({ dir, pkg });
    }
  }
  return found;
}

/** Every file an exports map points at, through nested conditions; patterns are left out. */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === "string") return exports.includes("*") ? [] : [exports];
  if (Array.isArray(exports)) return exports.flatMap(exportTargets);
  if (typeof exports === "object" && exports !== null) return Object.values(exports).flatMap(exportTargets);
  return [];
}

const normal = (file: string) => path.posix.normalize(file).replace(/^\.\//, "");

describe("pnpm pack of every public package", async () => {
  const packages = await publicPackages();
  let out: string;
  const packed = new Map<string, { files: string[]; manifest: PackageJson }>();

  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), "skillport-pack-"));
    await Promise.all(
      packages.map(async ({ dir, pkg }) => {
        const dest = path.join(out, pkg.name.replace("/", "+"));
        await exec("pnpm", ["pack", "--pack-destination", dest], { cwd: dir });
        const [tarball] = await readdir(dest);
        const file = path.join(dest, tarball as string);
        const { stdout } = await exec("tar", ["-tzf", file]);
        const files = stdout
          .split("\n")
          .filter((f) => f !== "" && !f.endsWith("/"))
          .map((f) => f.replace(/^package\//, ""));
        const manifest = JSON.parse((await exec("tar", ["-xOzf", file, "package/package.json"])).stdout) as PackageJson;
        packed.set(pkg.name, { files, manifest });
      }),
    );
  }, 120_000);
  afterAll(() => rm(out, { recursive: true, force: true }));

  it("finds the packages", () => {
    expect(packages.map((p) => p.pkg.name)).toEqual(
      expect.arrayContaining([
        "@skillport/core",
        "@skillport/host",
        "@skillport/testing",
        "skillport",
        "@skillport/skill-notes",
      ]),
    );
  });

  it.each(packages.map((p) => [p.pkg.name, p] as const))(
    "%s ships only dist, README, LICENSE, package.json and what its files declare",
    (name, { pkg }) => {
      const { files } = packed.get(name) as { files: string[] };
      expect(files).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE"]));
      expect(files.some((f) => f.startsWith("dist/"))).toBe(true);
      const declared = (pkg.files ?? []).map(normal).filter((f) => f !== "dist");
      const allowed = (file: string) =>
        ["package.json", "README.md", "LICENSE"].includes(file) ||
        file.startsWith("dist/") ||
        declared.some((d) => file === d || file.startsWith(`${d}/`));
      expect(files.filter((f) => !allowed(f))).toEqual([]);
      expect(files.filter((f) => /(^|\/)(src|test)\//.test(f) || f.endsWith(".test.ts"))).toEqual([]);
    },
  );

  it.each(packages.map((p) => [p.pkg.name, p] as const))(
    "%s: every exports target and bin is in the pack",
    (name, { pkg }) => {
      const { files } = packed.get(name) as { files: string[] };
      const bins = typeof pkg.bin === "string" ? [pkg.bin] : Object.values(pkg.bin ?? {});
      const targets = [...exportTargets(pkg.exports), ...bins].map(normal);
      expect(targets.length).toBeGreaterThan(0);
      expect(targets.filter((t) => !files.includes(t))).toEqual([]);
    },
  );

  it.each(packages.map((p) => [p.pkg.name] as const))(
    "%s: the packed package.json has no workspace: ranges",
    (name) => {
      const { manifest } = packed.get(name) as { manifest: PackageJson };
      expect(JSON.stringify(manifest)).not.toContain("workspace:");
    },
  );
});
