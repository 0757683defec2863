// @skillport/core/confine/testing: the hostile-path corpus every skill that touches files runs its tools against.
// Any new export added here becomes public API. Use named exports, not wildcards.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** The text every file outside the roots holds: no successful answer may ever contain it. */
export const CANARY = "CANARY-OUTSIDE-THE-ROOTS";

/**
 * A scratch tree for hostile-path tests, made by {@link makeHostileTree}:
 *
 * ```
 * <base>/root/        the first root: hello.txt, notes.md, sub/inner.txt, and every kind of link listed below
 * <base>/root2/       a second root: file2.txt
 * <base>/outside/     never to be touched: secret.txt, secret.md, deep/secret2.txt (each holds CANARY)
 * <base>/root-evil/   a sibling sharing the root's prefix: x.txt (holds CANARY)
 * ```
 */
export interface HostileTree {
  base: string;
  root: string;
  root2: string;
  outside: string;
  rootEvil: string;
  /** Removes the whole tree. */
  dispose(): Promise<void>;
}

/** The links inside `root`, as [name, target]: absolute targets are made from the tree. */
const LINKS: [name: string, target: (t: Omit<HostileTree, "dispose">) => string][] = [
  ["link-secret", (t) => path.join(t.outside, "secret.txt")],
  ["leak.md", (t) => path.join(t.outside, "secret.md")],
  ["link-out", (t) => t.outside],
  ["link-out-rel", () => "../outside"],
  ["link-chain", () => "link-out"],
  ["dangling", (t) => path.join(t.outside, "not-yet.txt")],
  ["dangling-in", () => "missing-inside.txt"],
  ["loop1", () => "loop2"],
  ["loop2", () => "loop1"],
  ["link-in", () => "hello.txt"],
  ["link-sub", () => "sub"],
  ["link-root2", (t) => t.root2],
  ["link-base", (t) => t.base],
  ["link-slash", () => "/"],
  ["sub/link-up", () => "../../outside"],
];

/**
 * Creates a {@link HostileTree} in a fresh folder under the system's temporary folder.
 *
 * @example
 * const tree = await makeHostileTree();
 * const config = { roots: [tree.root, tree.root2] };
 * // … run every HOSTILE_PATHS entry through each tool …
 * await tree.dispose();
 */
export async function makeHostileTree(): Promise<HostileTree> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "skillport-hostile-")));
  const tree = {
    base,
    root: path.join(base, "root"),
    root2: path.join(base, "root2"),
    outside: path.join(base, "outside"),
    rootEvil: path.join(base, "root-evil"),
  };
  for (const dir of [tree.root, tree.root2, tree.outside, tree.rootEvil]) await mkdir(dir, { recursive: true });
  await mkdir(path.join(tree.root, "sub"));
  await mkdir(path.join(tree.outside, "deep"));
  await writeFile(path.join(tree.root, "hello.txt"), "hello\n");
  await writeFile(path.join(tree.root, "notes.md"), "# Notes\n\ninside the root\n");
  await writeFile(path.join(tree.root, "sub", "inner.txt"), "inner\n");
  await writeFile(path.join(tree.root2, "file2.txt"), "second root\n");
  await writeFile(path.join(tree.outside, "secret.txt"), `${CANARY} secret\n`);
  await writeFile(path.join(tree.outside, "secret.md"), `# Secret\n\n${CANARY}\n`);
  await writeFile(path.join(tree.outside, "deep", "secret2.txt"), `${CANARY} deep\n`);
  await writeFile(path.join(tree.rootEvil, "x.txt"), `${CANARY} evil twin\n`);
  for (const [name, target] of LINKS) await symlink(target(tree), path.join(tree.root, name));
  return { ...tree, dispose: () => rm(base, { recursive: true, force: true }) };
}

