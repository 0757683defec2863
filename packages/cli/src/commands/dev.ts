import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Host, HostSwap } from "@skillport/host";
import { HostError } from "@skillport/host";
import type { FSWatcher } from "chokidar";
import { watch } from "chokidar";
import { freshUrl, registerFreshImports, withoutFreshQuery } from "../fresh-imports.js";
import { buildSkill, hasBuildScript } from "../skill-build.js";
import { formatChanges, summaryOf, toolChanges } from "../surface-changes.js";
import type { ServeOptions } from "./serve.js";
import { serve } from "./serve.js";

/**
 * `skillport dev`: `serve` (stdio or HTTP, the same flags) that watches the manifest and every local skill folder,
 * runs a changed skill's own build, imports it anew and swaps the host's table without dropping a client: connected
 * clients get notifications/tools/list_changed and see the new tools on their next tools/list. It prints what each
 * swap did to the tools (added, removed, changed: breaking or not, as `skillport check` classifies it); a failed
 * build, import or manifest keeps the last good table serving, with the error on stderr. Never from the lock: the
 * lock describes released code, not what is being edited.
 */
export async function dev(options: ServeOptions): Promise<number> {
  registerFreshImports();
  // Each local skill folder's build count: its entry is imported at a URL of its own after each build.
  const builds = new Map<string, number>();
  return serve(
    { ...options, lock: false, frozenLock: false },
    {
      command: "dev",
      host: { reloadable: true, importUrl: (url, dir) => freshUrl(url, builds.get(dir)) },
      start: (host) => watchAndSwap(host, builds),
    },
  );
}

// --- internal ---

/** A local skill folder dev watches, and what in it is not a source. */
interface SkillFolder {
  dir: string;
  /** Whether it has a `build` script, run before it is imported anew. */
  builds: boolean;
  /** Top-level folders a change in does not reload it: dependencies, and a build's output (it would loop). */
  skipped: ReadonlySet<string>;
}

/** How long a file must stay the same size before its change counts: an editor's save is one change, not several. */
const SETTLE_MS = 80;
const SETTLE_POLL_MS = 20;

/** Folders never read as a skill's sources. */
const NEVER_SOURCES = ["node_modules", ".git", ".turbo", "coverage"];

async function watchAndSwap(host: Host, builds: Map<string, number>): Promise<{ close(): Promise<void> }> {
  let manifestFile = host.manifest.file;
  let folders = localFolders(host);
  const pending = new Set<string>();
  let running: Promise<void> | undefined;

  const ownerOf = (file: string): string | undefined => {
    if (file === manifestFile) return manifestFile;
    let owner: SkillFolder | undefined;
    for (const folder of folders.values()) {
      if (!file.startsWith(folder.dir + path.sep)) continue;
      if (owner === undefined || folder.dir.length > owner.dir.length) owner = folder;
    }
    // TypeScript's incremental state, which a build writes beside its sources: not a change of one.
    if (owner === undefined || file.endsWith(".tsbuildinfo")) return undefined;
    const top = path.relative(owner.dir, file).split(path.sep)[0] ?? "";
    return owner.skipped.has(top) ? undefined : owner.dir;
  };
  const watcher: FSWatcher = watch([manifestFile, ...folders.keys()], {
    ignoreInitial: true,
    // A folder that is not a source is not even walked (node_modules, a build's output).
    ignored: (file) => file !== manifestFile && ownerOf(file) === undefined && isInsideFolder(file, folders),
    awaitWriteFinish: { stabilityThreshold: SETTLE_MS, pollInterval: SETTLE_POLL_MS },
  });
  watcher.on("all", (_event, file) => {
    const owner = ownerOf(file);
    if (owner === undefined) return;
    pending.add(owner);
    kick();
  });
  watcher.on("error", (error) => say(`the watcher failed: ${error instanceof Error ? error.message : String(error)}`));
  await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  say(watchingLine(manifestFile, folders));

  /** Reloads until nothing is pending: one reload at a time, what changed meanwhile in the next. */
  function kick() {
    running ??= drain().finally(() => {
      running = undefined;
      if (pending.size > 0) kick();
    });
  }

  async function drain() {
    while (pending.size > 0) {
      const changed = [...pending];
      pending.clear();
      const manifestChanged = changed.includes(manifestFile);
      const ready: string[] = [];
      const built: string[] = [];
      for (const dir of changed) {
        if (dir === manifestFile) continue;
        const build = await buildSkill(dir);
        if (build !== undefined && !build.ok) {
          const how = build.code === null ? "could not run" : `exited with ${build.code}`;
          say(
            `the build of ${shown(dir)} failed (${build.command} ${how}); still serving the tools from before. Its output ends:\n${build.tail.map((line) => `    ${line}`).join("\n")}\n  Fix it and save: dev builds it again.`,
          );
          continue;
        }
        if (build !== undefined) built.push(`${build.command} in ${shown(dir)}: ${Math.round(build.ms)} ms`);
        ready.push(dir);
      }
      if (ready.length === 0 && !manifestChanged) continue;
      for (const dir of ready) builds.set(dir, (builds.get(dir) ?? 0) + 1);
      const what = [...(manifestChanged ? [path.basename(manifestFile)] : []), ...ready.map(shown)].join(", ");
      const started = performance.now();
      let swap: HostSwap;
      try {
        swap = await host.reload();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        say(
          `${what} changed, but ${error instanceof HostError ? "the new tools cannot be served" : "reloading failed"}; still serving the tools from before:\n${withoutFreshQuery(message)}\n  Fix it and save: dev reloads then.`,
        );
        continue;
      }
      const changes = toolChanges(swap.previous, swap.current);
      const ms = Math.round(performance.now() - started);
      const builtNote = built.length === 0 ? "" : ` built (${built.join(", ")}),`;
      say(
        [`${what} changed:${builtNote} reloaded in ${ms} ms; ${summaryOf(changes)}`, ...formatChanges(changes)].join(
          "\n",
        ),
      );
      rewatch();
    }
  }

  /** After a swap: the manifest may name other skill folders (or be another file, never: its path is fixed). */
  function rewatch() {
    const next = localFolders(host);
    const added = [...next.keys()].filter((dir) => !folders.has(dir));
    const removed = [...folders.keys()].filter((dir) => !next.has(dir));
    folders = next;
    manifestFile = host.manifest.file;
    if (added.length > 0) watcher.add(added);
    if (removed.length > 0) watcher.unwatch(removed);
    if (added.length > 0 || removed.length > 0) say(watchingLine(manifestFile, folders));
  }

  return {
    close: async () => {
      await watcher.close();
      await running;
    },
  };
}

