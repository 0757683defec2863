import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { builtEntries, importsOf, isBuiltin, packagesOf } from "@skillport/test-utils";
import { describe, expect, it } from "vitest";
import { CLIENT_INFO } from "../src/handle.js";

const PACKAGE = fileURLToPath(new URL("../", import.meta.url));
const DIST = path.join(PACKAGE, "dist");

/** What linearJsonSchemaValidator imports. */
const LINEAR_VALIDATOR = ["ajv", "ajv-formats", "ajv/dist/2019.js", "ajv/dist/2020.js", "re2js"];

describe("the entries of @skillport/client", () => {
  it("the root entry imports no Node built-in and nothing of @skillport/host", async () => {
    const imports = await importsOf(path.join(DIST, "index.js"));
    expect(imports.filter(isBuiltin)).toEqual([]);
    // ajv and re2js (with import(), on the first connection): the output schema check, patterns in linear time.
    expect(packagesOf(imports)).toEqual([...LINEAR_VALIDATOR, "@modelcontextprotocol/client"].sort());
  });

  it("the node entry loads @skillport/host only with import(), when a host transport starts", async () => {
    const source = await readFile(path.join(DIST, "node.js"), "utf8");
    const imports = await importsOf(path.join(DIST, "node.js"));
    expect(packagesOf(imports)).toEqual(
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
    expect(await builtEntries(PACKAGE)).toEqual([".", "./node"]);
    const pkg = JSON.parse(await readFile(path.join(PACKAGE, "package.json"), "utf8")) as { version: string };
    await expect(readFile(path.join(DIST, "worker-host.js"))).resolves.toBeDefined();
    expect(CLIENT_INFO.version).toBe(pkg.version);
  });
});
