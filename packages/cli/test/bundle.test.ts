import { readdir, readFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./workspace.js";

const DIST = path.join(REPO, "packages", "cli", "dist");

/**
 * The module specifiers a built file imports: its static imports (esbuild writes them first, after the banner; the
 * `new` command's templates hold import lines too, further down, as text) and its `import("x")` calls.
 */
function importsOf(code: string): string[] {
  const lines = code.split("\n");
  const body = lines.findIndex((line) => /^(?!import\b|\}|\s|\/\/|$)/.test(line));
  const header = lines.slice(0, body === -1 ? lines.length : body).join("\n");
  const found = [...header.matchAll(/\bfrom\s*"([^"]+)"|^import\s*"([^"]+)"/gm)].map((m) => (m[1] ?? m[2]) as string);
  for (const match of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.push(match[1] as string);
  return found;
}

describe("the built command", () => {
  it("imports no package but @skillport/client: the host, the SDK, zod and pino are in its own files", async () => {
    const files = (await readdir(DIST)).filter((name) => name.endsWith(".js"));
    expect(files).toContain("cli.js");
    expect(importsOf(await readFile(path.join(DIST, "cli.js"), "utf8"))).toContain("node:module"); // the banner
    const packages = new Set<string>();
    for (const name of files) {
      for (const specifier of importsOf(await readFile(path.join(DIST, name), "utf8"))) {
        if (specifier.startsWith(".") || isBuiltin(specifier)) continue;
        packages.add(specifier);
      }
    }
    expect([...packages].sort()).toEqual(["@skillport/client/node"]);
  });

  it("finds what it imports: every relative import names a file in dist", async () => {
    const files = new Set((await readdir(DIST)).filter((name) => name.endsWith(".js")));
    for (const name of files) {
      for (const specifier of importsOf(await readFile(path.join(DIST, name), "utf8"))) {
        if (specifier.startsWith("./")) expect(files, `${name} imports ${specifier}`).toContain(specifier.slice(2));
      }
    }
  });
});
