import type { Stats } from "node:fs";
import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { defineTool, result, SkillError } from "@skillport/core";
import type { ConfinedDirectory, ConfinedPath } from "@skillport/core/confine";
import { printablePath } from "@skillport/core/confine";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import { confinementFor, openTargetFolder } from "./confinement.js";
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
 * Refuses to replace an existing file unless `overwrite` is true, and to write under a protected name (`.git`).
 */
export async function writeFile(params: WriteFileParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const jail = await confinementFor(ctx.config);
  const target = await jail.resolve(params.path, "/path");
  jail.assertWritable(target);
  const bytes = contentBytes(params.content, params.encoding, ctx.config.maxWriteBytes);
  const name = path.basename(target.real);
  const folder = await openTargetFolder(jail, target, { create: params.create_directories });
  let current: Stats | undefined;
  try {
    current = await currentFile(folder, name, target);
    if (current !== undefined && !params.overwrite) {
      throw new SkillError({
        code: "CONFLICT",
        field: "/overwrite",
        message: `"${printablePath(params.path)}" already exists; pass overwrite: true to replace it, or choose another path`,
      });
    }
    await folder.writeAtomic(name, bytes, {
      overwrite: params.overwrite,
      mode: current === undefined ? undefined : current.mode & 0o7777,
      signal: ctx.signal,
      onChunk: (done, total) => ctx.progress(done, total, "writing"),
    });
  } finally {
    await folder.close();
  }
  const written = path.join(folder.path, name);
  const data: WriteFileData = { path: written, bytes: bytes.length, created: current === undefined };
  return result(data, {
    message: `${current === undefined ? "Created" : "Replaced"} ${written} (${bytes.length} bytes)`,
    evidencePaths: [written],
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

/** The file a write would replace, in its checked folder; a folder or anything but a regular file is refused. */
export async function currentFile(
  folder: ConfinedDirectory,
  name: string,
  target: ConfinedPath,
): Promise<Stats | undefined> {
  const info = await folder.lstat(name);
  if (info === undefined || info.isFile()) return info;
  throw new SkillError({
    code: "ARGUMENT_INVALID",
    field: "/path",
    message: `"${printablePath(target.requested)}" is ${info.isDirectory() ? "a folder" : "not a regular file"}; give the path of a file`,
  });
}
