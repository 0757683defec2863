import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

/** Every module a built file pulls in, following relative imports through the bundle's chunks. */
async function importsOf(file: string, seen = new Set<string>()): Promise<string[]> {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = await readFile(file, "utf8");
  const specifiers = [
    ...source.matchAll(/(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g),
  ].map((m) => (m[1] ?? m[2]) as string);
  const nested = await Promise.all(
    specifiers.filter((s) => s.startsWith(".")).map((s) => importsOf(path.resolve(path.dirname(file), s), seen)),
  );
  return [...specifiers, ...nested.flat()];
}

const isBuiltin = (s: string) => s.startsWith("node:") || builtinModules.includes(s);

describe("the root entry of @skillport/core", () => {
  it("imports no Node built-in and nothing of the confine subpath", async () => {
    const imports = await importsOf(path.join(DIST, "index.js"));
    expect(imports.filter(isBuiltin)).toEqual([]);
    expect(imports.filter((s) => /confine/.test(s))).toEqual([]);
    expect(imports.filter((s) => !s.startsWith(".") && !isBuiltin(s))).toEqual(["zod"]);
  });

  it("while the confine entry uses Node's file system and no dependency", async () => {
    const imports = await importsOf(path.join(DIST, "confine.js"));
    expect(imports.filter(isBuiltin).map((s) => s.replace(/^node:/, ""))).toEqual(
      expect.arrayContaining(["fs", "fs/promises", "path"]),
    );
    expect(imports.filter((s) => !s.startsWith(".") && !isBuiltin(s))).toEqual([]);
  });

  it("and every built entry is declared in exports, and every export is built", async () => {
    const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
      exports: Record<string, string | { import: string; types: string }>;
    };
    const built = Object.entries(pkg.exports).filter(([key]) => key !== "./package.json");
    expect(built.map(([key]) => key)).toEqual([".", "./confine", "./confine/testing", "./sandbox"]);
    for (const [, target] of built) {
      const { import: js, types } = target as { import: string; types: string };
      await expect(readFile(new URL(`../${js}`, import.meta.url))).resolves.toBeDefined();
      await expect(readFile(new URL(`../${types}`, import.meta.url))).resolves.toBeDefined();
    }
  });
});
