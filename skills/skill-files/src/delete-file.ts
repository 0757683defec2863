import path from "node:path";
import type { SkillContext } from "@skillport/core";
import { defineTool, isSkillError, result, SkillError } from "@skillport/core";
import { printablePath } from "@skillport/core/confine";
import { z } from "zod";
import type { FilesConfig } from "./config.js";
import { confinementFor, openTargetFolder } from "./confinement.js";
import { pathField } from "./schema.js";

export const DeleteFileInput = z
  .object({
    path: pathField("The file, link or folder to delete", ["build/old-report.pdf"]),
    recursive: z
      .boolean()
      .default(false)
      .describe("Delete a folder with everything in it; without it only files, links and empty folders go")
      .meta({ examples: [false, true] }),
  })
  .strict();

export const DeleteFileOutput = z.object({
  path: z.string().describe("The absolute path deleted"),
  type: z.enum(["file", "directory", "symlink", "other"]),
});

export type DeleteFileParams = z.output<typeof DeleteFileInput>;
export type DeleteFileData = z.output<typeof DeleteFileOutput>;

/**
 * Deletes a file, a symbolic link (the link, never what it points to) or a folder (empty, or with `recursive`)
 * inside the roots, through its checked folder; a recursive delete opens every sub-folder through its checked
 * parent and never follows a link. A root itself, and anything under a protected name (`.git`), cannot be deleted.
 */
export async function deleteFile(params: DeleteFileParams, ctx: SkillContext<FilesConfig>) {
  ctx.signal.throwIfAborted();
  const jail = await confinementFor(ctx.config);
  const target = await jail.resolve(params.path, "/path");
  const shown = printablePath(params.path);
  if (target.stats === undefined) {
    throw new SkillError({ code: "NOT_FOUND", field: "/path", message: `"${shown}" does not exist` });
  }
  if (jail.roots.includes(target.entry)) {
    throw new SkillError({
      code: "PERMISSION_DENIED",
      field: "/path",
      message: `"${shown}" is a root of this instance and cannot be deleted; delete what is inside it instead`,
    });
  }
  jail.assertWritable(target);
  const stats = target.stats;
  const type = stats.isSymbolicLink()
    ? "symlink"
    : stats.isDirectory()
      ? "directory"
      : stats.isFile()
        ? "file"
        : "other";
  const folder = await openTargetFolder(jail, target, { create: false, entry: true });
  try {
    await folder.remove(path.basename(target.entry), { recursive: params.recursive, signal: ctx.signal });
  } catch (error) {
    if (isSkillError(error) && error.code === "CONFLICT") {
      throw new SkillError({
        code: "CONFLICT",
        field: "/recursive",
        message: `the folder "${shown}" is not empty; pass recursive: true to delete it with everything inside`,
      });
    }
    throw error;
  } finally {
    await folder.close();
  }
  const data: DeleteFileData = { path: target.entry, type };
  return result(data, { message: `Deleted ${type} ${target.entry}`, evidencePaths: [target.entry] });
}

export const deleteFileTool = defineTool({
  name: "delete_file",
  title: "Delete file",
  description:
    "Delete a file, a symbolic link (only the link) or an empty folder inside the allowed folders; a folder with contents only with recursive: true. Cannot be undone; a root itself, and anything under a protected name such as .git, cannot be deleted.",
  input: DeleteFileInput,
  output: DeleteFileOutput,
  risk: "dangerous",
  annotations: { idempotentHint: false, openWorldHint: false },
  examples: [
    { path: "build/old-report.pdf", recursive: false },
    { path: "build/tmp", recursive: true },
  ],
  buildBrief: (p) => `Delete ${p.path}${p.recursive ? " and everything inside it" : ""}`,
  run: deleteFile,
});
