import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";

/**
 * Every module a built file pulls in, statically or with `import()`, following relative imports through the bundle's
 * chunks; built-ins without their `node:` prefix (tsup may drop it), so one list compares across builds.
 *
 * @example
 * expect((await importsOf(path.join(DIST, "index.js"))).filter(isBuiltin)).toEqual([]);
 */
export async function importsOf(file: string): Promise<string[]> {
  return walk(file, ANY_IMPORT, new Set());
}

/** What loads with the module itself: its static imports only, following relative ones through the chunks. */
export async function staticImportsOf(file: string): Promise<string[]> {
  return walk(file, STATIC_IMPORT, new Set());
}

/** Whether a specifier names a Node built-in (`fs`, `node:fs`). */
export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith("node:") || builtinModules.includes(specifier);
}

/** The packages among `imports`: neither relative nor built-in, each once, sorted. */
export function packagesOf(imports: readonly string[]): string[] {
  return [...new Set(imports.filter((s) => !s.startsWith(".") && !isBuiltin(s)))].sort();
}

/**
 * The package's declared entries (its `exports` but `./package.json`), each checked to be built: its JavaScript and
 * its types exist. Returns the entry names, for the test to compare with the ones it expects.
 */
export async function builtEntries(packageDir: string): Promise<string[]> {
  const pkg = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as {
    exports: Record<string, string | { import: string; types: string }>;
  };
  const entries = Object.entries(pkg.exports).filter(([key]) => key !== "./package.json");
  for (const [key, target] of entries) {
    if (typeof target === "string") continue;
    for (const file of [target.import, target.types]) {
      await readFile(path.join(packageDir, file)).catch(() => {
        throw new Error(`${key} is declared in exports as ${file}, which is not built`);
      });
    }
  }
  return entries.map(([key]) => key);
}

// --- internal ---

const ANY_IMPORT = /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
const STATIC_IMPORT = /^(?:import|export)\s(?:[^;]*?\sfrom\s*)?["']([^"']+)["']/gm;

async function walk(file: string, pattern: RegExp, seen: Set<string>): Promise<string[]> {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = await readFile(file, "utf8");
  const specifiers = [...source.matchAll(pattern)].map((m) => (m[1] ?? m[2]) as string);
  const nested = await Promise.all(
    specifiers.filter((s) => s.startsWith(".")).map((s) => walk(path.resolve(path.dirname(file), s), pattern, seen)),
  );
  return [...specifiers.map((s) => s.replace(/^node:/, "")), ...nested.flat()];
}
