import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { currentContext, privateCacheFolder } from "./compile-cache.js";
import { quickServeOptions } from "./serve-args.js";

/**
 * A start image: the `initialize` and `tools/list` answers of a `serve --stdio` that started from a current lock and
 * checked everything, kept in the user's private cache folder (`<user cache>/skillport/start-images`, owner-only, as
 * the compile cache is). The next start of the same manifest whose key still matches (this build of the command, the
 * manifest's bytes, the lock's file stamp, each skill package's package.json as it was) answers those two requests
 * from the image while it loads, and builds the host after; the host's own answers to the same requests are then
 * compared with what was sent, before any other message is read. A difference removes the image and stops the server
 * (exit 1).
 * `SKILLPORT_START_IMAGE=off` turns it off.
 */
export interface StartImage {
  readonly header: ImageHeader;
  /** The tools/list answer's JSON, without its id (which goes at `header.list.idAt`). */
  readonly body: Buffer;
}

/** The first line of an image file. */
interface ImageHeader {
  format: typeof FORMAT;
  /** The manifest's lock (the host's lockPathOf), which the key covers. */
  lock: string;
  key: string;
  /** Each skill package's package.json as the image's start found it. */
  packages: PackageStamp[];
  /** The initialize answer, for a client asking for `protocolVersion`: `before` + the request's id + `after`. */
  initialize: { protocolVersion: string; before: string; after: string };
  /** Where the id goes in the tools/list answer's bytes, and how many bytes it has. */
  list: { idAt: number; bytes: number };
}

