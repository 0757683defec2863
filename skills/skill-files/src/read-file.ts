import type { SkillContext } from "@skillport/core";
import { defineTool, isSkillError, SkillError, withEvidence } from "@skillport/core";
import type { ConfinedFile, ConfinedPath, Confinement } from "@skillport/core/confine";
import { fsError, printablePath } from "@skillport/core/confine";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import { confinementFor } from "./confinement.js";
import { encodingField, pathField } from "./schema.js";

/** The largest offset a call may give: 1 PiB, beyond any file an agent reads in parts. */
const MAX_OFFSET = 2 ** 50;

export const ReadFileInput = z
  .object({
    path: pathField("The file to read", ["notes/todo.md", "docs/logo.png"]),
    encoding: encodingField("to return the content"),
    offset: z
      .number()
      .int()
      .min(0)
      .max(MAX_OFFSET)
      .default(0)
      .describe(
        "The byte to start at (at most 2^50, 1 PiB); pass the previous answer's next_offset to read a large file in parts",
      )
      .meta({ examples: [0, 1048576] }),
    max_bytes: z
      .number()
      .int()
      .min(1)
      .max(64 * 1024 * 1024)
      .optional()
      .describe(
        "The most bytes to return; defaults to, and is capped by, the instance's maxReadBytes (1 MiB unless configured)",
      )
      .meta({ examples: [4096] }),
  })
  .strict();

export const ReadFileOutput = z.object({
  path: z.string().describe("The real, absolute path read"),
  encoding: z.enum(["utf-8", "base64"]),
  content: z.string(),
  offset: z.number().int().describe("The byte the content starts at"),
  bytes: z.number().int().describe("How many bytes the content holds"),
  size: z.number().int().describe("The whole file's size in bytes"),
  truncated: z.boolean().describe("True when the file goes on past this content"),
  next_offset: z.number().int().nullable().describe("Where the next part starts; null at the end of the file"),
});

export type ReadFileParams = z.output<typeof ReadFileInput>;
export type ReadFileData = z.output<typeof ReadFileOutput>;

/** Bytes on each side of a slice that are checked for secrets too, so a secret cut by the slice is still found. */
const SECRET_WINDOW_BYTES = 4096;

/**
 * Reads a file inside the roots, or a part of it, as UTF-8 text or base64. Content that holds, or touches, a secret
 * the server knows (another instance's credential, an HTTP token) is refused, also when read in slices.
 */
export async function readFile(params: ReadFileParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const jail = await confinementFor(ctx.config);
  const target = await jail.resolve(params.path, "/path");
  const limit = Math.min(params.max_bytes ?? ctx.config.maxReadBytes, ctx.config.maxReadBytes);
  const warnings: string[] = [];
  if (params.max_bytes !== undefined && params.max_bytes > ctx.config.maxReadBytes) {
    warnings.push(`max_bytes was lowered to this instance's maxReadBytes (${ctx.config.maxReadBytes})`);
  }
  let file: ConfinedFile;
  try {
    file = await jail.openFile(target);
  } catch (error) {
    const folder = isSkillError(error) && error.code === "ARGUMENT_INVALID" && (await isFolder(jail, target));
    if (folder) {
      throw new SkillError({
        code: "ARGUMENT_INVALID",
        field: "/path",
        message: `"${printablePath(params.path)}" is a folder; list it with list_directory`,
      });
    }
    throw error;
  }
  const size = file.stats.size;
  let buffer: Buffer;
  let window: Buffer;
  try {
    const want = Math.max(0, Math.min(limit, size - params.offset));
    buffer = await readAt(file, params.offset, want, ctx.signal, params.path);
    // The window around the slice: a secret split by offset/max_bytes shows whole in one of two windows.
    const beforeStart = Math.max(0, params.offset - SECRET_WINDOW_BYTES);
    const before = await readAt(
      file,
      beforeStart,
      Math.min(params.offset, size) - beforeStart,
      ctx.signal,
      params.path,
    );
    const after = await readAt(file, params.offset + buffer.length, SECRET_WINDOW_BYTES, ctx.signal, params.path);
    window = Buffer.concat([before, buffer, after]);
  } finally {
    await file.handle.close();
  }
  const finding = await ctx.findSecret(window);
  if (finding !== undefined) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/path",
      message: `"${printablePath(params.path)}" holds a secret this server knows (${finding.form === "plain" ? "as plain text" : `encoded as ${finding.form}`}) in or within ${SECRET_WINDOW_BYTES} bytes of the part asked for, so it is not returned; remove the secret from the file, or read another part`,
    });
  }

  let end = params.offset + buffer.length;
  if (params.encoding === "utf-8" && end < size) {
    // Never split a character: the cut moves back to the start of the last, incomplete one.
    const boundary = utf8Boundary(buffer);
    if (boundary > 0) buffer = buffer.subarray(0, boundary); // a limit smaller than one character reads its bytes
    end = params.offset + buffer.length;
  }
  let content: string;
  if (params.encoding === "base64") {
    content = buffer.toString("base64");
  } else {
    try {
      content = new TextDecoder("utf-8", { fatal: true }).decode(buffer);
    } catch {
      content = new TextDecoder("utf-8").decode(buffer);
      warnings.push('the file is not valid UTF-8 text; read it with encoding "base64" for its exact bytes');
    }
  }
  const truncated = end < size;
  const data: ReadFileData = {
    path: file.path,
    encoding: params.encoding,
    content,
    offset: params.offset,
    bytes: buffer.length,
    size,
    truncated,
    next_offset: truncated ? end : null,
  };
  const message = truncated
    ? `Read bytes ${params.offset}-${end} of ${size} from ${file.path}; continue at offset ${end}`
    : `Read ${buffer.length} bytes from ${file.path}`;
  return withEvidence(data, [file.path], { message, warnings });
}

export const readFileTool = defineTool({
  name: "read_file",
  title: "Read file",
  description:
    "Read a file inside the allowed folders, as UTF-8 text or base64. Large files come in parts: when truncated is true, call again with offset set to next_offset.",
  input: ReadFileInput,
  output: ReadFileOutput,
  risk: "read_only",
  annotations: { idempotentHint: true, openWorldHint: false },
  examples: [
    { path: "notes/todo.md", encoding: "utf-8", offset: 0 },
    { path: "docs/logo.png", encoding: "base64", offset: 0, max_bytes: 65536 },
  ],
  buildBrief: (p) => `Read ${p.path}${p.offset > 0 ? ` from byte ${p.offset}` : ""} as ${p.encoding}`,
  run: readFile,
});

// --- internal ---

async function isFolder(jail: Confinement, target: ConfinedPath): Promise<boolean> {
  try {
    return (await jail.stat(target)).isDirectory();
  } catch {
    return false;
  }
}

/** Up to `length` bytes from `position`; fewer when the file ends (or shrank) first. */
async function readAt(
  file: ConfinedFile,
  position: number,
  length: number,
  signal: AbortSignal,
  requested: string,
): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, length));
  let got = 0;
  try {
    while (got < buffer.length) {
      signal.throwIfAborted();
      const { bytesRead } = await file.handle.read(buffer, got, buffer.length - got, position + got);
      if (bytesRead === 0) break; // the file ended, or shrank meanwhile
      got += bytesRead;
    }
  } catch (error) {
    throw fsError(error, { path: requested, field: "/path" });
  }
  return buffer.subarray(0, got);
}

/** The length of `bytes` without a trailing, incomplete UTF-8 character. */
function utf8Boundary(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: keep looking for the lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
