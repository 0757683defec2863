import { randomBytes } from "node:crypto";
import type { Dirent, Stats } from "node:fs";
import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { link, lstat, mkdir, open, readdir, realpath, rename, rmdir, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { SkillError } from "../skill-error.js";
import { errnoOf } from "./fs-error.js";
import type { Jail, Strategy, Verified } from "./jail.js";
import { assertNotProtected, changed, mapped, verifyDescriptor } from "./jail.js";

/** Missing on systems without them (Windows); 0 leaves the flag out. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

/** A file opened for reading inside the roots: a regular file, its descriptor checked. Close `handle` when done. */
export interface ConfinedFile {
  /** Read from this; the caller closes it. */
  handle: FileHandle;
  /** The file's stats, taken from the open descriptor. */
  stats: Stats;
  /** Its real path, as the descriptor says. */
  path: string;
  /** The real root that holds it. */
  root: string;
}

/** Options for {@link ConfinedDirectory.writeAtomic}. */
export interface WriteAtomicOptions {
  /** Replace an existing file; when false an existing one answers CONFLICT and is left untouched. */
  overwrite: boolean;
  /** Start from a copy of the existing file and add the data at its end. @default false */
  append?: boolean;
  /** The new file's permission bits, e.g. the old file's when replacing it. @default 0o666 minus the umask */
  mode?: number | undefined;
  /** Checked between chunks; an abort leaves the old file (or none) in place. */
  signal?: AbortSignal;
  /** Called after each chunk with the bytes written so far and the total. */
  onChunk?: (written: number, total: number) => void;
}

/** Options for {@link ConfinedDirectory.remove}. */
export interface RemoveOptions {
  /** Remove a folder with everything in it. @default false */
  recursive?: boolean;
  /** Checked between entries of a recursive removal. */
  signal?: AbortSignal;
}

/** Options for {@link ConfinedDirectory.rename}. */
export interface RenameOptions {
  /** Replace a file at the destination; without it an existing destination answers CONFLICT. @default false */
  overwrite?: boolean;
}

/**
 * An open folder inside the roots whose descriptor was checked. Every operation names an entry *in this folder*
 * (one name, no separators) and acts through the descriptor (`/proc/self/fd/<fd>/<name>` on Linux, which the kernel
 * resolves from the open folder as `openat` does; elsewhere the folder's path, checked against its device and inode
 * before and after), so replacing a folder on the way with a link cannot redirect it. Writes refuse protected
 * names. Close it when done.
 *
 * @example
 * const dir = await jail.openParent(target, { create: true });
 * try {
 *   await dir.writeAtomic(path.basename(target.real), bytes, { overwrite: false });
 * } finally {
 *   await dir.close();
 * }
 */
export interface ConfinedDirectory {
  /** The folder's real path, as its descriptor says. */
  readonly path: string;
  /** The real root that holds it. */
  readonly root: string;
  /** The entry's own stats (a link is not followed), or undefined when there is none. */
  lstat(name: string): Promise<Stats | undefined>;
  /** The folder's entries, as `readdir(…, { withFileTypes: true })` gives them. Use their names only. */
  list(): Promise<Dirent[]>;
  /** Opens a regular file for reading: never through a link, never blocking (a FIFO or device is refused). */
  openFile(name: string): Promise<ConfinedFile>;
  /** Opens a sub-folder, never through a link. */
  openDirectory(name: string): Promise<ConfinedDirectory>;
  /** Creates a sub-folder; an existing folder is fine. */
  mkdir(name: string): Promise<void>;
  /**
   * Writes a file so that a reader, or a crash at any point, sees the old file (or none) or the whole new one:
   * the bytes go to a temporary file in this folder, are flushed, and take the name in one step (rename; link when
   * overwriting is not allowed, so a file created meanwhile is never replaced).
   */
  writeAtomic(name: string, data: Uint8Array, options: WriteAtomicOptions): Promise<void>;
  /** Removes a file, a link (never what it points to), an empty folder, or with `recursive` a whole tree. */
  remove(name: string, options?: RemoveOptions): Promise<void>;
  /** Moves an entry of this folder to `toName` in `to` (which may be this folder), in one step. */
  rename(name: string, to: ConfinedDirectory, toName: string, options?: RenameOptions): Promise<void>;
  /** Flushes the folder's entries to disk (best effort). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** Opens `dirPath` as a folder and checks its descriptor; `label` is the request it serves, for messages. */
export async function openVerifiedDirectory(jail: Jail, dirPath: string, label: Label): Promise<VerifiedDirectory> {
  let handle: FileHandle;
  try {
    handle = await open(dirPath, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    const code = errnoOf(error);
    // O_NOFOLLOW with O_DIRECTORY answers ENOTDIR (or ELOOP) for a link: say it is a link, which is never followed.
    if ((code === "ENOTDIR" || code === "ELOOP") && (await isLink(dirPath))) {
      throw jail.deny(
        `path "${label.shown}" meets a symbolic link where a folder was expected; links are not followed here`,
        label.field,
      );
    }
    throw mapped(error, label);
  }
  try {
    const verified = await verifyDescriptor(jail, handle, dirPath, label);
    return new VerifiedDirectory(jail, handle, verified, label);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** The request an operation serves: shown in messages, with the argument it came from. */
export interface Label {
  shown: string;
  field: string;
  requested: string;
}

// --- internal ---

/** Bytes copied or written between two checks of the signal. */
const CHUNK_BYTES = 1024 * 1024;

export class VerifiedDirectory implements ConfinedDirectory {
  readonly path: string;
  readonly root: string;
  readonly #jail: Jail;
  readonly #handle: FileHandle;
  readonly #strategy: Strategy;
  readonly #dev: bigint;
  readonly #ino: bigint;
  readonly #label: Label;

  constructor(jail: Jail, handle: FileHandle, verified: Verified, label: Label) {
    this.#jail = jail;
    this.#handle = handle;
    this.path = verified.real;
    this.root = verified.root;
    this.#strategy = verified.strategy;
    this.#dev = verified.dev;
    this.#ino = verified.ino;
    this.#label = label;
  }

  /** The path to hand the system for an entry of this folder. */
  at(name: string): string {
    checkName(name);
    return this.#strategy === "proc" ? `/proc/self/fd/${this.#handle.fd}/${name}` : path.join(this.path, name);
  }

  /** Without /proc: the folder's path must still lead to this very folder. */
  async recheck(): Promise<void> {
    if (this.#strategy === "proc") return;
    try {
      const real = await realpath(this.path);
      const info = await stat(real, { bigint: true });
      if (real === this.path && info.dev === this.#dev && info.ino === this.#ino) return;
    } catch {
      // fall through: gone or unreadable counts as changed
    }
    throw changed(this.#jail, this.#label);
  }

  async lstat(name: string): Promise<Stats | undefined> {
    await this.recheck();
    try {
      return await lstat(this.at(name));
    } catch (error) {
      if (errnoOf(error) === "ENOENT") return undefined;
      throw mapped(error, this.#label);
    }
  }

  async list(): Promise<Dirent[]> {
    await this.recheck();
    let entries: Dirent[];
    try {
      const own = this.#strategy === "proc" ? `/proc/self/fd/${this.#handle.fd}` : this.path;
      entries = await readdir(own, { withFileTypes: true });
    } catch (error) {
      throw mapped(error, this.#label);
    }
    await this.recheck();
    return entries;
  }

  async openFile(name: string): Promise<ConfinedFile> {
    const before = await this.#existing(name);
    this.#assertReadable(before);
    let handle: FileHandle;
    try {
      // O_NONBLOCK: opening a FIFO never waits for a writer; O_NOFOLLOW: a link put here meanwhile is refused.
      handle = await open(this.at(name), constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      throw mapped(error, this.#label);
    }
    try {
      const stats = await handle.stat();
      this.#assertReadable(stats);
      const verified = await verifyDescriptor(this.#jail, handle, path.join(this.path, name), this.#label);
      return { handle, stats, path: verified.real, root: verified.root };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  async openDirectory(name: string): Promise<VerifiedDirectory> {
    await this.recheck();
    return openVerifiedDirectory(this.#jail, this.at(name), this.#label);
  }

  async mkdir(name: string): Promise<void> {
    this.#assertWritable(name);
    await this.recheck();
    try {
      await mkdir(this.at(name));
    } catch (error) {
      if (errnoOf(error) !== "EEXIST") throw mapped(error, this.#label);
    }
    await this.recheck();
  }

  async writeAtomic(name: string, data: Uint8Array, options: WriteAtomicOptions): Promise<void> {
    this.#assertWritable(name);
    const temp = tempName(name);
    let out: FileHandle | undefined;
    let placed = false;
    try {
      await this.recheck();
      out = await open(
        this.at(temp),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
        options.mode ?? 0o666,
      );
      if (options.mode !== undefined) await out.chmod(options.mode);
      if (options.append === true) await this.#copyInto(name, out, options.signal);
      let written = 0;
      do {
        options.signal?.throwIfAborted();
        const end = Math.min(data.length, written + CHUNK_BYTES);
        while (written < end) written += (await out.write(data, written, end - written)).bytesWritten;
        options.onChunk?.(written, data.length);
      } while (written < data.length);
      await out.sync();
      await out.close();
      out = undefined;
      options.signal?.throwIfAborted();
      await this.recheck();
      if (options.overwrite) {
        await rename(this.at(temp), this.at(name));
        placed = true;
      } else {
        await this.#placeWithoutReplacing(temp, name);
      }
      await this.sync();
    } catch (error) {
      throw mapped(error, this.#label);
    } finally {
      await out?.close().catch(() => undefined);
      if (!placed) await unlink(this.at(temp)).catch(() => undefined);
    }
  }

  async remove(name: string, options: RemoveOptions = {}): Promise<void> {
    this.#assertWritable(name);
    const stats = await this.#existing(name);
    try {
      if (!stats.isDirectory()) {
        await this.recheck();
        await unlink(this.at(name));
        return;
      }
      if (options.recursive === true) {
        const child = await this.openDirectory(name);
        try {
          await child.#refuseProtectedBelow(options.signal);
          await child.#empty(options.signal);
        } finally {
          await child.close();
        }
      }
      await this.recheck();
      await rmdir(this.at(name));
    } catch (error) {
      throw mapped(error, this.#label);
    }
  }

  async rename(name: string, to: ConfinedDirectory, toName: string, options: RenameOptions = {}): Promise<void> {
    if (!(to instanceof VerifiedDirectory)) throw new TypeError("rename: `to` must come from the same confinement");
    this.#assertWritable(name);
    to.#assertWritable(toName);
    const source = await this.#existing(name);
    try {
      await this.recheck();
      await to.recheck();
      if (options.overwrite === true) {
        await rename(this.at(name), to.at(toName));
      } else if (source.isDirectory()) {
        // No rename-without-replacing for folders in Node: check, then rename (rename never replaces a non-empty
        // folder, and an empty one only when it appears in between).
        if ((await to.lstat(toName)) !== undefined) throw existsError();
        await rename(this.at(name), to.at(toName));
      } else {
        await this.#linkThenUnlink(name, to, toName);
      }
      await this.recheck();
      await to.recheck();
      await this.sync();
      if (to !== this) await to.sync();
    } catch (error) {
      const code = errnoOf(error);
      if (code === "EEXIST") {
        throw new SkillError({
          code: "CONFLICT",
          field: to.#label.field,
          message: `"${to.#label.shown}" already exists`,
        });
      }
      // What the destination causes is said about the destination.
      if (code === "ENOTEMPTY" || code === "EISDIR" || code === "EXDEV") throw mapped(error, to.#label);
      throw mapped(error, this.#label);
    }
  }

  async sync(): Promise<void> {
    try {
      await this.#handle.sync();
    } catch {
      // some systems cannot sync a folder; the rename is still in place
    }
  }

  async close(): Promise<void> {
    await this.#handle.close().catch(() => undefined);
  }

  /** The entry's stats, or NOT_FOUND for the request this folder serves. */
  async #existing(name: string): Promise<Stats> {
    const stats = await this.lstat(name);
    if (stats === undefined) {
      throw new SkillError({
        code: "NOT_FOUND",
        field: this.#label.field,
        message: `"${this.#label.shown}" does not exist`,
      });
    }
    return stats;
  }

  #assertReadable(stats: Stats): void {
    if (stats.isFile()) return;
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: this.#label.field,
      message: stats.isDirectory()
        ? `"${this.#label.shown}" is a folder, not a file`
        : stats.isSymbolicLink()
          ? `"${this.#label.shown}" changed into a symbolic link while it was being opened; try again`
          : `"${this.#label.shown}" is not a regular file (a FIFO, socket or device); only regular files can be read`,
    });
  }

  #assertWritable(name: string): void {
    checkName(name);
    assertNotProtected(this.#jail, this.path, this.root, [name], this.#label);
  }

  /** Copies the existing file `name` into `out`, read through a checked descriptor. */
  async #copyInto(name: string, out: FileHandle, signal: AbortSignal | undefined): Promise<void> {
    const source = await this.openFile(name);
    try {
      const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(1, source.stats.size)));
      for (;;) {
        signal?.throwIfAborted();
        const { bytesRead } = await source.handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        let done = 0;
        while (done < bytesRead) done += (await out.write(buffer, done, bytesRead - done)).bytesWritten;
      }
    } finally {
      await source.handle.close();
    }
  }

  /**
   * link() fails with EEXIST when the target exists, atomically; the temporary name is then removed by the caller.
   * File systems without hard links fall back to a check then a rename, which a concurrent writer could race.
   */
  async #placeWithoutReplacing(temp: string, name: string): Promise<void> {
    try {
      await link(this.at(temp), this.at(name));
      return;
    } catch (error) {
      if (!linkUnsupported(errnoOf(error))) throw error;
    }
    if ((await this.lstat(name)) !== undefined) throw existsError();
    await rename(this.at(temp), this.at(name));
  }

  async #linkThenUnlink(name: string, to: VerifiedDirectory, toName: string): Promise<void> {
    try {
      await link(this.at(name), to.at(toName));
    } catch (error) {
      if (!linkUnsupported(errnoOf(error))) throw error;
      if ((await to.lstat(toName)) !== undefined) throw existsError();
      await rename(this.at(name), to.at(toName));
      return;
    }
    await unlink(this.at(name));
  }

  /** Refuses, before anything is deleted, a tree that holds a protected name. */
  async #refuseProtectedBelow(signal: AbortSignal | undefined): Promise<void> {
    for (const entry of await this.list()) {
      signal?.throwIfAborted();
      this.#assertWritable(entry.name);
      if (entry.isDirectory()) {
        const child = await this.openDirectory(entry.name);
        try {
          await child.#refuseProtectedBelow(signal);
        } finally {
          await child.close();
        }
      }
    }
  }

  /** Deletes everything in this folder, each sub-folder opened through its checked parent, never through a link. */
  async #empty(signal: AbortSignal | undefined): Promise<void> {
    for (const entry of await this.list()) {
      signal?.throwIfAborted();
      this.#assertWritable(entry.name);
      if (entry.isDirectory()) {
        const child = await this.openDirectory(entry.name);
        try {
          await child.#empty(signal);
        } finally {
          await child.close();
        }
        await this.recheck();
        await rmdir(this.at(entry.name));
      } else {
        await this.recheck();
        await unlink(this.at(entry.name));
      }
    }
  }
}

/** An entry name: one component, never "", ".", ".." or anything with a separator or NUL. */
function checkName(name: string): void {
  const separator = name.includes("/") || (path.sep === "\\" && name.includes("\\"));
  if (name === "" || name === "." || name === ".." || separator || name.includes("\0")) {
    throw new TypeError(`confine: "${name}" is not a single entry name`);
  }
}

async function isLink(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isSymbolicLink();
  } catch {
    return false;
  }
}

function linkUnsupported(code: string | undefined): boolean {
  return code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "EXDEV" || code === "EMLINK";
}

function existsError(): Error {
  return Object.assign(new Error("EEXIST: the destination exists"), { code: "EEXIST" });
}

/**
 * A hidden temporary name beside the target, short enough that a long target name still leaves room within the
 * 255-byte limit for a name.
 */
function tempName(base: string): string {
  let clipped = base;
  while (Buffer.byteLength(clipped, "utf8") > 180) clipped = [...clipped].slice(0, -1).join("");
  return `.${clipped}.${randomBytes(6).toString("hex")}.skillport-tmp`;
}
