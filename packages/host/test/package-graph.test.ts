// Dependencies point one way (DESIGN.md): skills → core, host → core, tooling → host, testing → tooling and host,
// cli → tooling and host. The runtime host never imports the tooling (lock writing, change classification, the spec
// lint), which builds on it through @skillport/host/surface. A host test that used a
// bundled skill made host depend on skill-notes, whose tests use testing, which depends on host: pnpm and turbo
// warned about that cycle on every run. Host tests use host's own fixtures (test/fixtures/) instead.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

async function workspacePackages(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const folder of ["packages", "skills"]) {
    for (const name of await readdir(path.join(ROOT, folder))) {
      const text = await readFile(path.join(ROOT, folder, name, "package.json"), "utf8").catch(() => undefined);
      if (text === undefined) continue;
      const manifest = JSON.parse(text) as Manifest;
      const all = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies };
      graph.set(
        manifest.name,
        Object.entries(all)
          .filter(([, range]) => range.startsWith("workspace:"))
          .map(([dependency]) => dependency),
      );
    }
  }
  return graph;
}

describe("the workspace's packages", () => {
  it("depend on each other without a cycle, dev dependencies included", async () => {
    const graph = await workspacePackages();
    const cycles = new Set<string>();
    const visit = (name: string, trail: string[]) => {
      if (trail.includes(name)) {
        cycles.add([...trail.slice(trail.indexOf(name)), name].join(" → "));
        return;
      }
      for (const next of graph.get(name) ?? []) visit(next, [...trail, name]);
    };
    for (const name of graph.keys()) visit(name, []);
    expect([...cycles]).toEqual([]);
    expect(graph.get("@skillport/host")).toEqual(["@skillport/core", "@skillport/test-utils"]);
    expect(graph.get("@skillport/tooling")?.sort()).toEqual([
      "@skillport/core",
      "@skillport/host",
      "@skillport/test-utils",
    ]);
  });

  it("and the host's code imports nothing of @skillport/tooling", async () => {
    const src = path.join(ROOT, "packages/host/src");
    const files = (await readdir(src, { recursive: true })).filter((file) => /\.[cm]?ts$/.test(file));
    const importing: string[] = [];
    for (const file of files) {
      if (/["']@skillport\/tooling["'/]/.test(await readFile(path.join(src, file), "utf8"))) importing.push(file);
    }
    expect(importing).toEqual([]);
  });
});
