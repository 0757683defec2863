// The command turns on Node's compile cache (Node 22.1 and later) in a folder of the user's own, never one another
// user can write code into. Real runs of the built command on Node 22 (the conformance package's, as its test uses)
// and on the project's Node 20; the folder rules through the function itself, with hostile folders made on disk.
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import module from "node:module";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CacheContext } from "../src/compile-cache.js";
import { enableCompileCache, privateCacheFolder } from "../src/compile-cache.js";
import { CLI, initialize, initialized, makeWorkspace, REPO, runCombined, withEnv } from "./workspace.js";

const NODE_22 = path.join(REPO, "packages/conformance/node_modules/node/bin/node");
const POSIX = process.platform !== "win32";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempHome(): string {
  const home = mkdtempSync(path.join(os.tmpdir(), "skillport-cache-home-"));
  made.push(home);
  return home;
}

/** Every file under a folder, recursively; none when it is missing. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * `skillport serve --stdio` on Node 22: initialize, then tools/list; killed with SIGKILL once it has answered, as a
 * client may end a server. Answers what the server wrote to stderr.
 */
function serveUntilListedThenKill(manifest: string, cwd: string, env: Record<string, string | undefined>) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(NODE_22, [CLI, "serve", "--stdio", "--manifest", manifest], { cwd, env: withEnv(env) });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const answered = (id: number) =>
      stdout.split("\n").some((line) => line.startsWith("{") && JSON.parse(line).id === id);
    let listing = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.endsWith("\n")) return;
      if (!listing && answered(1)) {
        listing = true;
        child.stdin.write(
          `${JSON.stringify(initialized)}\n${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`,
        );
      }
      if (answered(2)) child.kill("SIGKILL");
    });
    child.on("error", reject);
    child.on("exit", () => {
      clearTimeout(timer);
      if (answered(2)) resolve(stderr);
      else reject(new Error(`no tools/list answer; stdout:\n${stdout}\nstderr:\n${stderr}`));
    });
    child.stdin.write(`${JSON.stringify(initialize(1))}\n`);
  });
}

const cacheOf = (home: string) => path.join(home, ".cache", "skillport", "node-compile-cache");
/** HOME set, and neither Node variable nor XDG_CACHE_HOME inherited from this process. */
const envFor = (home: string, extra: Record<string, string> = {}) => ({
  HOME: home,
  XDG_CACHE_HOME: undefined,
  NODE_COMPILE_CACHE: undefined,
  NODE_DISABLE_COMPILE_CACHE: undefined,
  ...extra,
});
const linux = (home: string, env: NodeJS.ProcessEnv = {}): CacheContext => ({
  env,
  platform: "linux",
  home,
  uid: process.getuid?.(),
});

describe.skipIf(!POSIX)("the command on Node 22", () => {
  it("keeps its compiled code in an owner-only folder in the user's cache, and reuses it on the next start", async () => {
    const home = tempHome();
    const first = await runCombined(NODE_22, [CLI, "--version"], home, envFor(home));
    expect(first.output.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(first.code).toBe(0);
    const folder = cacheOf(home);
    expect(filesUnder(folder).length).toBeGreaterThan(0);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(path.dirname(folder)).mode & 0o777).toBe(0o700);

    const again = await runCombined(NODE_22, [CLI, "--version"], home, {
      ...envFor(home),
      NODE_DEBUG_NATIVE: "COMPILE_CACHE",
    });
    expect(again.code).toBe(0);
    expect(again.output).toMatch(/cache for file:\/\/\S+\/dist\/cli\.js was accepted/);
  });

  it("has written the cache by the time a server answers, so a server stopped with SIGKILL starts from it next time", async () => {
    const ws = await makeWorkspace();
    made.push(ws.dir);
    const home = tempHome();
    await serveUntilListedThenKill(ws.manifest, ws.dir, envFor(home));
    const again = await serveUntilListedThenKill(ws.manifest, ws.dir, {
      ...envFor(home),
      NODE_DEBUG_NATIVE: "COMPILE_CACHE",
    });
    // The host's stdio transport is compiled only for `serve --stdio`: its cache came from the first server.
    expect(again).toMatch(/cache for file:\/\/\S+\/dist\/stdio-\w+\.js was accepted/);
  });

  it("writes nothing into a cache folder another user can write to, or one that links elsewhere, and still runs", async () => {
    const home = tempHome();
    const folder = cacheOf(home);
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o777);
    const open = await runCombined(NODE_22, [CLI, "--version"], home, envFor(home));
    expect(open.code).toBe(0);
    expect(filesUnder(folder)).toEqual([]);
    expect(statSync(folder).mode & 0o777).toBe(0o777); // left as it was: not the command's to fix

    const planted = tempHome();
    rmSync(folder, { recursive: true });
    symlinkSync(planted, folder);
    const linked = await runCombined(NODE_22, [CLI, "--version"], home, envFor(home));
    expect(linked.code).toBe(0);
    expect(filesUnder(planted)).toEqual([]);
  });

  it("is off with NODE_DISABLE_COMPILE_CACHE=1, and in NODE_COMPILE_CACHE's folder when the user names one", async () => {
    const home = tempHome();
    const off = await runCombined(NODE_22, [CLI, "--version"], home, envFor(home, { NODE_DISABLE_COMPILE_CACHE: "1" }));
    expect(off.code).toBe(0);
    expect(existsSync(path.join(home, ".cache"))).toBe(false);

    const chosen = path.join(tempHome(), "chosen");
    const named = await runCombined(NODE_22, [CLI, "--version"], home, envFor(home, { NODE_COMPILE_CACHE: chosen }));
    expect(named.code).toBe(0);
    expect(filesUnder(chosen).length).toBeGreaterThan(0);
    expect(existsSync(path.join(home, ".cache"))).toBe(false);
  });
});

