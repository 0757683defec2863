import { constants } from "node:fs";
import { open } from "node:fs/promises";
import type { SkillContext } from "@skillport/core";
import { defineTool, SkillError, withEvidence } from "@skillport/core";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import { fsError, printable, resolvePath } from "./roots.js";
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

/** Reads a file inside the roots, or a part of it, as UTF-8 text or base64. */
export async function readFile(params: ReadFileParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const resolved = await resolvePath(ctx.config, params.path, "/path");
  const limit = Math.min(params.max_bytes ?? ctx.config.maxReadBytes, ctx.config.maxReadBytes);
  const warnings: string[] = [];
  if (params.max_bytes !== undefined && params.max_bytes > ctx.config.maxReadBytes) {
    warnings.push(`max_bytes was lowered to this instance's maxReadBytes (${ctx.config.maxReadBytes})`);
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: opening a FIFO must not hang the call; O_NOFOLLOW: the resolved path must still be the file.
    handle = await open(resolved.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw fsError(error, resolved, "/path");
  }
  let buffer: Buffer;
  let size: number;
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new SkillError({
        code: "ARGUMENT_INVALID",
        field: "/path",
        message: info.isDirectory()
          ? `"${printable(params.path)}" is a folder; list it with list_directory`
          : `"${printable(params.path)}" is not a regular file`,
      });
    }
    size = info.size;
    const want = Math.max(0, Math.min(limit, size - params.offset));
    buffer = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      ctx.signal.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, got, want - got, params.offset + got);
      if (bytesRead === 0) break; // the file shrank meanwhile
      got += bytesRead;
    }
    buffer = buffer.subarray(0, got);
  } finally {
    await handle.close();
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
    path: resolved.real,
    encoding: params.encoding,
    content,
    offset: params.offset,
    bytes: buffer.length,
    size,
    truncated,
    next_offset: truncated ? end : null,
  };
  const message = truncated
    ? `Read bytes ${params.offset}-${end} of ${size} from ${resolved.real}; continue at offset ${end}`
    : `Read ${buffer.length} bytes from ${resolved.real}`;
  return withEvidence(data, [resolved.real], { message, warnings });
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
