import type { Stats } from "node:fs";
import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { defineTool, result, SkillError } from "@skillport/core";
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
import { currentFile } from "./write-file.js";

export const AppendFileInput = z
  .object({
    path: pathField("The file to add to; it is created when missing", ["logs/journal.md"]),
    content: contentField(),
    encoding: encodingField("content is given"),
    create_directories: z
      .boolean()
      .default(false)
      .describe("Create missing folders on the way to a new file (inside the roots only)")
      .meta({ examples: [false, true] }),
  })
  .strict()
  .superRefine(checkContentByEncoding)
  .meta(contentByEncoding);

export const AppendFileOutput = z.object({
  path: z.string().describe("The real, absolute path written"),
  appended: z.number().int().describe("Bytes added"),
  size: z.number().int().describe("The file's size now"),
  created: z.boolean().describe("True when the file did not exist before"),
});

export type AppendFileParams = z.output<typeof AppendFileInput>;
export type AppendFileData = z.output<typeof AppendFileOutput>;

/**
 * Adds content at the end of a file, atomically: the new version is built beside it (a copy plus the content) and
 * takes its place in one step, so nobody sees a half-appended file. Two appends racing on one file may keep only one.
 */
export async function appendFile(params: AppendFileParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const jail = await confinementFor(ctx.config);
  const target = await jail.resolve(params.path, "/path");
  jail.assertWritable(target);
  const bytes = contentBytes(params.content, params.encoding, ctx.config.maxWriteBytes);
  const name = path.basename(target.real);
  const folder = await openTargetFolder(jail, target, { create: params.create_directories });
  let current: Stats | undefined;
  let size: number;
  try {
    current = await currentFile(folder, name, target);
    size = (current?.size ?? 0) + bytes.length;
    if (size > ctx.config.maxFileBytes) {
      throw new SkillError({
        code: "PERMISSION_DENIED",
        field: "/content",
        message: `appending would grow "${printablePath(params.path)}" to ${size} bytes, over this instance's maxFileBytes (${ctx.config.maxFileBytes}); start a new file`,
      });
    }
    await folder.writeAtomic(name, bytes, {
      overwrite: current !== undefined,
      append: current !== undefined,
      mode: current === undefined ? undefined : current.mode & 0o7777,
      signal: ctx.signal,
      onChunk: (done, total) => ctx.progress(done, total, "appending"),
    });
  } finally {
    await folder.close();
  }
  const written = path.join(folder.path, name);
  const data: AppendFileData = { path: written, appended: bytes.length, size, created: current === undefined };
  return result(data, {
    message: `Appended ${bytes.length} bytes to ${written}${current === undefined ? " (new file)" : ""}`,
    evidencePaths: [written],
  });
}

export const appendFileTool = defineTool({
  name: "append_file",
  title: "Append to file",
  description:
    "Add UTF-8 text or base64 bytes at the end of a file inside the allowed folders, creating the file when missing. Atomic: the file is never seen half-appended. Refuses to grow a file past the instance's maxFileBytes.",
  input: AppendFileInput,
  output: AppendFileOutput,
  risk: "write",
  annotations: { idempotentHint: false, openWorldHint: false },
  examples: [
    {
      path: "logs/journal.md",
      content: "- 2026-03-01: shipped the files skill\n",
      encoding: "utf-8",
      create_directories: false,
    },
  ],
  buildBrief: (p) => `Append ${p.content.length} ${p.encoding === "base64" ? "base64 " : ""}characters to ${p.path}`,
  run: appendFile,
});