interface PackageStamp {
  file: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

/** What a start knows of its image before the host is built: where it lives, and the image when it is current. */
export interface ImageSlot {
  readonly file: string;
  /** The manifest's absolute path. */
  readonly manifest: string;
  readonly image: StartImage | undefined;
}

/**
 * The manifest `skillport serve` reads when none is named: the host's DEFAULT_MANIFEST, written out here so that this
 * module, loaded before the command's code, imports nothing of the host's (a test keeps the two the same).
 */
export const DEFAULT_MANIFEST = "skills.manifest.json";

/**
 * The image slot for `skillport serve` with these arguments (after `serve`), or undefined when the command line does
 * not serve stdio from a lock, `SKILLPORT_START_IMAGE=off`, or there is no private cache folder. Never throws.
 */
export function imageSlotOf(args: readonly string[]): ImageSlot | undefined {
  try {
    if (process.env.SKILLPORT_START_IMAGE === "off") return undefined;
    const options = quickServeOptions(args, DEFAULT_MANIFEST);
    if (options?.stdio !== true || options.http === true || options.lock === false) return undefined;
    const folder = privateCacheFolder(currentContext(), "start-images");
    if (folder === undefined) return undefined;
    const manifest = path.resolve(options.manifest);
    const file = path.join(folder, `${sha256(manifest).slice(0, 32)}.image`);
    return { file, manifest, image: readImage(file, manifest) };
  } catch {
    return undefined;
  }
}

/** The request's answer from the image's template, with its id. */
export function initializeAnswer(image: StartImage, id: string | number): string {
  const { before, after } = image.header.initialize;
  return `${before}${JSON.stringify(id)}${after}\n`;
}

/**
 * The tools/list answer from the image, with the request's id, as the pieces to write in order: the image's own
 * bytes around the id, not a copy of them (at 200 skills a 2.6 MB copy took about 2 ms of a start).
 */
export function listAnswer(image: StartImage, id: string | number): readonly Buffer[] {
  const { idAt } = image.header.list;
  const { body } = image;
  return [body.subarray(0, idAt), Buffer.from(JSON.stringify(id)), body.subarray(idAt), NEWLINE];
}

/**
 * The key of a start of this slot's manifest with this lock, as things stand now ({@link writeImage} takes the one
 * of the start's beginning); undefined when the manifest or the lock cannot be read.
 */
export function imageKeyOf(slot: ImageSlot, lock: string): string | undefined {
  return keyOf(slot.manifest, lock);
}

/**
 * Writes the image of a start from the answers it sent (each one line of JSON) and the package folders of its skills;
 * written whole or not at all (a temporary file renamed into place), owner-only. Answers false when an answer is not
 * one the image can hold, or when the key is no longer `startKey`, the key before the host read the manifest and
 * the lock: answers made from a lock written again meanwhile are not kept under the new lock's key.
 */
export function writeImage(
  slot: ImageSlot,
  lock: string,
  answers: { initialize: string; list: string },
  packageDirs: readonly string[],
  startKey: string | undefined,
): boolean {
  const key = keyOf(slot.manifest, lock);
  if (key === undefined || key !== startKey) return false;
  const initialize = templateOf(answers.initialize);
  const list = templateOf(answers.list);
  if (initialize === undefined || list === undefined) return false;
  const protocolVersion = (JSON.parse(answers.initialize) as { result?: { protocolVersion?: unknown } }).result
    ?.protocolVersion;
  if (typeof protocolVersion !== "string") return false;
  const listBefore = Buffer.from(list.before);
  const body = Buffer.concat([listBefore, Buffer.from(list.after)]);
  const header: ImageHeader = {
    format: FORMAT,
    lock,
    key,
    packages: packageDirs.map((dir) => stampOf(path.join(dir, "package.json"))),
    initialize: { protocolVersion, ...initialize },
    list: { idAt: listBefore.length, bytes: body.length },
  };
  removeStaleTemporaries(slot.file);
  const temporary = `${slot.file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]), { mode: 0o600 });
    renameSync(temporary, slot.file);
  } finally {
    rmSync(temporary, { force: true });
  }
  return true;
}

/** Removes the slot's image (a start that found it did not match). */
export function removeImage(slot: ImageSlot): void {
  rmSync(slot.file, { force: true });
}

// --- internal ---

const FORMAT = 1;
const NEWLINE = Buffer.from("\n");

/**
 * The key of a start: this build of the command (its package.json, with its version, and the built file that answers
 * from the image, `early-stdio.js`, whichever bundle asks: an installed package keeps one time for every file, a
 * build here writes them anew), Node's version, the manifest's path and bytes, the lock's path and its file's stamp;
 * undefined when a file cannot be read.
 *
 * The lock is known by its stamp (size, inode, modification and change times), not its bytes: at 200 skills it is
 * 3.5 MB, whose reading and hashing were half of what a start from the image grew by from 1 skill to 200. Every
 * write to the file moves its change time, which no user can set back (`touch` sets the modification time only), so
 * an edited lock is never answered from the image; a lock written again with the same bytes makes one more first
 * start.
 */
function keyOf(manifest: string, lockFile: string): string | undefined {
  let lock: string;
  let manifestBytes: Buffer;
  let build: { size: number; mtimeMs: number; ino: number };
  try {
    manifestBytes = readFileSync(manifest);
    const { size, ino, mtimeMs, ctimeMs } = statSync(lockFile);
    lock = `${size}:${ino}:${mtimeMs}:${ctimeMs}`;
    build = statSync(new URL("./early-stdio.js", import.meta.url));
  } catch {
    return undefined;
  }
  const hash = createHash("sha256");
  for (const part of [
    `${FORMAT}`,
    process.version,
    `${build.size}:${build.mtimeMs}:${build.ino}`,
    readFileSync(new URL("../package.json", import.meta.url)),
    manifest,
    manifestBytes,
    lockFile,
    lock,
  ]) {
    hash.update(`${Buffer.byteLength(part)}:`);
    hash.update(part);
  }
  return hash.digest("hex");
}

/**
 * Removes the temporary files of this image that a start left when it was killed while writing it (a client that
 * kills its server just after tools/list): those whose process has ended. Never throws.
 */
function removeStaleTemporaries(file: string): void {
  const prefix = `${path.basename(file)}.`;
  try {
    for (const name of readdirSync(path.dirname(file))) {
      if (!name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
      const pid = Number(name.slice(prefix.length, -".tmp".length));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isRunning(pid)) {
        rmSync(path.join(path.dirname(file), name), { force: true });
      }
    }
  } catch {
    // Best effort: an image is written all the same.
  }
}

/** Whether a process of this id exists (one of another user's counts: it cannot be signalled, but it runs). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readImage(file: string, manifest: string): StartImage | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined; // none yet
  }
  const end = bytes.indexOf(10);
  if (end === -1) return undefined;
  const header = JSON.parse(bytes.subarray(0, end).toString("utf8")) as ImageHeader;
  const body = bytes.subarray(end + 1);
  if (header.format !== FORMAT || typeof header.lock !== "string" || header.list?.bytes !== body.length)
    return undefined;
  if (header.key !== keyOf(manifest, header.lock)) return undefined;
  if (!(header.list.idAt >= 0 && header.list.idAt <= body.length)) return undefined;
  for (const stamp of header.packages) {
    const now = stampOf(stamp.file);
    if (now.size !== stamp.size || now.mtimeMs !== stamp.mtimeMs || now.ino !== stamp.ino) return undefined;
  }
  return { header, body };
}

function stampOf(file: string): PackageStamp {
  const { size, mtimeMs, ino } = statSync(file);
  return { file, size, mtimeMs, ino };
}

/**
 * An answer's text split around its id, so the same answer can be written for another id: undefined unless it is a
 * JSON-RPC answer whose JSON is exactly the text given (so that the copy is byte for byte what the server writes).
 */
function templateOf(line: string): { before: string; after: string } | undefined {
  const text = line.endsWith("\n") ? line.slice(0, -1) : line;
  const message = JSON.parse(text) as Record<string, unknown>;
  if (JSON.stringify(message) !== text || !("id" in message) || !("result" in message)) return undefined;
  const marker = `skillport-start-image-${randomUUID()}`;
  const parts = JSON.stringify({ ...message, id: marker }).split(JSON.stringify(marker));
  if (parts.length !== 2) return undefined;
  const [before, after] = parts as [string, string];
  return { before, after };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
