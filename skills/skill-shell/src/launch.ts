import { stat } from "node:fs/promises";
import path from "node:path";
import { SkillError } from "@skillport/core";
import { SYSTEM_PATHS, sandboxAvailable, sandboxCommand } from "@skillport/core/sandbox";
import type { ShellConfig } from "./config.js";
import type { Program } from "./program-path.js";
import type { Launch } from "./supervise.js";

/** Builds the command lines of one call: under bubblewrap, or plain. */
export interface Launcher {
  sandboxed: boolean;
  /** Why the sandbox is not used, when it is not. */
  reason: string | undefined;
  launch(program: Program, argv0: string, args: readonly string[], env: Readonly<Record<string, string>>): Launch;
}

/**
 * Decides how this call's programs run. With `sandbox: "auto"` (the default) they run under bubblewrap when it
 * works here; `"required"` refuses the call (UNAVAILABLE) when it does not; `"off"` never uses it.
 *
 * The sandbox shows: the roots (read-write), the system folders (read-only), the folders on the instance's PATH
 * and the program's own folder (read-only), a private /tmp; no network unless `network` is set; its own process
 * table. `/` itself is never mounted, even from PATH.
 */
export async function launcherFor(config: ShellConfig, roots: readonly string[], cwd: string): Promise<Launcher> {
  const plain = (reason: string): Launcher => ({
    sandboxed: false,
    reason,
    launch: (program, argv0, args, env) => ({
      command: program.path,
      args: [...args],
      env: { ...env },
      argv0,
      sandboxed: false,
    }),
  });
  if (config.sandbox === "off") return plain('the instance sets sandbox: "off"');
  const status = await sandboxAvailable();
  if (!status.available) {
    if (config.sandbox === "required") {
      throw new SkillError({
        code: "UNAVAILABLE",
        message: `this instance requires the sandbox (sandbox: "required"), but ${status.reason}; install bubblewrap, or set sandbox to "auto" in the manifest config`,
      });
    }
    return plain(status.reason);
  }
  const searchPath = await existingFolders((config.env.PATH ?? "").split(":").filter((dir) => path.isAbsolute(dir)));
  return {
    sandboxed: true,
    reason: undefined,
    launch: (program, _argv0, args, env) => {
      const readOnly = [...searchPath, path.dirname(program.path), path.dirname(program.real)];
      const mounts = [
        ...roots.map((root) => ({ path: root, writable: true })),
        ...unique(readOnly)
          .filter((dir) => dir !== "/" && !covered(dir, roots))
          .map((dir) => ({ path: dir, writable: false })),
      ];
      const built = sandboxCommand({
        bwrap: status.bwrap,
        command: program.path,
        args,
        cwd,
        env,
        mounts,
        network: config.network,
      });
      return { ...built, sandboxed: true };
    },
  };
}

// --- internal ---

async function existingFolders(dirs: readonly string[]): Promise<string[]> {
  const found = await Promise.all(
    dirs.map(async (dir) => ((await stat(dir).catch(() => undefined))?.isDirectory() ? dir : undefined)),
  );
  return found.filter((dir): dir is string => dir !== undefined);
}

function unique(dirs: readonly string[]): string[] {
  return [...new Set(dirs.map((d) => path.normalize(d)))];
}

/** Already visible: inside a root, or inside a system folder the sandbox mounts anyway. */
function covered(dir: string, roots: readonly string[]): boolean {
  return [...roots, ...SYSTEM_PATHS].some((folder) => dir === folder || dir.startsWith(`${folder}/`));
}
