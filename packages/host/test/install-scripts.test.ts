// `pnpm install` runs no dependency's install script unless pnpm-workspace.yaml allows it (pnpm 10), and prints a
// box asking the user to act ("Ignored build scripts: …, run pnpm approve-builds") for every script it was not told
// about. Every installed package with an install script is named there: allowed (onlyBuiltDependencies) or declined
// (ignoredBuiltDependencies), each with its reason, so a fresh install prints nothing to act on.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const STORE = path.join(ROOT, "node_modules/.pnpm");

/** The packages pnpm would build: an install script, or a binding.gyp (pnpm runs node-gyp for it). */
async function packagesWithInstallScripts(): Promise<string[]> {
  const found = new Set<string>();
  for (const folder of await readdir(STORE)) {
    // `name@version(_peers)` or `@scope+name@version(_peers)`.
    const at = folder.indexOf("@", 1);
    if (at === -1) continue;
    const name = folder.slice(0, at).replace("+", "/");
    const dir = path.join(STORE, folder, "node_modules", name);
    const text = await readFile(path.join(dir, "package.json"), "utf8").catch(() => undefined);
    if (text === undefined) continue;
    const { scripts = {} } = JSON.parse(text) as { scripts?: Record<string, string> };
    const scripted = ["preinstall", "install", "postinstall"].some((script) => scripts[script] !== undefined);
    if (scripted || existsSync(path.join(dir, "binding.gyp"))) found.add(name);
  }
  return [...found].sort();
}

describe("pnpm install", () => {
  it("is told about every dependency's install script: allowed or declined in pnpm-workspace.yaml", async () => {
    const workspace = parseYaml(await readFile(path.join(ROOT, "pnpm-workspace.yaml"), "utf8")) as {
      onlyBuiltDependencies?: string[];
      ignoredBuiltDependencies?: string[];
    };
    const told = new Set([...(workspace.onlyBuiltDependencies ?? []), ...(workspace.ignoredBuiltDependencies ?? [])]);
    const scripted = await packagesWithInstallScripts();
    expect(scripted.length).toBeGreaterThan(0);
    expect(scripted.filter((name) => !told.has(name))).toEqual([]);
  });
});