/** Whether a path is inside one of the watched skill folders (then `ownerOf` decides whether it is a source). */
function isInsideFolder(file: string, folders: ReadonlyMap<string, SkillFolder>): boolean {
  for (const dir of folders.keys()) if (file.startsWith(dir + path.sep)) return true;
  return false;
}

/**
 * The local skill folders of the table in place: every enabled `path` entry's, and every imported package's that
 * is not installed under node_modules (a workspace package, linked).
 */
function localFolders(host: Host): Map<string, SkillFolder> {
  const dirs = new Set<string>();
  const { manifest, registry } = host;
  for (const entry of manifest.skills) {
    if (entry.enabled !== false && entry.path !== undefined) dirs.add(path.resolve(manifest.dir, entry.path));
  }
  for (const instance of registry.instances) {
    if (instance.entryUrl === undefined) continue;
    const dir = packageDirOf(fileURLToPath(instance.entryUrl), instance.packageName);
    if (dir !== undefined && !dir.split(path.sep).includes("node_modules")) dirs.add(dir);
  }
  return new Map([...dirs].map((dir) => [dir, folderOf(dir)]));
}

function folderOf(dir: string): SkillFolder {
  const builds = hasBuildScript(dir);
  const skipped = new Set(NEVER_SOURCES);
  // A skill that builds is imported from its build's output: a change there is the build's own, not a source's.
  if (builds) for (const output of outputDirsOf(dir)) skipped.add(output);
  return { dir, builds, skipped };
}

/** The top-level folders a package's entry points into (`dist` for `./dist/index.js`); `dist` when it names none. */
function outputDirsOf(dir: string): string[] {
  let pkg: { main?: unknown; exports?: unknown };
  try {
    pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as typeof pkg;
  } catch {
    return ["dist"];
  }
  const targets = JSON.stringify([pkg.main ?? null, pkg.exports ?? null]).match(/"\.\/[^"]+"|"[^".][^"]*\/[^"]*"/g);
  const tops = new Set<string>();
  for (const target of targets ?? []) {
    const parts = target.slice(1, -1).replace(/^\.\//, "").split("/");
    if (parts.length > 1 && parts[0] !== undefined && parts[0] !== "") tops.add(parts[0]);
  }
  return tops.size === 0 ? ["dist"] : [...tops];
}

/** The folder of the package.json named `name` above an entry file. */
function packageDirOf(file: string, name: string): string | undefined {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown };
      if (pkg.name === name) return dir;
    } catch {
      // no package.json here: look further up
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

function watchingLine(manifestFile: string, folders: ReadonlyMap<string, SkillFolder>): string {
  const list = [...folders.values()].map((f) => `${shown(f.dir)}${f.builds ? " (built with its build script)" : ""}`);
  const skills =
    list.length === 0
      ? "no local skill folder"
      : `${list.length} local skill ${list.length === 1 ? "folder" : "folders"}: ${list.join(", ")}`;
  return `watching ${shown(manifestFile)} and ${skills}; save a change to reload`;
}

/** A path as a person reads it: relative to the current folder when inside it. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative === "" ? "." : relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

/** One of dev's lines on stderr (stdout is the protocol over stdio). */
function say(text: string): void {
  process.stderr.write(`[skillport] dev: ${text}\n`);
}