describe("the command on the project's Node", () => {
  it("makes a cache folder only where Node has a compile cache (not on Node 20)", async () => {
    const home = tempHome();
    const ran = await runCombined(process.execPath, [CLI, "--version"], home, envFor(home));
    expect(ran.code).toBe(0);
    const hasCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";
    expect(existsSync(path.join(home, ".cache"))).toBe(hasCache);
    // Called here only where it cannot turn a cache on for this test process.
    if (!hasCache) expect(enableCompileCache(linux(home))).toBeUndefined();
    expect(existsSync(path.join(home, ".cache"))).toBe(hasCache);
  });
});

describe.skipIf(!POSIX)("the cache folder", () => {
  it("is made owner-only under XDG_CACHE_HOME when it is absolute, else under ~/.cache", () => {
    const home = tempHome();
    const xdg = path.join(home, "xdg");
    expect(privateCacheFolder(linux(home, { XDG_CACHE_HOME: xdg }))).toBe(
      path.join(xdg, "skillport", "node-compile-cache"),
    );
    expect(statSync(path.join(xdg, "skillport", "node-compile-cache")).mode & 0o777).toBe(0o700);
    expect(privateCacheFolder(linux(home, { XDG_CACHE_HOME: "relative/cache" }))).toBe(cacheOf(home));
    expect(existsSync(path.join(home, "relative"))).toBe(false);
  });

  it("is refused when it or the skillport folder above it is writable by others, a link, or another user's", () => {
    const home = tempHome();
    const folder = privateCacheFolder(linux(home)) as string;
    expect(folder).toBe(cacheOf(home));

    chmodSync(folder, 0o750); // owner-only: a folder others may so much as read was not made by the command
    expect(privateCacheFolder(linux(home))).toBeUndefined();
    chmodSync(folder, 0o700);
    chmodSync(path.dirname(folder), 0o775);
    expect(privateCacheFolder(linux(home))).toBeUndefined();
    chmodSync(path.dirname(folder), 0o755);
    expect(privateCacheFolder(linux(home))).toBe(folder);

    const uid = process.getuid?.() ?? 0;
    expect(privateCacheFolder({ ...linux(home), uid: uid + 1 })).toBeUndefined();

    rmSync(folder, { recursive: true });
    const elsewhere = tempHome();
    symlinkSync(elsewhere, folder);
    expect(privateCacheFolder(linux(home))).toBeUndefined();
  });

  it("is none when it cannot be made (a read-only or broken home), and the command still runs", async () => {
    const home = tempHome();
    writeFileSync(path.join(home, ".cache"), "not a folder");
    expect(privateCacheFolder(linux(home))).toBeUndefined();
    const ran = await runCombined(NODE_22, [CLI, "--version"], home, envFor(home));
    expect(ran).toMatchObject({ code: 0 });
    expect(ran.output.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("follows each platform's convention, and is none without an absolute place to put it", () => {
    const home = tempHome();
    const local = path.join(home, "AppData", "Local");
    expect(privateCacheFolder({ env: { LOCALAPPDATA: local }, platform: "win32", home, uid: undefined })).toBe(
      path.join(local, "skillport", "node-compile-cache"),
    );
    expect(privateCacheFolder({ env: {}, platform: "darwin", home, uid: process.getuid?.() })).toBe(
      path.join(home, "Library", "Caches", "skillport", "node-compile-cache"),
    );
    expect(privateCacheFolder({ env: {}, platform: "linux", home: "", uid: process.getuid?.() })).toBeUndefined();
    expect(privateCacheFolder({ env: {}, platform: "win32", home, uid: undefined })).toBeUndefined();
  });
});
