// `pnpm changeset` offers the packages a changeset can bump: every workspace package with a version, but those in
// the config's `ignore` and, unless `privatePackages.version` is false, the private ones too (changesets'
// shouldSkipPackage). A private package is never released, so it must not be offered: picking it would version a
// package nobody can install.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface PackageJson {
  name: string;
  version?: string;
  private?: boolean;
}

interface ChangesetConfig {
  ignore: string[];
  fixed: string[][];
  privatePackages?: { version?: boolean; tag?: boolean };
}

async function workspacePackages(): Promise<PackageJson[]> {
  const found: PackageJson[] = [];
  for (const folder of ["packages", "skills"]) {
    for (const name of await readdir(path.join(ROOT, folder))) {
      const text = await readFile(path.join(ROOT, folder, name, "package.json"), "utf8").catch(() => undefined);
      if (text !== undefined) found.push(JSON.parse(text) as PackageJson);
    }
  }
  return found;
}

describe("the changesets", () => {
  it("config offers every published package to pnpm changeset, and no private one", async () => {
    const config = JSON.parse(await readFile(path.join(ROOT, ".changeset/config.json"), "utf8")) as ChangesetConfig;
    const packages = await workspacePackages();
    const offered = packages
      .filter((p) => !config.ignore.includes(p.name))
      .filter((p) => !p.private || config.privatePackages?.version !== false)
      .filter((p) => p.version !== undefined)
      .map((p) => p.name)
      .sort();
    const published = packages
      .filter((p) => !p.private)
      .map((p) => p.name)
      .sort();
    expect(packages.some((p) => p.private)).toBe(true);
    expect(offered).toEqual(published);
    // The packages that release together are published ones.
    for (const name of config.fixed.flat()) expect(published).toContain(name);
  });

  it("are each about packages it can release", async () => {
    const published = new Set((await workspacePackages()).filter((p) => !p.private).map((p) => p.name));
    const folder = path.join(ROOT, ".changeset");
    const unknown: string[] = [];
    for (const file of (await readdir(folder)).filter((f) => f.endsWith(".md") && f !== "README.md")) {
      const header = /^---\n([\s\S]*?)\n---/.exec(await readFile(path.join(folder, file), "utf8"))?.[1] ?? "";
      for (const [, name] of header.matchAll(/^\s*["']?([^"':\s]+)["']?\s*:/gm)) {
        if (!published.has(name as string)) unknown.push(`${file}: ${name}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
