import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ECHO } from "./helpers.js";

const HOST = fileURLToPath(new URL("..", import.meta.url));

// The built host finds its own files (the isolate entries, the prebuilt validators) from its package's root. It
// once took any path with "/src/" in it for its TypeScript sources and sent a worker to a file that is not there:
// installed under a folder named src, isolated skills could not start.
describe("the built host installed under a folder named src", () => {
  let dir: string;
  let installed: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "skillport-under-src-"));
    installed = path.join(dir, "src", "app", "node_modules", "@skillport", "host");
    await mkdir(installed, { recursive: true });
    for (const file of ["package.json", "manifest.schema.json", "dist"]) {
      await cp(path.join(HOST, file), path.join(installed, file), { recursive: true });
    }
    // Its dependencies, as an install would put them beside it.
    await symlink(path.join(HOST, "node_modules"), path.join(installed, "node_modules"), "dir");
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("runs a skill isolated in a worker and checks its manifest with the prebuilt validator", async () => {
    const { createHost, createLogger } = (await import(
      pathToFileURL(path.join(installed, "dist", "index.js")).href
    )) as typeof import("../src/index.js");
    const manifest = path.join(dir, "src", "app", "skills.manifest.json");
    await writeFile(manifest, JSON.stringify({ skills: [{ path: ECHO, isolation: "worker" }] }));
    const host = await createHost({ manifest, logger: createLogger({ level: "silent" }) });
    try {
      const echoed = await host.pipeline.call("echo.echo", { text: "hi" });
      expect(echoed.envelope).toMatchObject({ ok: true, data: { echoed: "hi" } });
    } finally {
      await host.close();
    }
    await writeFile(manifest, JSON.stringify({ skills: [{ path: ECHO, isolation: "sideways" }] }));
    await expect(createHost({ manifest, logger: createLogger({ level: "silent" }) })).rejects.toThrow(/isolation/);
  });
});
