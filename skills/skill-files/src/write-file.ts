import type { Stats } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { defineTool, result, SkillError } from "@skillport/core";
import { z } from "zod";
import { writeAtomic } from "./atomic-write.js";
import type { FilesConfig } from "./config.js";
import type { ResolvedPath } from "./roots.js";
import { errnoOf, fsError, printable, resolvePath } from "./roots.js";
import {
  checkContentByEncoding,
  contentByEncoding,
  contentBytes,
  contentField,
  encodingField,
  pathField,
} from "./schema.js";

export const WriteFileInput = z
  .object({
    path: pathField("The file to write", ["notes/todo.md", "site/index.html"]),
    content: contentField(),
    encoding: encodingField("content is given"),
    overwrite: z
      .boolean()
      .default(false)
      .describe("Replace the file if it exists; when false an existing file is left untouched and the call fails")
      .meta({ examples: [false, true] }),
    create_directories: z
      .boolean()
      .default(false)
      .describe("Create missing folders on the way to the file (inside the roots only)")
      .meta({ examples: [false, true] }),
  })
  .strict()
  .superRefine(checkContentByEncoding)
  .meta(contentByEncoding);

export const WriteFileOutput = z.object({
  path: z.string().describe("The real, absolute path written"),
  bytes: z.number().int().describe("The file's size now"),
  created: z.boolean().describe("True for a new file, false when an existing one was replaced"),
});

export type WriteFileParams = z.output<typeof WriteFileInput>;
export type WriteFileData = z.output<typeof WriteFileOutput>;

/**
 * Writes a whole file atomically: readers and crashes see the old file or the new one, never a part.
 * Refuses to replace an existing file unless `overwrite` is true.
 */
export async function writeFile(params: WriteFileParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const resolved = await resolvePath(ctx.config, params.path, "/path");
  const bytes = contentBytes(params.content, params.encoding, ctx.config.maxWriteBytes);
  const current = await currentFile(resolved);
  if (current !== undefined && !params.overwrite) {
    throw new SkillError({
      code: "CONFLICT",
      field: "/overwrite",
      message: `"${printable(params.path)}" already exists; pass overwrite: true to replace it, or choose another path`,
    });
  }
  await ensureFolder(resolved, params.create_directories);
  try {
    await writeAtomic(resolved.real, bytes, {
      overwrite: params.overwrite,
      mode: current === undefined ? undefined : current.mode & 0o7777,
      signal: ctx.signal,
      onChunk: (done, total) => ctx.progress(done, total, "writing"),
    });
  } catch (error) {
    throw fsError(error, resolved, "/path");
  }
  const data: WriteFileData = { path: resolved.real, bytes: bytes.length, created: current === undefined };
  return result(data, {
    message: `${current === undefined ? "Created" : "Replaced"} ${resolved.real} (${bytes.length} bytes)`,
    evidencePaths: [resolved.real],
  });
}

export const writeFileTool = defineTool({
  name: "write_file",
  title: "Write file",
  description:
    "Write a whole file inside the allowed folders, as UTF-8 text or base64 bytes. The write is atomic (never half-written). An existing file is only replaced with overwrite: true; missing folders are only created with create_directories: true. To add to a file, use append_file.",
  input: WriteFileInput,
  output: WriteFileOutput,
  risk: "write",
  annotations: { idempotentHint: true, openWorldHint: false },
  examples: [
    {
      path: "notes/todo.md",
      content: "# To do\n\n- ship it\n",
      encoding: "utf-8",
      overwrite: false,
      create_directories: true,
    },
    {
      path: "assets/dot.gif",
      content: "R0lGODlhAQABAAAAACw=",
      encoding: "base64",
      overwrite: true,
      create_directories: false,
    },
  ],
  buildBrief: (p) =>
    `${p.overwrite ? "Write or replace" : "Create"} ${p.path} (${p.encoding === "base64" ? "base64, " : ""}${p.content.length} characters)`,
  run: writeFile,
});

// --- internal ---

/** The file a write would replace, followed through a link; a folder there is refused. */
export async function currentFile(resolved: ResolvedPath): Promise<Stats | undefined> {
  let info: Stats;
  try {
    info = await stat(resolved.real);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw fsError(error, resolved, "/path");
  }
  if (!info.isFile()) {
    throw new SkillError({
      code: "ARGUMENT_INVALID",
      field: "/path",
      message: `"${printable(resolved.requested)}" is ${info.isDirectory() ? "a folder" : "not a regular file"}; give the path of a file`,
    });
  }
  return info;
}

/** Makes sure the file's folder exists, creating it (inside the root) only when asked. */
export async function ensureFolder(resolved: ResolvedPath, create: boolean): Promise<void> {
  const folder = path.dirname(resolved.real);
  try {
    if ((await stat(folder)).isDirectory()) return;
  } catch (error) {
    if (errnoOf(error) !== "ENOENT") throw fsError(error, resolved, "/path");
  }
  if (!create) {
    throw new SkillError({
      code: "NOT_FOUND",
      field: "/path",
      message: `the folder of "${printable(resolved.requested)}" does not exist; pass create_directories: true to create it`,
    });
  }
  try {
    // Every missing folder lies below the real, existing ancestor resolvePath checked, so none can lead outside.
    await mkdir(folder, { recursive: true });
  } catch (error) {
    throw fsError(error, resolved, "/path");
  }
}
