// What a sandboxed child process may read of the file system: its skill's package and dependencies, nothing around.
import { realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { moduleMounts, orderMounts } from "../src/entries/isolated/process-mounts.js";

const REPO = realpathSync(fileURLToPath(new URL("../../../", import.meta.url)));
const at = (p: string) => path.join(REPO, p);

describe("moduleMounts", () => {
  it("mounts a skill package, its dependencies at their real paths and the links to them, not the project", () => {
    const mounts = moduleMounts(at("skills/skill-github"));
    expect(mounts).toContain(at("skills/skill-github"));
    expect(mounts).toContain(at("packages/core")); // the workspace link's target
    expect(mounts.some((m) => m.includes(`${path.sep}.pnpm${path.sep}zod@`))).toBe(true); // core's zod, via pnpm
    expect(mounts).not.toContain(REPO);
    expect(mounts).not.toContain(at("packages"));
    expect(mounts.filter((m) => m.startsWith(at("packages/host")))).toEqual([]);
  });

  it("follows only the named dependencies when told not to read the folder's own package.json", () => {
    const mounts = moduleMounts(at("packages/host/dist"), { extra: ["@skillport/core"], declared: false });
    expect(mounts).toEqual(
      expect.arrayContaining([at("packages/host/dist"), at("packages/host/node_modules"), at("packages/core")]),
    );
    expect(mounts.some((m) => m.includes("pino") || m.includes("ajv"))).toBe(false);
  });
});

describe("orderMounts", () => {
  it("puts parents first and drops a mount inside another of the same kind", () => {
    expect(
      orderMounts([
        { path: "/a/b/c" },
        { path: "/a/b/c/d", writable: true },
        { path: "/a" },
        { path: "/a/b" },
        { path: "/z" },
      ]),
    ).toEqual([{ path: "/a" }, { path: "/z" }, { path: "/a/b/c/d", writable: true }]);
  });
});
