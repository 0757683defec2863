import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLIENT_INFO } from "../src/handle.js";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

/** Every module a built file pulls in, statically or with import(), following relative imports through chunks. */
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

/** What linearJsonSchemaValidator imports. */
const LINEAR_VALIDATOR = ["ajv", "ajv-formats", "ajv/dist/2019.js", "ajv/dist/2020.js", "re2js"];

const isBuiltin = (s: string) => s.startsWith("node:") || builtinModules.includes(s);
const packages = (imports: string[]) => [...new Set(imports.filter((s) => !s.startsWith(".") && !isBuiltin(s)))].sort();

describe("the entries of @skillport/client", () => {
  it("the root entry imports no Node built-in and nothing of @skillport/host", async () => {
    const imports = await importsOf(path.join(DIST, "index.js"));
    expect(imports.filter(isBuiltin)).toEqual([]);
    // ajv and re2js (with import(), on the first connection): the output schema check, patterns in linear time.
    expect(packages(imports)).toEqual([...LINEAR_VALIDATOR, "@modelcontextprotocol/client"].sort());
  });

  it("the node entry loads @skillport/host only with import(), when a host transport starts", async () => {
    const source = await readFile(path.join(DIST, "node.js"), "utf8");
    const imports = await importsOf(path.join(DIST, "node.js"));
    expect(packages(imports)).toEqual(
      [
        ...LINEAR_VALIDATOR,
        "@modelcontextprotocol/client",
        "@modelcontextprotocol/client/stdio",
        "@skillport/host",
        "@skillport/host/testing",
      ].sort(),
    );
    const all = [
      source,
      ...(await Promise.all(imports.filter((s) => s.startsWith(".")).map((s) => readFile(path.join(DIST, s), "utf8")))),
    ];
    expect(all.join("\n")).not.toMatch(/^import[^;]*from\s*["']@skillport\/host/m);
  });

  it("every built entry is declared in exports, every export is built, and the client names its version", async () => {
    const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
      exports: Record<string, string | { import: string; types: string }>;
    };
    const built = Object.entries(pkg.exports).filter(([key]) => key !== "./package.json");
    expect(built.map(([key]) => key)).toEqual([".", "./node"]);
    for (const [, target] of built) {
      const { import: js, types } = target as { import: string; types: string };
      await expect(readFile(new URL(`../${js}`, import.meta.url))).resolves.toBeDefined();
      await expect(readFile(new URL(`../${types}`, import.meta.url))).resolves.toBeDefined();
    }
    await expect(readFile(path.join(DIST, "worker-host.js"))).resolves.toBeDefined();
    expect(CLIENT_INFO.version).toBe(pkg.version);
  });
});
