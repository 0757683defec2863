import { readFile } from "node:fs/promises";
import path from "node:path";
import type { SecretSource } from "../manifest/manifest.js";

/** A secret as the host found it, and where it was looked for (for messages; never the value). */
export interface SecretReading {
  value: string | undefined;
  /** e.g. `the environment variable GITHUB_TOKEN` or `the file /run/secrets/token`. */
  where: string;
}

/**
 * Reads a secret from the environment or a file (trimmed). Only the host reads secrets, at start-up; a skill
 * gets the value in its context and never touches process.env. Empty means missing.
 */
export async function readSecret(source: SecretSource, manifestDir: string): Promise<SecretReading> {
  if ("env" in source) {
    // Own entries only: `toString` is a name any object, process.env included, answers to.
    const value = Object.hasOwn(process.env, source.env) ? process.env[source.env]?.trim() : undefined;
    return { value: value === "" ? undefined : value, where: `the environment variable ${source.env}` };
  }
  const file = path.resolve(manifestDir, source.file);
  try {
    const value = (await readFile(file, "utf8")).trim();
    return { value: value === "" ? undefined : value, where: `the file ${file}` };
  } catch {
    return { value: undefined, where: `the file ${file}` };
  }
}
