import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { SkillError } from "@skillport/core";
import type { ShellConfig } from "./config.js";

/**
 * Resolves a call's working folder: relative paths start at the first root, absolute ones must lie inside a root,
 * and the real path (links resolved) must stay inside one. NUL bytes, `..`, `~`, drive letters and UNC paths are
 * refused with PERMISSION_DENIED naming the roots.
 */
export async function resolveCwd(config: ShellConfig, requested: string, field: string): Promise<string> {
  const roots = await loadRoots(config);
  const deny = (why: string) =>
    new SkillError({
      code: "PERMISSION_DENIED",
      field,
      message: `${why}; give a folder relative to the first root or an absolute folder inside one of the roots: ${roots.map((r) => r.real).join(", ")}`,
    });
  if (requested.includes("\0")) throw deny("cwd contains a NUL byte");
  if (/^[A-Za-z]:/.test(requested)) throw deny(`cwd ${JSON.stringify(requested)} starts with a drive letter`);
  if (/^[\\/]{2}/.test(requested)) throw deny(`cwd ${JSON.stringify(requested)} is a network (UNC) path`);
  const segments = requested.split(/[\\/]+/);
  if (segments.includes("..")) throw deny(`cwd ${JSON.stringify(requested)} leaves its folder with ".."`);
  if (segments[0]?.startsWith("~")) throw deny(`cwd ${JSON.stringify(requested)} names a home folder`);
  const names = segments.filter((s) => s !== "" && s !== ".");
  const absolute = /^[\\/]/.test(requested);
  const candidate = absolute ? path.join(path.sep, ...names) : path.join((roots[0] as Root).real, ...names);
  if (absolute && !roots.some((r) => isInside(candidate, r.real) || isInside(candidate, r.configured))) {
    throw deny(`cwd ${JSON.stringify(requested)} is outside the roots`);
  }
  let real: string;
  try {
    real = await realpath(candidate);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new SkillError({
        code: "NOT_FOUND",
        field,
        message: `the folder ${JSON.stringify(requested)} does not exist`,
      });
    }
    if (code === "ELOOP") throw deny(`cwd ${JSON.stringify(requested)} goes through a loop of symbolic links`);
    if (code === "ENOTDIR") {
      throw new SkillError({
        code: "ARGUMENT_INVALID",
        field,
        message: `cwd ${JSON.stringify(requested)} is not a folder`,
      });
    }
    throw error;
  }
  if (!roots.some((r) => isInside(real, r.real))) {
    throw deny(`cwd ${JSON.stringify(requested)} leads outside the roots through a symbolic link`);
  }
  if (!(await stat(real)).isDirectory()) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field,
      message: `cwd ${JSON.stringify(requested)} is a file, not a folder`,
    });
  }
  return real;
}

// --- internal ---

interface Root {
  configured: string;
  real: string;
}

async function loadRoots(config: ShellConfig): Promise<Root[]> {
  return Promise.all(
    config.roots.map(async (root) => {
      const configured = path.resolve(root);
      try {
        return { configured, real: await realpath(configured) };
      } catch {
        throw new SkillError({
          code: "UNAVAILABLE",
          message: `the root folder "${root}" does not exist; fix "roots" in this skill's manifest config`,
        });
      }
    }),
  );
}

function isInside(real: string, folder: string): boolean {
  const rel = path.relative(folder, real);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