/** One hostile path and what a confinement over `[root, root2]` (base `root`, absolute paths allowed) answers. */
export interface HostilePath {
  /** What the path tries. */
  label: string;
  /** The path, or a function of the tree for absolute paths into it. */
  path: string | ((tree: HostileTree) => string);
  /** The refusal's code; its field is the argument's. */
  code: "PERMISSION_DENIED" | "ARGUMENT_INVALID";
  /** Points at the machine's own files: try it only with tools that do not write. */
  system?: boolean;
}

/**
 * Paths that must never reach a file outside the roots: `..` in every spelling, absolute paths outside, Windows
 * forms, NUL and control characters, home folders, every kind of link out, names too long for the system. Each
 * skill that takes a path runs each of them through each of its tools.
 */
export const HOSTILE_PATHS: readonly HostilePath[] = Object.freeze([
  // ".." in every spelling
  { label: "parent", path: "..", code: "PERMISSION_DENIED" },
  { label: "parent then sibling", path: "../outside/secret.txt", code: "PERMISSION_DENIED" },
  { label: "parent then a note outside", path: "../outside/secret.md", code: "PERMISSION_DENIED" },
  { label: "dot parent", path: "./../outside/secret.txt", code: "PERMISSION_DENIED" },
  { label: "down then up twice", path: "sub/../../outside/secret.txt", code: "PERMISSION_DENIED" },
  { label: "down then up, staying inside", path: "sub/../hello.txt", code: "PERMISSION_DENIED" },
  { label: "trailing parent", path: "sub/..", code: "PERMISSION_DENIED" },
  { label: "doubled slashes with parent", path: "sub//..//..//outside/secret.txt", code: "PERMISSION_DENIED" },
  { label: "missing folder then up", path: "missing/../../outside/new.txt", code: "PERMISSION_DENIED" },
  // backslashes are separators
  { label: "backslash parent", path: "..\\outside\\secret.txt", code: "PERMISSION_DENIED" },
  { label: "backslash down then up", path: "sub\\..\\..\\outside\\secret.txt", code: "PERMISSION_DENIED" },
  { label: "mixed separators", path: "sub/..\\../outside/secret.txt", code: "PERMISSION_DENIED" },
  {
    label: "backslash absolute",
    path: (t) => `${t.outside.replaceAll("/", "\\")}\\secret.txt`,
    code: "PERMISSION_DENIED",
  },
  // absolute paths outside the roots
  { label: "absolute outside", path: (t) => path.join(t.outside, "secret.txt"), code: "PERMISSION_DENIED" },
  { label: "absolute outside, new file", path: (t) => path.join(t.outside, "new.txt"), code: "PERMISSION_DENIED" },
  {
    label: "absolute through the root and up",
    path: (t) => `${t.root}/../outside/secret.txt`,
    code: "PERMISSION_DENIED",
  },
  {
    label: "absolute sibling sharing the root's prefix",
    path: (t) => path.join(t.rootEvil, "x.txt"),
    code: "PERMISSION_DENIED",
  },
  { label: "absolute parent of the roots", path: (t) => t.base, code: "PERMISSION_DENIED" },
  { label: "absolute system file", path: "/etc/passwd", code: "PERMISSION_DENIED", system: true },
  { label: "filesystem root", path: "/", code: "PERMISSION_DENIED", system: true },
  { label: "proc of this process", path: "/proc/self/environ", code: "PERMISSION_DENIED", system: true },
  // Windows forms
  { label: "drive letter, backslashes", path: "C:\\Windows\\win.ini", code: "PERMISSION_DENIED", system: true },
  { label: "drive letter, slashes", path: "c:/x.txt", code: "PERMISSION_DENIED" },
  { label: "drive-relative", path: "C:x.txt", code: "PERMISSION_DENIED" },
  { label: "UNC share", path: "\\\\server\\share\\file.txt", code: "PERMISSION_DENIED" },
  { label: "UNC with slashes", path: "//server/share/file.txt", code: "PERMISSION_DENIED" },
  { label: "device namespace", path: "\\\\?\\C:\\x.txt", code: "PERMISSION_DENIED" },
  // NUL bytes and control characters
  { label: "NUL before an extension", path: "hello.txt\0.png", code: "PERMISSION_DENIED" },
  { label: "NUL alone", path: "\0", code: "PERMISSION_DENIED" },
  { label: "NUL after a parent", path: "..\0/x", code: "PERMISSION_DENIED" },
  { label: "newline hiding a parent", path: "hello.txt\n/../x", code: "PERMISSION_DENIED" },
  { label: "newline in a name", path: "hello.txt\nx", code: "ARGUMENT_INVALID" },
  { label: "control character", path: "hel\u0007lo.txt", code: "ARGUMENT_INVALID" },
  { label: "C1 control character", path: "hel\u009blo.txt", code: "ARGUMENT_INVALID" },
  { label: "right-to-left override", path: "evil\u202etxt.md", code: "ARGUMENT_INVALID" },
  // names and paths too long for the system (ENAMETOOLONG)
  { label: "a 4,000-character name", path: "x".repeat(4000), code: "ARGUMENT_INVALID" },
  { label: "a 256-byte name", path: `sub/${"n".repeat(256)}`, code: "ARGUMENT_INVALID" },
  { label: "a name of 86 four-byte characters", path: "\u{1F600}".repeat(86), code: "ARGUMENT_INVALID" },
  { label: "a 4,096-byte path of short names", path: "a/".repeat(2048), code: "ARGUMENT_INVALID" },
  // a file where a folder is needed (ENOTDIR)
  { label: "a file used as a folder", path: "hello.txt/x", code: "ARGUMENT_INVALID" },
  // home folders
  { label: "home", path: "~/.ssh/id_rsa", code: "PERMISSION_DENIED" },
  { label: "another user's home", path: "~root/.bashrc", code: "PERMISSION_DENIED" },
  // symbolic links
  { label: "link to a file outside", path: "link-secret", code: "PERMISSION_DENIED" },
  { label: "note linked to a note outside", path: "leak.md", code: "PERMISSION_DENIED" },
  { label: "through a linked folder outside", path: "link-out/secret.txt", code: "PERMISSION_DENIED" },
  { label: "a note through a linked folder outside", path: "link-out/secret.md", code: "PERMISSION_DENIED" },
  { label: "the linked folder itself", path: "link-out", code: "PERMISSION_DENIED" },
  { label: "relative link to outside", path: "link-out-rel/secret.txt", code: "PERMISSION_DENIED" },
  { label: "chain of links", path: "link-chain/deep/secret2.txt", code: "PERMISSION_DENIED" },
  { label: "link in a sub-folder going up", path: "sub/link-up/secret.txt", code: "PERMISSION_DENIED" },
  { label: "link to the parent of the roots", path: "link-base/outside/secret.txt", code: "PERMISSION_DENIED" },
  { label: "link to /", path: "link-slash/etc/passwd", code: "PERMISSION_DENIED", system: true },
  { label: "new file in a linked folder outside", path: "link-out/new.txt", code: "PERMISSION_DENIED" },
  { label: "new folders under a linked folder outside", path: "link-out/a/b/c/new.txt", code: "PERMISSION_DENIED" },
  { label: "broken link pointing outside", path: "dangling", code: "PERMISSION_DENIED" },
  { label: "broken link as a parent", path: "dangling/child.txt", code: "PERMISSION_DENIED" },
  { label: "broken link inside", path: "dangling-in", code: "PERMISSION_DENIED" },
  { label: "link loop", path: "loop1", code: "PERMISSION_DENIED" },
  { label: "through a link loop", path: "loop1/x.txt", code: "PERMISSION_DENIED" },
  {
    label: "absolute path to a link outside",
    path: (t) => path.join(t.root, "link-secret"),
    code: "PERMISSION_DENIED",
  },
] satisfies HostilePath[]);

