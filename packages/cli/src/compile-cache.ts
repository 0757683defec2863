import { lstatSync, mkdirSync } from "node:fs";
import module from "node:module";
import os from "node:os";
import path from "node:path";

/** What Node's `module.enableCompileCache` answers (Node 22.1 and later; absent before). */
interface CompileCacheResult {
  status: number;
  directory?: string;
  message?: string;
}
type EnableCompileCache = (directory?: string) => CompileCacheResult;

/** Where this process's user keeps caches, and who they are: what {@link enableCompileCache} reads. */
export interface CacheContext {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  /** The user's id; undefined where there is none (Windows). */
  uid: number | undefined;
}

/**
 * Turns on Node's compile cache for the command (Node 22.1 and later: V8's compiled code for each module kept on disk
 * and reused while the module's text is unchanged; about a fifth of a start at one skill), and answers its folder, or
 * undefined when it stays off. Node's default folder is shared by every user of the machine (the system's temporary
 * folder), and a cache entry is code this process would run, so the command keeps its own in the user's cache folder
 * (`$XDG_CACHE_HOME` or `~/.cache`, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows), under
 * `skillport/node-compile-cache`, and uses it only when the user owns it and no one else can write to it or to the
 * `skillport` folder above it; anything else leaves the cache off, quietly, as Node does when it cannot enable one.
 * `NODE_COMPILE_CACHE=<folder>` chooses another folder (Node's own variable) and `NODE_DISABLE_COMPILE_CACHE=1`
 * turns it off. Node 20 has no compile cache: nothing happens.
 */
export function enableCompileCache(context: CacheContext = currentContext()): string | undefined {
  const enable = (module as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== "function" || context.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  // A folder the user named: Node reads the variable itself when it is given no folder.
  const folder = context.env.NODE_COMPILE_CACHE ? undefined : privateCacheFolder(context);
  if (folder === undefined && !context.env.NODE_COMPILE_CACHE) return undefined;
  try {
    return enable(folder).directory;
  } catch {
    return undefined; // documented never to throw; a cache is not worth a failed start either way
  }
}

/**
 * Writes what Node has compiled so far to the compile cache now (Node 22.10 and later), not only when the process
 * exits: a server is often ended by a signal, and then Node writes nothing. Nothing happens without a cache.
 */
export function flushCompileCache(): void {
  (module as { flushCompileCache?: () => void }).flushCompileCache?.();
}

/**
 * `<user cache>/skillport/node-compile-cache`, made owner-only when missing; undefined when it cannot be made or
 * another user could write code into it (see {@link enableCompileCache}).
 */
export function privateCacheFolder(context: CacheContext): string | undefined {
  const base = userCacheFolder(context);
  if (base === undefined) return undefined;
  const parent = path.join(base, "skillport");
  const folder = path.join(parent, "node-compile-cache");
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (context.uid === undefined) return folder; // Windows: %LOCALAPPDATA% is the user's own
    return ownedBy(parent, context.uid, 0o022) && ownedBy(folder, context.uid, 0o077) ? folder : undefined;
  } catch {
    return undefined;
  }
}

// --- internal ---

function currentContext(): CacheContext {
  return {
    env: process.env,
    platform: process.platform,
    home: os.homedir(),
    uid: typeof process.getuid === "function" ? process.getuid() : undefined,
  };
}

/** The user's cache folder as the platform's conventions name it (a relative `XDG_CACHE_HOME` is ignored, as XDG says). */
function userCacheFolder({ env, platform, home }: CacheContext): string | undefined {
  const absolute = (folder: string | undefined) => (folder && path.isAbsolute(folder) ? folder : undefined);
  if (platform === "win32") return absolute(env.LOCALAPPDATA);
  const inHome = (...parts: string[]) => absolute(home) && path.join(home, ...parts);
  if (platform === "darwin") return inHome("Library", "Caches");
  return absolute(env.XDG_CACHE_HOME) ?? inHome(".cache");
}

/** A real folder (not a link to one) the user owns, with none of the `denied` permission bits set. */
function ownedBy(folder: string, uid: number, denied: number): boolean {
  const stat = lstatSync(folder);
  return stat.isDirectory() && stat.uid === uid && (stat.mode & denied) === 0;
}
