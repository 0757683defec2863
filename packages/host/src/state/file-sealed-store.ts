import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { HostError, messageOf } from "../errors/host-error.js";
import type { SealedStore } from "./sealed-store.js";
import { createMemorySealedStore } from "./sealed-store.js";

/**
 * Sealed records in a file, for one machine (one host process writes it): read once when opened, written whole after
 * each change to a file beside it and renamed over it, so a crash leaves the old or the new file, never half of one.
 * The file is made readable by its owner only (0600). Records written with a time to live (connect flows) stay in
 * memory only: they outlive no restart anyway.
 *
 * @example
 * const store = await openFileSealedStore("/srv/skills/.credentials");
 */
export async function openFileSealedStore(file: string): Promise<SealedStore> {
  const kept = new Map<string, string>();
  let text: string | undefined;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new HostError(
        "MANIFEST_INVALID",
        `[skillport] credentials.store: cannot read ${file} (${messageOf(error)})`,
      );
    }
  }
  if (text !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new HostError(
        "MANIFEST_INVALID",
        `[skillport] credentials.store: ${file} is not a credentials file written by Skillport; move it away or name another file`,
      );
    }
    for (const [key, value] of Object.entries(parsed)) if (typeof value === "string") kept.set(key, value);
  }
  const passing = createMemorySealedStore();
  let writing: Promise<void> = Promise.resolve();
  const save = () => {
    const snapshot = JSON.stringify(Object.fromEntries(kept), null, 2);
    writing = writing.then(async () => {
      await mkdir(path.dirname(file), { recursive: true });
      const next = `${file}.${process.pid}.tmp`;
      await writeFile(next, snapshot, { mode: 0o600 });
      await chmod(next, 0o600);
      await rename(next, file);
    });
    return writing;
  };
  return {
    kind: "file",
    async get(key) {
      return kept.get(key) ?? (await passing.get(key));
    },
    async set(key, value, ttlMs) {
      if (ttlMs !== undefined) return passing.set(key, value, ttlMs);
      kept.set(key, value);
      await save();
    },
    async take(key) {
      const value = kept.get(key);
      if (value === undefined) return passing.take(key);
      kept.delete(key);
      await save();
      return value;
    },
    async delete(key) {
      if (!kept.delete(key)) return passing.delete(key);
      await save();
      return true;
    },
    async keys(prefix) {
      return [...[...kept.keys()].filter((key) => key.startsWith(prefix)), ...(await passing.keys(prefix))];
    },
    async close() {
      await writing;
    },
  };
}