/** The entry's path for this tree. */
export function hostilePath(entry: HostilePath, tree: HostileTree): string {
  return typeof entry.path === "function" ? entry.path(tree) : entry.path;
}

/** A running swapper process (see {@link startSwapper}). */
export interface Swapper {
  /** Ends it; it puts the real folder back first. Resolves to the number of swaps it made. */
  stop(): Promise<number>;
  /** What it wrote on stderr, for failure messages. */
  stderr(): string;
}

/** Options for {@link startSwapper}. */
export interface SwapperOptions {
  /** It stops by itself after this long, should nobody stop it. @default 120 */
  seconds?: number;
  /**
   * How long each state (real folder, link) is held before the next swap. 0 swaps as fast as it can, which is the
   * harshest race; a few milliseconds let calls also land wholly inside one state.
   * @default 0
   */
  holdMs?: number;
}

/**
 * Starts the attacker of a race test: a child process that swaps `folder` (a folder inside a root) with a symbolic
 * link to `outside`, again and again, until stopped or `seconds` pass. Resolves once it is
 * swapping. Run your tool's reads and writes under `folder` meanwhile: none may return what `outside` holds, nor
 * create or change anything there.
 *
 * @example
 * const swapper = await startSwapper(path.join(tree.root, "sub"), tree.outside);
 * try {
 *   for (let i = 0; i < 300; i++) await readFile({ path: "sub/inner.txt" }, ctx).catch(() => undefined);
 * } finally {
 *   expect(await swapper.stop()).toBeGreaterThan(0);
 * }
 */
