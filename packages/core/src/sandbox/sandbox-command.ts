import { existsSync, lstatSync, realpathSync } from "node:fs";
import path from "node:path";

/** A host path made visible inside the sandbox, at the same place. */
export interface SandboxMount {
  /** An absolute host path (folder or file), mounted at the same path inside. Give its real path (links resolved). */
  path: string;
  /**
   * Whether programs in the sandbox may change what is under it.
   * @default false
   */
  writable?: boolean;
}

/** What to run, and what the sandbox lets it see. */
export interface SandboxCommandOptions {
  /** The program: a bare name looked up on `env.PATH` inside the sandbox, or an absolute path visible there. */
  command: string;
  /** Its arguments, passed through unchanged. @default [] */
  args?: readonly string[];
  /** The working folder; must be inside one of the mounts. */
  cwd: string;
  /** The program's whole environment. Nothing else is passed, not even to bubblewrap itself. */
  env: Readonly<Record<string, string>>;
  /** The host paths the program may see: typically the roots it works in (writable) and its toolchain (read-only). */
  mounts: readonly SandboxMount[];
  /**
   * Whether the program may use the network. Off, it gets its own network namespace with only a loopback device.
   * @default false
   */
  network?: boolean;
  /**
   * System paths mounted read-only so programs can start (binaries, libraries, the loader's cache). Paths that do
   * not exist on this machine are skipped.
   * @default SYSTEM_PATHS (plus NETWORK_PATHS when `network` is true)
   */
  system?: readonly string[];
  /**
   * The bubblewrap executable.
   * @default the first of BWRAP_LOCATIONS that exists
   */
  bwrap?: string;
}

/** What to spawn: run `command` with `args` and exactly `env` (bubblewrap's own environment is visible inside). */
export interface SandboxedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Where bubblewrap is looked for. PATH is not searched: a writable folder on it could hold a fake. */
export const BWRAP_LOCATIONS: readonly string[] = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

/** Read-only system paths a program needs to start: binaries, libraries and the dynamic loader's configuration. */
export const SYSTEM_PATHS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/localtime",
];

/** Added to the system paths when the network is allowed: name resolution and certificates. */
export const NETWORK_PATHS: readonly string[] = [
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
];

/**
 * Builds the command line that runs a program under bubblewrap: a fresh root with only the system paths
 * (read-only), the given mounts, a private `/tmp`, its own `/proc` in a new pid namespace (host processes, and
 * their environments, are invisible), a minimal `/dev`, no network unless asked, every capability dropped, a new
 * session (no terminal to inject keystrokes into), and exactly the environment given (bubblewrap would add PWD:
 * the program is started through `env -i` to keep it out). Killing the returned process
 * kills everything in the sandbox, however the program detached its children.
 *
 * Synchronous, and runs nothing; call `sandboxAvailable()` first to know whether bubblewrap works here.
 *
 * @example
 * const { command, args, env } = sandboxCommand({
 *   command: "git", args: ["status"], cwd: "/srv/repo", env: { PATH: "/usr/bin:/bin" },
 *   mounts: [{ path: "/srv/repo", writable: true }],
 * });
 * spawn(command, args, { env, detached: true });
 */
export function sandboxCommand(options: SandboxCommandOptions): SandboxedCommand {
  const bwrap = options.bwrap ?? findBwrap();
  if (bwrap === undefined) {
    throw new Error(
      `[skillport] [sandbox] bubblewrap was not found (looked in ${BWRAP_LOCATIONS.join(", ")}); install the "bubblewrap" package`,
    );
  }
  for (const mount of options.mounts) {
    if (!path.isAbsolute(mount.path)) {
      throw new Error(`[skillport] [sandbox] mount path "${mount.path}" must be absolute`);
    }
  }
  if (!path.isAbsolute(options.cwd)) {
    throw new Error(`[skillport] [sandbox] cwd "${options.cwd}" must be absolute`);
  }
  const network = options.network ?? false;
  const system = options.system ?? (network ? [...SYSTEM_PATHS, ...NETWORK_PATHS] : SYSTEM_PATHS);
  const args: string[] = [
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    ...(network ? ["--share-net"] : []),
    "--cap-drop",
    "ALL",
    ...systemMounts(system),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    "/var/tmp",
    // After /tmp, so a folder under /tmp is mounted over the private one.
    ...options.mounts.flatMap((m) => [m.writable ? "--bind" : "--ro-bind", m.path, m.path]),
    "--chdir",
    options.cwd,
    "--clearenv",
    ...Object.entries(options.env).flatMap(([name, value]) => ["--setenv", name, value]),
    "--",
    ...exactEnvironment(options.env, options.command),
    options.command,
    ...(options.args ?? []),
  ];
  return { command: bwrap, args, env: { ...options.env } };
}

/** The first bubblewrap found in BWRAP_LOCATIONS, or undefined. */
export function findBwrap(): string | undefined {
  return BWRAP_LOCATIONS.find((candidate) => existsSync(candidate));
}

// --- internal ---

/** Where env(1) is; the first that exists is used inside the sandbox (the system folders are mounted there). */
const ENV_LOCATIONS = ["/usr/bin/env", "/bin/env"];

/**
 * bubblewrap sets PWD in the program's environment after everything else, so when `env` has no PWD of its own the
 * program is started through `env -i -- NAME=VALUE… program`: its environment is then exactly `env`.
 */
function exactEnvironment(env: Readonly<Record<string, string>>, command: string): string[] {
  if (Object.hasOwn(env, "PWD")) return [];
  const envProgram = ENV_LOCATIONS.find((candidate) => existsSync(candidate));
  if (envProgram === undefined) return [];
  if (command.includes("=")) {
    throw new Error(`[skillport] [sandbox] command "${command}" contains "=", which env(1) would read as a variable`);
  }
  return [envProgram, "-i", "--", ...Object.entries(env).map(([name, value]) => `${name}=${value}`)];
}

/**
 * Mounts each existing system path read-only. A link whose target is itself mounted (`/bin` → `usr/bin` on a
 * merged-/usr system) is recreated as the same link, so paths inside resolve as they do outside.
 */
function systemMounts(paths: readonly string[]): string[] {
  const folders = paths.filter((p) => {
    try {
      return lstatSync(p).isDirectory();
    } catch {
      return false;
    }
  });
  const out: string[] = [];
  for (const p of paths) {
    let isLink: boolean;
    try {
      isLink = lstatSync(p).isSymbolicLink();
    } catch {
      continue; // not on this machine
    }
    if (isLink) {
      let real: string;
      try {
        real = realpathSync(p);
      } catch {
        continue; // a dangling link
      }
      if (folders.some((f) => real === f || real.startsWith(`${f}/`))) {
        out.push("--symlink", real, p);
        continue;
      }
      out.push("--ro-bind", real, p);
      continue;
    }
    out.push("--ro-bind", p, p);
  }
  return out;
}
