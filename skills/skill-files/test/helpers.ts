import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { mockContext } from "@skillport/testing";
import { FilesConfig } from "../src/index.js";

/** A context as the host builds one, for calling a capability directly (the testing kit's mockContext). */
export function ctxFor(
  config: FilesConfig,
  options: { signal?: AbortSignal; progress?: SkillContext["progress"] } = {},
): SkillContext<FilesConfig> {
  const ctx = mockContext({ config, ...(options.signal === undefined ? {} : { signal: options.signal }) });
  return options.progress === undefined ? ctx : { ...ctx, progress: options.progress };
}

/**
 * A scratch folder: `root` and `root2` (the instance's roots), `outside` (never to be touched, with a secret), and
 * inside `root` every kind of link a hostile path can use.
 */
export interface Sandbox {
  base: string;
  root: string;
  root2: string;
  outside: string;
  /** A sibling whose name starts with the root's: a prefix check would let it in. */
  rootEvil: string;
  config: FilesConfig;
  ctx: SkillContext<FilesConfig>;
  dispose(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "skill-files-")));
  const root = path.join(base, "root");
  const root2 = path.join(base, "root2");
  const outside = path.join(base, "outside");
  const rootEvil = path.join(base, "root-evil");
  for (const dir of [root, root2, outside, rootEvil, path.join(root, "sub"), path.join(outside, "deep")]) {
    await mkdir(dir, { recursive: true });
  }
  await writeFile(path.join(root, "hello.txt"), "hello\n");
  await writeFile(path.join(root, "sub", "inner.txt"), "inner\n");
  await writeFile(path.join(root2, "file2.txt"), "second root\n");
  await writeFile(path.join(outside, "secret.txt"), "TOP SECRET\n");
  await writeFile(path.join(outside, "deep", "secret2.txt"), "DEEP SECRET\n");
  await writeFile(path.join(rootEvil, "x.txt"), "evil twin\n");
  const links: [string, string][] = [
    ["link-secret", path.join(outside, "secret.txt")],
    ["link-out", outside],
    ["link-out-rel", "../outside"],
    ["link-chain", "link-out"],
    ["dangling", path.join(outside, "not-yet.txt")],
    ["dangling-in", "missing-inside.txt"],
    ["loop1", "loop2"],
    ["loop2", "loop1"],
    ["link-in", "hello.txt"],
    ["link-sub", "sub"],
    ["link-root2", root2],
    ["link-base", base],
    ["link-slash", "/"],
    ["sub/link-up", "../../outside"],
  ];
  for (const [name, target] of links) await symlink(target, path.join(root, name));
  const config = FilesConfig.parse({ roots: [root, root2] });
  return {
    base,
    root,
    root2,
    outside,
    rootEvil,
    config,
    ctx: ctxFor(config),
    dispose: () => rm(base, { recursive: true, force: true }),
  };
}

/** Every file below a folder with a hash of its content: compare two to prove nothing changed. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const key = path.relative(dir, full);
    if (entry.isFile())
      out[key] = createHash("sha256")
        .update(await readFile(full))
        .digest("hex");
    else out[key] = entry.isDirectory() ? "dir" : "other";
  }
  return out;
}