export function startSwapper(folder: string, outside: string, options: SwapperOptions = {}): Promise<Swapper> {
  const seconds = options.seconds ?? 120;
  const holdMs = options.holdMs ?? 0;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--input-type=module", "--eval", SWAPPER_SCRIPT, "--", folder, outside, String(seconds), String(holdMs)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    let started = false;
    const exited = new Promise<number>((done) => {
      child.on("close", () => done(Number.parseInt(out.trim(), 10)));
    });
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      if (!started && err.includes("SWAPPING")) {
        started = true;
        resolve({
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
            return exited;
          },
          stderr: () => err,
        });
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (!started) reject(new Error(`the swapper ended (${code}) before swapping: ${err}`));
    });
  });
}

// --- internal ---

/**
 * The swapper's code: synchronous bursts of rename-aside, link, unlink, rename-back, with a turn of the event loop
 * between bursts so SIGTERM is seen; on the way out it puts the real folder back and prints its count.
 */
const SWAPPER_SCRIPT = `
import { lstatSync, renameSync, rmSync, symlinkSync } from "node:fs";
const [folder, outside, seconds, holdMs] = process.argv.slice(-4);
const hold = Number(holdMs);
const pause = new Int32Array(new SharedArrayBuffer(4));
const wait = () => { if (hold > 0) Atomics.wait(pause, 0, 0, hold); };
const aside = folder + ".real";
const until = Date.now() + Number(seconds) * 1000;
let swaps = 0;
let stop = false;
process.on("SIGTERM", () => { stop = true; });
function restore() {
  try { if (lstatSync(folder).isSymbolicLink()) rmSync(folder); } catch {}
  try { lstatSync(aside); renameSync(aside, folder); } catch {}
}
function burst() {
  for (let i = 0; i < 200 && !stop; i++) {
    try {
      renameSync(folder, aside);
      symlinkSync(outside, folder);
      swaps++;
      wait();
      rmSync(folder);
      renameSync(aside, folder);
      wait();
    } catch {
      restore();
    }
  }
  if (stop || Date.now() > until) {
    restore();
    process.stdout.write(swaps + "\\n");
    process.exit(0);
  }
  setImmediate(burst);
}
process.stderr.write("SWAPPING\\n");
burst();
`;
