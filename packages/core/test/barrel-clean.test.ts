import path from "node:path";
import { fileURLToPath } from "node:url";
import { builtEntries, importsOf, isBuiltin } from "@skillport/test-utils";
import { describe, expect, it } from "vitest";

const PACKAGE = fileURLToPath(new URL("../", import.meta.url));
const DIST = path.join(PACKAGE, "dist");

describe("the root entry of @skillport/core", () => {
  it("imports no Node built-in and nothing of the confine subpath", async () => {
    const imports = await importsOf(path.join(DIST, "index.js"));
    expect(imports.filter(isBuiltin)).toEqual([]);
    expect(imports.filter((s) => /confine/.test(s))).toEqual([]);
    expect(imports.filter((s) => !s.startsWith(".") && !isBuiltin(s))).toEqual(["zod"]);
  });

  it("while the confine entry uses Node's file system and no dependency", async () => {
    const imports = await importsOf(path.join(DIST, "confine.js"));
    expect(imports.filter(isBuiltin)).toEqual(expect.arrayContaining(["fs", "fs/promises", "path"]));
    expect(imports.filter((s) => !s.startsWith(".") && !isBuiltin(s))).toEqual([]);
  });

  it("and every built entry is declared in exports, and every export is built", async () => {
    expect(await builtEntries(PACKAGE)).toEqual([".", "./confine", "./confine/testing", "./sandbox"]);
  });
});
