import { readFile } from "node:fs/promises";
import path from "node:path";
import type { SecretSource } from "./manifest.js";

/** A secret as the host found it, and where it was looked for (for messages; never the value). */
export interface SecretReading {
  /** The secret, trimmed; undefined when it is missing. */
  value: string | undefined;
  /** e.g. `the environment variable GITHUB_TOKEN` or `the file /run/secrets/token`. */
  where: string;
  /**
   * Why `value` is undefined: the variable is not set (or empty), the file is empty, or the file cannot be read.
   * Absent when there is a value.
   */
  missing?: "unset" | "empty" | "unreadable";
  /** With `missing: "unreadable"`: the error's code (`ENOENT`, `EACCES`, …). */
  code?: string;
}

/**
 * Reads a secret from an environment variable or a file (relative to the manifest's folder), trimmed; empty means
 * missing. The one way the host reads a manifest's `{ "env" }` / `{ "file" }` sources: credentials, the
 * confirmation secret, HTTP tokens. Only the host reads secrets; a skill gets the value in its context and never
 * touches process.env.
 *
 * @param env where `{ "env": … }` sources are looked up, own entries only. @default process.env
 * @example
 * const { value, where } = await readSecret({ env: "GITHUB_TOKEN" }, manifest.dir);
 * if (value === undefined) throw new Error(`set ${where}`);
 */
export async function readSecret(
  source: SecretSource,
  manifestDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<SecretReading> {
  if ("env" in source) {
    const where = `the environment variable ${source.env}`;
    // Own entries only: `toString` is a name any object, process.env included, answers to.
    const value = Object.hasOwn(env, source.env) ? env[source.env]?.trim() : undefined;
    return value === undefined || value === "" ? { value: undefined, where, missing: "unset" } : { value, where };
  }
  const file = path.resolve(manifestDir, source.file);
  const where = `the file ${file}`;
  let value: string;
  try {
    value = (await readFile(file, "utf8")).trim();
  } catch (error) {
    return { value: undefined, where, missing: "unreadable", code: (error as NodeJS.ErrnoException).code ?? "error" };
  }
  return value === "" ? { value: undefined, where, missing: "empty" } : { value, where };
}
