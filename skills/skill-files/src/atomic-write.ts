import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { copyFile, link, lstat, open, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { errnoOf } from "./roots.js";

/** Options for {@link writeAtomic}. */
export interface WriteAtomicOptions {
  /** Replace an existing file; when false an existing target answers EEXIST and is left untouched. */
  overwrite: boolean;
  /** Start from a copy of the existing target and add `data` at its end (append). */
  appendTo?: boolean;
  /** The new file's permission bits, e.g. the old file's when replacing it. @default 0o666 minus the umask */
  mode?: number | undefined;
  signal: AbortSignal;
  /** Called after each chunk with the bytes written so far. */
  onChunk?: (written: number, total: number) => void;
}

/** Bytes written between two checks of the signal. */
export const CHUNK_BYTES = 1024 * 1024;

/**
 * Writes `data` to `target` so that a reader, or a crash at any point, sees either the old file (or none) or the
 * whole new one, never a part: the bytes go to a temporary file in the same folder, are flushed to disk, and the
 * temporary file then takes the target's name in one step (rename; link when overwriting is not allowed, so a file
 * created meanwhile is never replaced). The temporary file is removed on every failure.
 */
export async function writeAtomic(target: string, data: Uint8Array, options: WriteAtomicOptions): Promise<void> {
  const folder = path.dirname(target);
  const temp = path.join(folder, tempName(path.basename(target)));
  let handle: FileHandle | undefined;
  let placed = false;
  try {
    if (options.appendTo === true) {
      // COPYFILE_EXCL: never write through something that appeared under the temporary name.
      await copyFile(target, temp, constants.COPYFILE_EXCL);
      handle = await open(temp, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
    } else {
      handle = await open(
        temp,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        options.mode ?? 0o666,
      );
    }
    if (options.mode !== undefined) await handle.chmod(options.mode);
    let written = 0;
    do {
      options.signal.throwIfAborted();
      const end = Math.min(data.length, written + CHUNK_BYTES);
      while (written < end) written += (await handle.write(data, written, end - written)).bytesWritten;
      options.onChunk?.(written, data.length);
    } while (written < data.length);
    await handle.sync();
    await handle.close();
    handle = undefined;
    options.signal.throwIfAborted();
    if (options.overwrite) {
      await rename(temp, target);
      placed = true;
    } else {
      await placeWithoutReplacing(temp, target);
    }
    await syncFolder(folder);
  } finally {
    await handle?.close().catch(() => undefined);
    if (!placed) await unlink(temp).catch(() => undefined);
  }
}

// --- internal ---

function tempName(base: string): string {
  // Short enough that a long target name still leaves room within the 255-byte limit for a name.
  return `.${base.slice(0, 100)}.${randomBytes(6).toString("hex")}.skillport-tmp`;
}

/**
 * link() fails with EEXIST when the target exists, atomically; the temporary name is then removed by the caller.
 * File systems without hard links fall back to a check then a rename, which a concurrent writer could race.
 */
async function placeWithoutReplacing(temp: string, target: string): Promise<void> {
  try {
    await link(temp, target);
    return;
  } catch (error) {
    const code = errnoOf(error);
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EXDEV") throw error;
  }
  const exists = await lstat(target).then(
    () => true,
    () => false,
  );
  if (exists) throw Object.assign(new Error(`EEXIST: ${target} exists`), { code: "EEXIST" });
  await rename(temp, target);
}

/** Makes the rename itself durable; some systems cannot open a folder for syncing, which is fine to skip. */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
